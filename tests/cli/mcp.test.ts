import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isStrategize, toolResults } from '../support/scripted-agent';
import { type ChatRequest, type ScriptedReply, ScriptedModelServer } from '../support/scripted-model-server';
import { agents, ROOT, sandboxWorkspace } from './cli-harness';

/** The real filesystem MCP server from npm, as `agents mcp add` is given it. */
const FILESYSTEM_SERVER = join(ROOT, 'node_modules/.bin/mcp-server-filesystem');
const NOTES = '# Notes\n\nWritten through an MCP server.\n';

const server = new ScriptedModelServer();
let env: Record<string, string>;

beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  env = { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '' };
});

// Each test starts the CLI several times, and each run starts the MCP server.
const LONG = { timeout: 180_000 };

/** A model that proposes one step, which writes NOTES.md and lists the folder through the `files` server, then finishes. */
function mcpAgent(request: ChatRequest): ScriptedReply {
  if (isStrategize(request)) {
    const step = { description: 'Write NOTES.md through the files server', rationale: 'The definition of done asks for it', acceptance: 'NOTES.md exists' };
    return { toolCalls: [{ name: 'propose_plan', args: { steps: [step] } }] };
  }
  const results = toolResults(request);
  if (results === 0) return { text: 'Writing the notes.', toolCalls: [{ name: 'files_write_file', args: { path: 'NOTES.md', content: NOTES } }] };
  if (results === 1) return { toolCalls: [{ name: 'files_list_directory', args: { path: '.' } }] };
  return { toolCalls: [{ name: 'finish_step', args: { summary: 'Wrote NOTES.md through the files server.' } }] };
}

/** An agent plan over a copy of the demo project; `extra` is appended to the plan file (an mcp: or a profile). */
function agentPlan(examples: string, extra: string): string {
  const file = join(examples, 'agent-mcp.yaml');
  writeFileSync(file, `name: agent-mcp\nproject: ./demo-project\nagent: true\ndefinitionOfDone: |\n  - NOTES.md exists\n${extra}`);
  return file;
}

