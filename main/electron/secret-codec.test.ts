import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { mcpAuthFile } from '../app/mcp-auth';
import { SettingsStore } from '../app/settings';
import { safeStorageCodec } from './secret-codec';

vi.mock('electron', () => ({}));

/** A stand-in for safeStorage that reverses the bytes: enough to see the key never lands in clear. */
const fakeSafeStorage = (available: boolean) => ({
  isEncryptionAvailable: () => available,
  encryptString: (plain: string) => Buffer.from([...Buffer.from(plain)].reverse()),
  decryptString: (cipher: Buffer) => Buffer.from([...cipher].reverse()).toString(),
});

describe('the desktop app keeps the API key with safeStorage', () => {
  it('stores it encrypted and reads it back', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agents-secret-')), 'settings.json');
    const settings = new SettingsStore(file, safeStorageCodec(fakeSafeStorage(true)));
    settings.patch({ apiKey: 'sk-desktop-key' });
    const raw = readFileSync(file, 'utf8');
    expect(raw).not.toContain('sk-desktop-key');
    expect(JSON.parse(raw)).toHaveProperty('apiKeyEncrypted');
    expect(settings.apiKey()).toBe('sk-desktop-key');
    expect(settings.view({}).apiKeySet).toBe(true);
    // The CLI has no safeStorage: it sees that a key is set but cannot read it.
    expect(new SettingsStore(file).apiKey()).toBeNull();
  });

  it("keeps an MCP server's sign-in encrypted too, which the CLI cannot read", () => {
    const dir = mkdtempSync(join(tmpdir(), 'agents-secret-'));
    const settings = new SettingsStore(join(dir, 'settings.json'), safeStorageCodec(fakeSafeStorage(true)));
    const auth = mcpAuthFile(dir, settings.codec);
    auth.storage('remote').write({ tokens: { access_token: 'AT-DESKTOP', token_type: 'Bearer', refresh_token: 'RT-DESKTOP' }, scope: 'mcp:read' });
    const raw = readFileSync(join(dir, 'mcp-auth.json'), 'utf8');
    expect(raw).not.toContain('AT-DESKTOP');
    expect(raw).not.toContain('RT-DESKTOP');
    expect(JSON.parse(raw).remote).toHaveProperty('encrypted');
    expect(statSync(join(dir, 'mcp-auth.json')).mode & 0o777).toBe(0o600);
    const servers = { remote: { url: 'http://127.0.0.1:9/mcp', headers: {} } };
    expect(auth.providerFor(servers)('remote')?.tokens()).toMatchObject({ access_token: 'AT-DESKTOP', refresh_token: 'RT-DESKTOP' });
    expect(auth.storage('remote').read().scope).toBe('mcp:read');
    // The CLI has no safeStorage: the server has no sign-in it can use, and a new one there is kept in clear.
    const cli = mcpAuthFile(dir);
    expect(cli.has('remote')).toBe(false);
    expect(cli.providerFor(servers)('remote')).toBeUndefined();
    expect(auth.forget('remote')).toBe(true);
    expect(auth.has('remote')).toBe(false);
  });

  it('has no codec where the OS offers no encryption', () => {
    expect(safeStorageCodec(fakeSafeStorage(false))).toBeNull();
  });
});
