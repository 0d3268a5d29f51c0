import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ValidationError } from '../../shared/errors';
import { isStdioServer, type McpServer } from '../../shared/mcp';
import { EngineError } from '../engine/errors';
import type { SecretCodec } from './settings';
import { type McpAuthState, McpSignInNeeded, StoredOAuthProvider } from '../engine/mcp/oauth';

/** How long `agents mcp login` waits for the browser to come back. */
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

/** One server's entry in mcp-auth.json: its sign-in, or (kept by the desktop app) that sign-in encrypted. */
type McpAuthEntry = McpAuthState | { encrypted: string };

/**
 * The sign-ins of the MCP servers, by name, in the data directory: secrets, so mode 0600 and never
 * shown. With a codec (the desktop app's safeStorage, as for the API key) each entry is kept
 * encrypted; a process without it (the CLI) cannot read such an entry and sees no sign-in there.
 */
export class McpAuthFile {
  constructor(
    readonly file: string,
    private readonly codec: SecretCodec | null = null,
  ) {}

  private all(): Record<string, McpAuthEntry> {
    if (!existsSync(this.file)) return {};
    try {
      return JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, McpAuthEntry>;
    } catch {
      return {};
    }
  }

  private stateOf(entry: McpAuthEntry | undefined): McpAuthState {
    if (entry === undefined) return {};
    if (!('encrypted' in entry)) return entry;
    if (!this.codec) return {};
    try {
      return JSON.parse(this.codec.decrypt(entry.encrypted)) as McpAuthState;
    } catch {
      return {};
    }
  }

  private save(all: Record<string, McpAuthEntry>): void {
    writeFileSync(this.file, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    chmodSync(this.file, 0o600);
  }

  has(name: string): boolean {
    return this.stateOf(this.all()[name]).tokens !== undefined;
  }

  storage(name: string) {
    return {
      read: (): McpAuthState => this.stateOf(this.all()[name]),
      write: (state: McpAuthState) => {
        const plain = JSON.stringify(state);
        this.save({ ...this.all(), [name]: this.codec ? { encrypted: this.codec.encrypt(plain) } : (JSON.parse(plain) as McpAuthState) });
      },
    };
  }

  forget(name: string): boolean {
    const all = this.all();
    if (!(name in all)) return false;
    delete all[name];
    this.save(all);
    return true;
  }

  /** The sign-in a connection uses: a remote server's kept tokens (refreshed by the SDK as they expire); none for others. */
  providerFor(servers: Readonly<Record<string, McpServer>>) {
    return (name: string) => {
      const server = servers[name];
      return server && !isStdioServer(server) && this.has(name) ? new StoredOAuthProvider(name, this.storage(name)) : undefined;
    };
  }
}

/** `codec`: the desktop app's (SettingsStore.codec), which keeps the tokens encrypted as it keeps the API key. */
export function mcpAuthFile(dataDir: string, codec: SecretCodec | null = null): McpAuthFile {
  return new McpAuthFile(path.join(dataDir, 'mcp-auth.json'), codec);
}

/** Opens `url` in a browser: the command `AGENTS_BROWSER` names (for scripts and tests), else xdg-open; false when neither ran. */
export function openBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const command = env.AGENTS_BROWSER;
  const child = command ? spawn('/bin/sh', ['-c', `${command} "$1"`, 'sh', url], { stdio: 'ignore', detached: false }) : spawn('xdg-open', [url], { stdio: 'ignore' });
  return new Promise((resolve) => {
    child.on('error', () => resolve(false));
    child.on('spawn', () => resolve(true));
  });
}

/** A loopback address for the sign-in's redirect, and the code it brings. */
async function callbackServer(): Promise<{ url: string; code: Promise<string>; close: () => void }> {
  let settle!: { resolve: (code: string) => void; reject: (error: Error) => void };
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    const given = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(given ? 'Signed in. You can close this window.' : `Sign-in failed: ${error ?? 'no code'}`);
    if (given) settle.resolve(given);
    else settle.reject(new ValidationError('sign-in', `the server answered ${error ?? 'without a code'}`));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const timer = setTimeout(() => settle.reject(new ValidationError('sign-in', 'no answer from the browser within 5 minutes')), SIGN_IN_TIMEOUT_MS);
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/callback`,
    code,
    close: () => {
      clearTimeout(timer);
      http.close();
    },
  };
}

/**
 * `agents mcp login NAME`: signs in to a remote server through the MCP SDK's OAuth client. The
 * browser opens at the server's sign-in page; its redirect to a loopback address brings the code,
 * which the SDK exchanges for tokens, kept in mcp-auth.json. `client` is a pre-registered client.
 */
export async function loginMcpServer(
  auth: McpAuthFile,
  servers: Readonly<Record<string, McpServer>>,
  name: string,
  options: { open: (url: string) => Promise<boolean>; say: (line: string) => void; client?: { id: string; secret?: string } },
): Promise<{ tools: number; already: boolean }> {
  const server = servers[name];
  if (server === undefined) throw new ValidationError('name', `no MCP server "${name}"; ${Object.keys(servers).length > 0 ? `the servers are ${Object.keys(servers).join(', ')}` : 'none is configured'}`);
  if (isStdioServer(server)) throw new ValidationError('name', `the MCP server "${name}" is a local command; only a remote one (--url) signs in`);
  const { connectMcpServer } = await import('../engine/mcp/mcp-servers');
  const callback = await callbackServer();
  const sandboxRoot = mkdtempSync(path.join(tmpdir(), 'agents-mcp-login-'));
  const profile = { allowNetwork: false, allowUnconfinedShell: false };
  const open = async (url: URL) => {
    options.say(`Sign in to ${name} in the browser${(await options.open(url.href)) ? '' : `: open ${url.href}`}`);
  };
  try {
    // A pre-registered client is kept with the tokens: refreshing them needs it.
    if (options.client) auth.storage(name).write({ scope: auth.storage(name).read().scope, client: { client_id: options.client.id, ...(options.client.secret ? { client_secret: options.client.secret } : {}) } });
    const provider = new StoredOAuthProvider(name, auth.storage(name), { redirectUrl: callback.url, open, client: options.client });
    try {
      const connected = await connectMcpServer(name, server, { sandboxRoot, profile, auth: () => provider });
      await connected.close();
      return { tools: connected.tools.length, already: true };
    } catch (error) {
      if (!(error instanceof McpSignInNeeded)) throw error;
      await error.finish(await callback.code);
    }
    const connected = await connectMcpServer(name, server, { sandboxRoot, profile, auth: auth.providerFor(servers) });
    await connected.close();
    return { tools: connected.tools.length, already: false };
  } catch (error) {
    if (error instanceof EngineError) throw new ValidationError('sign-in', error.message);
    throw error;
  } finally {
    callback.close();
    rmSync(sandboxRoot, { recursive: true, force: true });
  }
}

/** A plan's sign-in approved from the console's card or `plan approve`: the browser opens for it unless a usable sign-in is kept. */
export async function signInFor(auth: McpAuthFile, servers: Readonly<Record<string, McpServer>>, name: string): Promise<void> {
  const state = auth.storage(name).read();
  if (state.tokens !== undefined && !state.stepUp) return;
  await loginMcpServer(auth, servers, name, { open: (url) => openBrowser(url), say: (line) => process.stderr.write(`${line}\n`) });
}
