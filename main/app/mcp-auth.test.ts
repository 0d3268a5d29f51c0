import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpAuthFile } from './mcp-auth';

describe("the MCP servers' sign-ins", () => {
  it('are kept in mcp-auth.json, mode 0600, used for a remote server that has one, and forgotten on logout', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'agents-mcp-auth-'));
    const auth = mcpAuthFile(dir);
    const servers = { remote: { url: 'http://127.0.0.1:9/mcp', headers: {} }, local: { command: '/bin/true', args: [], env: {} }, other: { url: 'http://127.0.0.1:9/other', headers: {} } };
    expect(auth.providerFor(servers)('remote')).toBeUndefined();
    auth.storage('remote').write({ tokens: { access_token: 'AT-SECRET', token_type: 'Bearer', refresh_token: 'RT-SECRET' } });
    expect(statSync(path.join(dir, 'mcp-auth.json')).mode & 0o777).toBe(0o600);
    const provider = auth.providerFor(servers)('remote');
    expect(provider?.tokens()).toMatchObject({ access_token: 'AT-SECRET' });
    // A refresh replaces the tokens and clears a verifier in flight.
    await provider?.saveTokens({ access_token: 'AT-2', token_type: 'Bearer', refresh_token: 'RT-2' });
    expect(JSON.parse(readFileSync(path.join(dir, 'mcp-auth.json'), 'utf8')).remote.tokens.access_token).toBe('AT-2');
    expect(auth.providerFor(servers)('other')).toBeUndefined();
    expect(auth.providerFor(servers)('local')).toBeUndefined();
    // Without a browser to open (a plan, `mcp call`), a new sign-in is refused with the command that gives one.
    await expect(provider?.redirectToAuthorization(new URL('http://127.0.0.1:9/authorize'))).rejects.toThrow('needs a sign-in: run agents mcp login remote');
    expect(auth.forget('remote')).toBe(true);
    expect(auth.forget('remote')).toBe(false);
    expect(auth.providerFor(servers)('remote')).toBeUndefined();
  });
});