const lastToolResult = (request: ChatRequest | undefined) => String(request?.messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');

describe('agents mcp: the MCP servers of the settings', () => {
  it('adds a local and a remote server, lists them with their tools and whether they start, and removes them', LONG, async () => {
    const { home } = sandboxWorkspace();
    // As the README writes it: a path relative to where the command runs, kept absolute.
    const added = await agents(['mcp', 'add', 'files', '--env', 'LOG_LEVEL=quiet', '--', 'node_modules/.bin/mcp-server-filesystem', '.'], home);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe(`MCP server files added: ${FILESYSTEM_SERVER} . (env: LOG_LEVEL)\n`);
    const remote = await agents(['mcp', 'add', 'tracker', '--url', 'http://127.0.0.1:9/mcp', '--header', 'Authorization=Bearer-xyz', '--json'], home);
    expect(remote.code, remote.stderr).toBe(0);
    // A header's value may be a key: --json names it only.
    expect(JSON.parse(remote.stdout)).toEqual({ name: 'tracker', server: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: '(set)' } } });
    const settings = JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8'));
    expect(settings.mcp.servers).toEqual({
      files: { command: FILESYSTEM_SERVER, args: ['.'], env: { LOG_LEVEL: 'quiet' } },
      tracker: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer-xyz' } },
    });

    // The filesystem server starts confined and lists its tools; nothing answers on port 9.
    const list = await agents(['mcp', 'list'], home);
    expect(list.code).toBe(1);
    expect(list.stdout).toMatch(/^files: .*mcp-server-filesystem \. \(env: LOG_LEVEL\)\n {2}starts; \d+ tools; protocol 2025-(06-18|11-25)\n/);
    expect(list.stdout).toMatch(/^ {2}files\.write_file: /m);
    expect(list.stdout).toMatch(/^ {2}files\.list_directory \(read-only\): /m);
    expect(list.stdout).toMatch(/^tracker: http:\/\/127\.0\.0\.1:9\/mcp \(headers: Authorization\)\n {2}does not start: MCP server "tracker": did not start: /m);
    const json = JSON.parse((await agents(['mcp', 'list', '--json'], home)).stdout) as { name: string; ok: boolean; tools: { name: string }[] }[];
    expect(json.map((s) => [s.name, s.ok])).toEqual([
      ['files', true],
      ['tracker', false],
    ]);
    expect(json[0].tools.map((t) => t.name)).toContain('write_file');

    expect((await agents(['mcp', 'remove', 'tracker'], home)).stdout).toBe('MCP server tracker removed\n');
    // Every subcommand takes --json, as `agents mcp --json` promises.
    expect(JSON.parse((await agents(['mcp', 'add', 'tracker', '--url', 'http://127.0.0.1:9/mcp', '--json'], home)).stdout)).toMatchObject({ name: 'tracker' });
    const removed = await agents(['mcp', 'remove', 'tracker', '--json'], home);
    expect([removed.code, JSON.parse(removed.stdout)]).toEqual([0, { name: 'tracker', removed: true }]);
    expect(Object.keys(JSON.parse(readFileSync(join(home, 'settings.json'), 'utf8')).mcp.servers)).toEqual(['files']);
    const gone = await agents(['mcp', 'remove', 'tracker'], home);
    expect([gone.code, gone.stderr]).toEqual([2, 'error: name: no MCP server "tracker"; the servers are files\n']);
  });

  it('refuses a bad entry with one line naming what is wrong', LONG, async () => {
    const { home } = sandboxWorkspace();
    const cases: [string[], string][] = [
      [['mcp', 'add', 'my server', '--', 'x'], 'error: name: must be a simple identifier (a letter, then letters, digits, _ or -; at most 40)\n'],
      [['mcp', 'add', 'shell', '--', 'x'], "error: name: must not be file or shell (the built-in tools' names)\n"],
      [['mcp', 'add', 'files'], 'error: command: give the command after -- (agents mcp add NAME -- COMMAND [ARGS...]) or --url URL\n'],
      [['mcp', 'add', 'files', '--url', 'http://x', '--', 'cmd'], 'error: command: give either a command after -- or --url, not both\n'],
      [['mcp', 'add', 'files', '--env', 'NOVALUE', '--', 'cmd'], 'error: --env: "NOVALUE" is not KEY=VALUE\n'],
      [['mcp', 'add', 'files', '--url', 'ftp://x'], 'error: mcp.servers.files.url: must be an http:// or https:// URL\n'],
    ];
    for (const [args, line] of cases) {
      const result = await agents(args, home);
      expect([result.code, result.stderr], args.join(' ')).toEqual([2, line]);
    }
    expect(existsSync(join(home, 'settings.json'))).toBe(false);
    // The same checks hold for a plan file's servers.
    const { examples } = sandboxWorkspace();
    const plan = agentPlan(examples, 'mcp:\n  servers:\n    "my files": { command: x }\n');
    const create = await agents(['plan', 'create', plan], home, env);
    expect([create.code, create.stderr]).toEqual([2, 'error: mcp.servers.my files: the name must be a simple identifier (a letter, then letters, digits, _ or -; at most 40)\n']);
    writeFileSync(plan, 'name: scripted\ndefinitionOfDone: Nothing\nmcp:\n  servers:\n    files: { command: x }\n');
    const scripted = await agents(['plan', 'create', plan], home, env);
    expect([scripted.code, scripted.stderr]).toEqual([2, 'error: mcp: only an agent plan (agent: true) calls MCP tools\n']);
  });
});

