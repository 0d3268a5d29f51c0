// A remote MCP server that signs in with OAuth 2.1 as the MCP authorization specification has it,
// on 127.0.0.1 for tests: protected resource metadata, authorization server metadata, dynamic
// registration, an authorization page that redirects at once with a code, a token endpoint (PKCE
// checked), and /mcp (the probe server's tools) that answers 401 with where to sign in until a
// token it issued comes. `scopeForCalls`: a tools/call needs it (403 insufficient_scope otherwise).
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { probeServer } from './mcp-probe-server.mjs';

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));

export class ScriptedOAuthServer {
  /** The query of each authorization request the browser made. */
  readonly authorizations: URLSearchParams[] = [];
  /** Each token request's grant type. */
  readonly grants: string[] = [];
  private readonly tokens = new Map<string, string[]>();
  private readonly codes = new Map<string, { challenge: string; scope: string[] }>();
  private http: Server | null = null;
  baseUrl = '';

  constructor(private readonly options: { scopeForCalls?: string } = {}) {}

  get mcpUrl(): string {
    return `${this.baseUrl}/mcp`;
  }

  async start(): Promise<void> {
    this.http = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.http!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  close(): void {
    this.http?.closeAllConnections();
    this.http?.close();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const base = this.baseUrl;
    if (url.pathname === '/.well-known/oauth-protected-resource/mcp') return json(res, 200, { resource: this.mcpUrl, authorization_servers: [base], scopes_supported: ['mcp:read'] });
    if (url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    }
    if (url.pathname === '/register' && req.method === 'POST') return json(res, 201, { ...JSON.parse(await body(req)), client_id: `client-${Date.now()}` });
    if (url.pathname === '/authorize') {
      this.authorizations.push(url.searchParams);
      const code = `code-${this.authorizations.length}`;
      this.codes.set(code, { challenge: url.searchParams.get('code_challenge') ?? '', scope: (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean) });
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      if (url.searchParams.get('state')) back.searchParams.set('state', url.searchParams.get('state')!);
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await body(req));
      const grant = form.get('grant_type') ?? '';
      this.grants.push(grant);
      const issued = grant === 'authorization_code' ? this.codes.get(form.get('code') ?? '') : grant === 'refresh_token' ? { challenge: null, scope: this.tokens.get(`refresh:${form.get('refresh_token')}`) ?? [] } : undefined;
      const verifier = form.get('code_verifier') ?? '';
      if (!issued || (issued.challenge !== null && createHash('sha256').update(verifier).digest('base64url') !== issued.challenge)) return json(res, 400, { error: 'invalid_grant' });
      const n = this.tokens.size;
      this.tokens.set(`AT-${n}`, issued.scope);
      this.tokens.set(`refresh:RT-${n}`, issued.scope);
      return json(res, 200, { access_token: `AT-${n}`, token_type: 'Bearer', expires_in: 3600, refresh_token: `RT-${n}`, scope: issued.scope.join(' ') });
    }
    if (url.pathname !== '/mcp') return void res.writeHead(404).end();
    const metadata = `${base}/.well-known/oauth-protected-resource/mcp`;
    const scopes = this.tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!scopes) return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer resource_metadata="${metadata}", scope="mcp:read"` });
    const text = req.method === 'POST' ? await body(req) : '';
    const parsed = text ? (JSON.parse(text) as { method?: string }) : undefined;
    const needed = this.options.scopeForCalls;
    if (needed && parsed?.method === 'tools/call' && !scopes.includes(needed)) {
      return json(res, 403, { error: 'insufficient_scope' }, { 'www-authenticate': `Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${metadata}"` });
    }
    // Stateless: a server and a transport per request, as the SDK's examples do.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const mcp = probeServer();
    res.on('close', () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res, parsed);
  }
}
