import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
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

  it('has no codec where the OS offers no encryption', () => {
    expect(safeStorageCodec(fakeSafeStorage(false))).toBeNull();
  });
});