describe("an MCP server's secrets", () => {
  const URL_WITH_SECRETS = 'http://u:PASSWD@127.0.0.1:9/s/PATHTOKEN/mcp?k=QSECRET';
  const SECRETS = ['PASSWD', 'QSECRET', 'PATHTOKEN', 'ARGSECRET'];
  const SHOWN_URL = 'http://(set)@127.0.0.1:9/s/(hidden)/mcp?k=(set)';

  it("are in no output of a plan whose server does not start: not the URL's user, query or path token, nor a --token", LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    server.respondWith(mcpAgent);
    const servers = `mcp:\n  servers:\n    tracker: { url: "${URL_WITH_SECRETS}" }\n    local: { command: /bin/sh, args: ["-c", "exit 1", "--token", "ARGSECRET"] }\n`;
    const id = (await agents(['plan', 'create', agentPlan(examples, `automationProfile: full-auto\n${servers}`)], home, env)).stdout.trim();
    // Streamed: every event of the run, the failure's among them.
    const run = await agents(['plan', 'run', id, '--stream', '--json'], home, env);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('MCP server \\"tracker\\": did not start');
    const outputs = [run];
    for (const args of [['plan', 'show', id], ['plan', 'show', id, '--json'], ['plan', 'errors', id], ['plan', 'errors', id, '--json'], ['plan', 'tree', id], ['plan', 'tree', id, '--json'], ['plan', 'list', '--json']]) {
      outputs.push(await agents(args, home, env));
    }
    for (const [i, output] of outputs.entries()) for (const secret of SECRETS) expect(`${output.stdout}${output.stderr}`, `output ${i} shows ${secret}`).not.toContain(secret);
    const failure = JSON.parse(outputs[4].stdout).errors.at(-1);
    expect(failure.message).toMatch(/^MCP server "tracker": did not start: /);
    const shown = JSON.parse(outputs[2].stdout).mcp.servers;
    expect(shown).toEqual({ tracker: { url: SHOWN_URL, headers: {} }, local: { command: '/bin/sh', args: ['-c', 'exit 1', '--token', '(set)'], env: {} } });
  });

  it('are in no output of agents mcp, for a server in the settings', LONG, async () => {
    const { home } = sandboxWorkspace();
    const outputs = [await agents(['mcp', 'add', 'tracker', '--url', URL_WITH_SECRETS], home), await agents(['mcp', 'add', 'local', '--json', '--', '/bin/sh', '-c', 'exit 1', '--token', 'ARGSECRET'], home)];
    outputs.push(await agents(['mcp', 'list'], home), await agents(['mcp', 'list', '--json'], home));
    for (const output of outputs) for (const secret of SECRETS) expect(`${output.stdout}${output.stderr}`).not.toContain(secret);
    expect(outputs[0].stdout).toBe(`MCP server tracker added: ${SHOWN_URL}\n`);
    expect(outputs[2].stdout).toContain(`tracker: ${SHOWN_URL}\n  does not start: MCP server "tracker": did not start: `);
  });

  it('a server whose script is straight in the home folder cannot read what the home folder keeps', LONG, async () => {
    const { home } = sandboxWorkspace();
    const operatorHome = mkdtempSync(join(tmpdir(), 'agents-operator-home-'));
    mkdirSync(join(operatorHome, '.ssh'), { mode: 0o700 });
    writeFileSync(join(operatorHome, '.ssh', 'id_rsa'), 'PRIVATE KEY OF THE OPERATOR\n', { mode: 0o600 });
    copyFileSync(join(ROOT, 'tests/support/mcp-bare-server.mjs'), join(operatorHome, 'server.mjs'));
    const asOperator = { HOME: operatorHome };
    // As a shell would expand `agents mcp add leak --env PROBE_FILE=~/.ssh/id_rsa -- node ~/server.mjs`.
    const added = await agents(['mcp', 'add', 'leak', '--env', `PROBE_FILE=${join(operatorHome, '.ssh', 'id_rsa')}`, '--', 'node', join(operatorHome, 'server.mjs')], home, asOperator);
    expect(added.code, added.stderr).toBe(0);
    const list = await agents(['mcp', 'list'], home, asOperator);
    expect(list.stdout).not.toContain('PRIVATE KEY');
    expect([list.code, list.stdout]).toEqual([0, expect.stringContaining('  leak.probe: unreadable: ENOENT')]);
  });
});

