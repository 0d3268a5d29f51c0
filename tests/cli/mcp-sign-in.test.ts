// Remote MCP servers that sign in with OAuth, against a scripted authorization and MCP server on
// 127.0.0.1 (the "browser" is a fetch that follows the sign-in page's redirect, as AGENTS_BROWSER
// allows). A plan whose server needs a sign-in waits for it as for an approval (exit 3, "Sign in to
// NAME"), and `agents mcp login NAME` answers it and goes on with the plan; `agents mcp call` steps
// up to a wider scope when the server refuses a call for want of one.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, afterAll, beforeEach, describe, expect, it } from 'vitest';
import { type Approval, ApprovalSchema } from '../../shared/approvals';
import { isStrategize, toolResults } from '../support/scripted-agent';
import { type ChatRequest, type ScriptedReply, ScriptedModelServer } from '../support/scripted-model-server';
import { ScriptedOAuthServer } from '../support/scripted-oauth-server';
import { agents, agentsJson, sandboxWorkspace } from './cli-harness';

const model = new ScriptedModelServer();
let oauth: ScriptedOAuthServer;
let env: Record<string, string>;

beforeAll(async () => {
  await model.start();
});
afterAll(() => model.close());
beforeEach(() => {
  model.reset();
  env = {
    AGENTS_MODEL: 'openai-compatible:scripted',
    AGENTS_BASE_URL: model.baseUrl,
    AGENTS_API_KEY: '',
    AGENTS_BROWSER: `${JSON.stringify(process.execPath)} -e "fetch(process.argv[1]).catch(() => process.exit(1))"`,
  };
});
afterEach(() => oauth.close());

/** One step: the remote server's echo, then finish. */
function agent(request: ChatRequest): ScriptedReply {
  if (isStrategize(request)) return { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Echo through the remote server', rationale: 'asked', acceptance: 'echoed' }] } }] };
  if (toolResults(request) === 0) return { toolCalls: [{ name: 'remote_echo', args: { text: 'signed in' } }] };
  return { toolCalls: [{ name: 'finish_step', args: { summary: 'Echoed.' } }] };
}

const pendingOf = async (home: string, id: string) => ApprovalSchema.nullable().parse((await agentsJson<{ pending: Approval | null }>(['plan', 'approvals', id], home)).pending);

/** A plan of one step using the scripted server, run until it waits for the sign-in. */
async function planWaitingForSignIn(): Promise<{ home: string; id: string }> {
  oauth = new ScriptedOAuthServer();
  await oauth.start();
  const { home, examples } = sandboxWorkspace();
  const file = join(examples, 'remote.yaml');
  writeFileSync(file, `name: remote\nproject: ./demo-project\nagent: true\nautomationProfile: { base: trusted, allow: ["remote.*"] }\ndefinitionOfDone: |\n  - It echoed\nmcp:\n  servers:\n    remote: { url: ${JSON.stringify(oauth.mcpUrl)} }\n`);
  model.respondWith(agent);
  const created = await agents(['plan', 'create', file], home, env);
  expect(created.code, created.stderr).toBe(0);
  const id = created.stdout.trim();
  expect((await agents(['plan', 'run', id], home, env)).code).toBe(3);
  expect((await pendingOf(home, id))?.kind).toBe('plan');
  // The step's server answers 401: the run waits, naming the command that signs in.
  const waiting = await agents(['plan', 'approve', id], home, env);
  expect(waiting.code, waiting.stderr).toBe(3);
  expect(waiting.stderr).toContain('The MCP server "remote" needs a sign-in before step "Echo through the remote server" can use it: run agents mcp login remote');
  expect(waiting.stderr).toContain('sign in with: agents mcp login remote (the plan goes on once signed in)');
  expect(await pendingOf(home, id)).toMatchObject({ kind: 'signin', tool: 'remote', description: 'Sign in to remote', status: 'pending' });
  return { home, id };
}

/** What the remote server's echo told the model last. */
const lastToolResult = () => String(model.requests.filter((r) => !isStrategize(r)).at(-1)?.messages.filter((m) => m.role === 'tool').at(-1)?.content);

describe('a remote MCP server that signs in with OAuth', () => {
  it('makes a plan wait for the sign-in, which agents mcp login gives, and the plan goes on', { timeout: 240_000 }, async () => {
    const { home, id } = await planWaitingForSignIn();
    expect(oauth.authorizations).toHaveLength(0);

    const login = await agents(['mcp', 'login', 'remote'], home, env);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`remote (${id}) waited for this sign-in and goes on`);
    expect(login.stderr).toContain('remote: Ready to apply');
    expect(login.stdout).toContain('Signed in to remote');
    expect(oauth.authorizations).toHaveLength(1);
    expect(oauth.authorizations[0].get('code_challenge_method')).toBe('S256');
    expect(oauth.authorizations[0].get('resource')).toBe(oauth.mcpUrl);
    expect(lastToolResult()).toContain('signed in');
    // The tokens are kept mode 0600, and the plan's approvals record the sign-in as answered.
    expect(statSync(join(home, 'mcp-auth.json')).mode & 0o777).toBe(0o600);
    const approvals = await agentsJson<{ approvals: Approval[] }>(['plan', 'approvals', id], home);
    expect(approvals.approvals.find((a) => a.kind === 'signin')).toMatchObject({ status: 'approved', usedAt: expect.any(String) });
  });

  it("is signed in by approving the plan's sign-in (the console's card, plan approve): the browser opens, then the plan goes on", { timeout: 240_000 }, async () => {
    const { home, id } = await planWaitingForSignIn();
    const approved = await agents(['plan', 'approve', id], home, env);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain('Sign in to remote in the browser');
    expect(approved.stderr).toContain('remote: Ready to apply');
    expect(oauth.authorizations).toHaveLength(1);
    expect(lastToolResult()).toContain('signed in');
  });

  it('steps up: a call refused with 403 insufficient_scope signs in again for every scope asked, then is made again', { timeout: 120_000 }, async () => {
    oauth = new ScriptedOAuthServer({ scopeForCalls: 'mcp:write' });
    await oauth.start();
    const { home } = sandboxWorkspace();
    expect((await agents(['mcp', 'add', 'remote', '--url', oauth.mcpUrl], home, env)).code).toBe(0);
    const login = await agents(['mcp', 'login', 'remote'], home, env);
    expect(login.code, login.stderr).toBe(0);
    expect(oauth.authorizations.map((a) => a.get('scope'))).toEqual(['mcp:read']);

    const call = await agents(['mcp', 'call', 'remote', 'echo', '--args', '{"text": "wider"}'], home, env);
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toContain('wider');
    expect(call.stderr).toContain('remote asks for more access (mcp:read mcp:write): signing in again');
    // The second sign-in asks for the union; a refresh (which cannot widen the grant) is not tried.
    expect(oauth.authorizations.map((a) => a.get('scope'))).toEqual(['mcp:read', 'mcp:read mcp:write']);
    expect(oauth.grants).toEqual(['authorization_code', 'authorization_code']);
    const kept = readFileSync(join(home, 'mcp-auth.json'), 'utf8');
    expect(JSON.parse(kept).remote).toMatchObject({ scope: 'mcp:read mcp:write', tokens: { scope: 'mcp:read mcp:write' } });
    expect(JSON.parse(kept).remote.stepUp).toBeUndefined();
  });
});
