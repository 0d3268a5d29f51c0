import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { EngineError } from '../errors';

/** What is kept of one server's sign-in: its tokens, the client it registered, the PKCE verifier in flight. */
export interface McpAuthState {
  tokens?: OAuthTokens;
  client?: OAuthClientInformationMixed;
  codeVerifier?: string;
  /** Every scope the server has asked for: a new sign-in asks for all of them, so a step-up keeps what was granted. */
  scope?: string;
  /** The server refused a call for want of scope (403 insufficient_scope): the next sign-in asks for more. */
  stepUp?: boolean;
}

/** The union of space-separated scope lists, in first-seen order; undefined when empty. */
export function unionScopes(...lists: (string | null | undefined)[]): string | undefined {
  const all = [...new Set(lists.flatMap((list) => (list ?? '').split(' ').filter(Boolean)))];
  return all.length > 0 ? all.join(' ') : undefined;
}

/** Where one server's sign-in is kept (a file of secrets, mode 0600). */
export interface McpAuthStorage {
  read(): McpAuthState;
  write(state: McpAuthState): void;
}

/** A server that needs a sign-in: `finish` completes it with the code the browser's redirect brought. */
export class McpSignInNeeded extends Error {
  constructor(
    readonly server: string,
    readonly finish: (code: string) => Promise<void>,
  ) {
    super(`the MCP server "${server}" needs a sign-in: agents mcp login ${server}`);
  }
}

/**
 * The MCP SDK's OAuth client, kept in our storage: the SDK does the flow (metadata discovery,
 * dynamic registration, PKCE, the `resource` parameter, scopes, refresh); this says where the
 * tokens live and how the browser is opened. Without `open` (a plan, `mcp call`), a server that
 * asks for a new sign-in fails with the command that gives one.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  constructor(
    private readonly server: string,
    private readonly storage: McpAuthStorage,
    private readonly options: { redirectUrl?: string; open?: (url: URL) => Promise<void> | void; client?: { id: string; secret?: string } } = {},
  ) {}

  get redirectUrl(): string {
    return this.options.redirectUrl ?? 'http://127.0.0.1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'CleverAgents',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const given = this.options.client;
    if (given) return { client_id: given.id, ...(given.secret ? { client_secret: given.secret } : {}) };
    const client = this.storage.read().client;
    // A client registered for another loopback address cannot take this sign-in's redirect.
    const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    if (this.options.open && uris && !uris.includes(this.redirectUrl)) return undefined;
    return client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.storage.write({ ...this.storage.read(), client });
  }

  tokens(): OAuthTokens | undefined {
    const { tokens, stepUp } = this.storage.read();
    if (!tokens || !stepUp) return tokens;
    // A refresh cannot widen the grant: a step-up goes to the authorization page instead, and a sign-in in the browser starts without the old tokens.
    return this.options.open ? undefined : { ...tokens, refresh_token: undefined };
  }

  saveTokens(tokens: OAuthTokens): void {
    this.storage.write({ ...this.storage.read(), tokens, codeVerifier: undefined, stepUp: undefined });
  }

  /** A call refused with 403 insufficient_scope: the next sign-in asks for `scope` besides what was asked before. */
  noteScopeChallenge(scope: string | undefined): void {
    const state = this.storage.read();
    this.storage.write({ ...state, stepUp: true, scope: unionScopes(state.scope, state.tokens?.scope, scope) });
  }

  /** Whether the server asked for more scope than the kept tokens carry. */
  get needsStepUp(): boolean {
    return this.storage.read().stepUp === true;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    // The SDK asks for the scope of the latest challenge; the union keeps what earlier ones asked (MCP step-up).
    const state = this.storage.read();
    const scope = unionScopes(state.scope, url.searchParams.get('scope'));
    if (scope) {
      url.searchParams.set('scope', scope);
      this.storage.write({ ...state, scope });
    }
    if (!this.options.open) throw new EngineError(`the MCP server "${this.server}" needs a sign-in: run agents mcp login ${this.server}`, 'tool', { server: this.server, signIn: true });
    await this.options.open(url);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.storage.write({ ...this.storage.read(), codeVerifier });
  }

  codeVerifier(): string {
    const verifier = this.storage.read().codeVerifier;
    if (!verifier) throw new EngineError(`no sign-in to the MCP server "${this.server}" is in progress`, 'validation');
    return verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const state = this.storage.read();
    if (scope === 'all') return this.storage.write({});
    if (scope === 'client') return this.storage.write({ ...state, client: undefined });
    if (scope === 'tokens') return this.storage.write({ ...state, tokens: undefined });
    if (scope === 'verifier') return this.storage.write({ ...state, codeVerifier: undefined });
  }
}

/**
 * The fetch of a remote server's transport: a 403 insufficient_scope is noted in the provider
 * before the SDK re-authorizes with the challenge's scope (its step-up), so a sign-in made for it
 * (here or by `agents mcp login`) asks for every scope needed, and no refresh stands in for it.
 */
export function scopeChallengeFetch(provider: OAuthClientProvider | undefined): FetchLike | undefined {
  if (!(provider instanceof StoredOAuthProvider)) return undefined;
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.status === 403) {
      // Loaded here: the CLI starts without the SDK.
      const { extractWWWAuthenticateParams } = await import('@modelcontextprotocol/sdk/client/auth.js');
      const { error, scope } = extractWWWAuthenticateParams(response);
      if (error === 'insufficient_scope') provider.noteScopeChallenge(scope);
    }
    return response;
  };
}