describe('an agent plan that calls the tools of a real MCP server, run confined over the sandbox', () => {
  it('asks before each call, runs it once approved, and records it in the tree, the log and the changeset', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    expect((await agents(['mcp', 'add', 'files', '--', FILESYSTEM_SERVER, '.'], home)).code).toBe(0);
    server.respondWith(mcpAgent);
    // list_directory is allowed by name; write_file is not, so it waits.
    const file = agentPlan(examples, 'automationProfile:\n  base: supervised\n  allow: ["files.list_directory"]\n');
    const id = (await agents(['plan', 'create', file], home, env)).stdout.trim();

    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code, run.stderr).toBe(3); // the proposed tree waits
    const tree = await agents(['plan', 'approve', id], home, env);
    expect(tree.code, tree.stderr).toBe(3); // now the MCP call waits
    expect(tree.stderr).toContain('files.write_file wants to run in step "Write NOTES.md through the files server"');
    expect(tree.stderr).toMatch(/^ {2}MCP server files, tool write_file: Create a new file/m);
    // The model was offered the server's tools beside the sandbox's.
    const offered = (server.requests.at(-1)?.tools ?? []).map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['file_write', 'shell_run', 'files_write_file', 'files_list_directory', 'finish_step']));

    const approvals = JSON.parse((await agents(['plan', 'approvals', id, '--json'], home, env)).stdout);
    expect(approvals.pending).toMatchObject({
      kind: 'tool',
      tool: 'files.write_file',
      args: { path: 'NOTES.md', content: NOTES },
      mcp: { server: 'files', tool: 'write_file', readOnly: false, description: expect.stringContaining('Create a new file') },
    });
    expect(existsSync(join(home, 'sandboxes', id, 'NOTES.md'))).toBe(false);

    const approve = await agents(['plan', 'approve', id, '--stream'], home, env);
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toMatch(/^files\.write_file ok in /m);
    expect(approve.stdout).toMatch(/^files\.list_directory ok in /m);
    // The listing the model got back is the server's, of the sandbox.
    expect(lastToolResult(server.requests.at(-1))).toContain('[FILE] NOTES.md');

    const ran = JSON.parse((await agents(['plan', 'tree', id, '--json'], home, env)).stdout) as { invocations: { tool: string; ok: boolean; confinement?: string | null }[] };
    expect(ran.invocations.map((i) => [i.tool, i.ok, i.confinement])).toEqual([
      ['files.write_file', true, 'bwrap-nobody'],
      ['files.list_directory', true, 'bwrap-nobody'],
    ]);
    const diff = await agents(['plan', 'diff', id], home, env);
    expect(diff.stdout).toContain('CREATE NOTES.md');
    expect(diff.stdout).toContain('+Written through an MCP server.');
    expect(readFileSync(join(home, 'sandboxes', id, 'NOTES.md'), 'utf8')).toBe(NOTES);
  });

  it('fails the step with `rejected` when the operator rejects the call, and the server writes nothing', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    server.respondWith(mcpAgent);
    // Declared in the plan file this time; trusted asks for no sandbox tool, yet an MCP tool still waits.
    const file = agentPlan(examples, `automationProfile: trusted\nmcp:\n  servers:\n    files: { command: ${JSON.stringify(FILESYSTEM_SERVER)}, args: ["."] }\n`);
    const id = (await agents(['plan', 'create', file], home, env)).stdout.trim();
    expect((await agents(['plan', 'run', id], home, env)).code).toBe(3); // the proposed tree waits
    const run = await agents(['plan', 'approve', id], home, env);
    expect(run.code, run.stderr).toBe(3);
    const pending = JSON.parse((await agents(['plan', 'approvals', id, '--json'], home, env)).stdout).pending;
    expect(pending).toMatchObject({ tool: 'files.write_file', mcp: { server: 'files', tool: 'write_file' } });

    const reject = await agents(['plan', 'reject', id, '--reason', 'not this file'], home, env);
    expect(reject.code).toBe(1);
    const errors = JSON.parse((await agents(['plan', 'errors', id, '--json'], home, env)).stdout);
    expect(errors.errors.at(-1)).toMatchObject({ category: 'rejected' });
    expect(errors.errors.at(-1).message).toContain('files.write_file: rejected by');
    expect(existsSync(join(home, 'sandboxes', id, 'NOTES.md'))).toBe(false);
  });

  it.each([
    ['a command that does not exist', '/nonexistent/mcp-server', [], 'exec: /nonexistent/mcp-server: not found'],
    ['a server that exits at once', '/bin/sh', ['-c', 'echo cannot open the database >&2; exit 1'], 'it said: cannot open the database'],
  ])('fails the step, naming the server, when it does not start: %s', LONG, async (_what, command, args, said) => {
    const { home, examples } = sandboxWorkspace();
    expect((await agents(['mcp', 'add', 'broken', '--', command, ...args], home)).code).toBe(0);
    server.respondWith(mcpAgent);
    const id = (await agents(['plan', 'create', agentPlan(examples, 'automationProfile: full-auto\n')], home, env)).stdout.trim();
    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('MCP server "broken": did not start');
    const errors = JSON.parse((await agents(['plan', 'errors', id, '--json'], home, env)).stdout);
    const failure = errors.errors.at(-1);
    expect(failure).toMatchObject({ category: 'tool' });
    expect(failure.message).toContain(said);
    expect(failure.hint).toContain('The MCP server "broken" failed. Check it with `agents mcp list`');
    // The step failed before the model was asked anything.
    expect(server.requests.filter((r) => !isStrategize(r))).toHaveLength(0);
  });
});
