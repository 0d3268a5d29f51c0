import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agents, sandboxWorkspace } from './cli-harness';

const SCRIPTED_AGENT = join(__dirname, '../support/acp-scripted-agent.mjs');
const env = { IS_SANDBOX: '' };
const LONG = { timeout: 120_000 };

interface Action {
  tool?: { title: string; kind: string; name?: string; rawInput?: Record<string, unknown>; ask?: boolean; write?: { path: string; content: string } };
  plan?: { content: string; status: string; priority: string }[];
  usage?: { used: number; size: number; cost?: { amount: number; currency: string } };
  say?: string;
}

/** `agents acp add NAME` for the scripted agent (tests/support/acp-scripted-agent.mjs) with its turns. */
async function addScripted(home: string, name: string, script: { loadSession?: boolean; steps: Record<string, Action[]> }): Promise<void> {
  const added = await agents(['acp', 'add', name, '--env', `SCRIPTED_AGENT=${JSON.stringify(script)}`, '--', process.execPath, SCRIPTED_AGENT], home, env);
  expect(added.code, added.stderr).toBe(0);
}

function planFor(examples: string, agent: string, steps: string[], profile: string): string {
  const project = join(examples, 'scripted-project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# A project\n');
  const file = join(examples, `scripted-${agent}.yaml`);
  writeFileSync(file, [`name: Work by ${agent}`, 'project: ./scripted-project', `automationProfile: ${profile}`, `agent: { acp: ${agent} }`, 'definitionOfDone:', ...steps.map((s) => `  - ${s}`), ''].join('\n'));
  return file;
}

/** What the agent was told, from its own log in its home for the plan. */
function agentLog(home: string, planId: string): Record<string, unknown>[] {
  const file = join(home, 'agent-homes', planId, 'agent-log.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) : [];
}

async function create(home: string, file: string): Promise<string> {
  const created = await agents(['plan', 'create', file], home, env);
  expect(created.code, created.stderr).toBe(0);
  return created.stdout.trim();
}

const command = (n: string): Action => ({ tool: { title: `echo ${n}`, kind: 'execute', name: 'Bash', rawInput: { command: `echo ${n} > ${n}.txt` }, ask: true, write: { path: `${n}.txt`, content: `${n}\n` } } });

describe('a coding agent\'s permission requests answered by the operator and the profile', () => {
  it('Approve answers with the agent\'s allow-once option, Approve all with its allow-always option (so it stops asking for that kind)', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    await addScripted(home, 'scripted', { steps: { stamp: [command('one'), command('two'), command('three')] } });
    const id = await create(home, planFor(examples, 'scripted', ['Stamp three files (stamp)'], 'supervised'));

    expect((await agents(['plan', 'run', id], home, env)).code).toBe(3);
    expect((await agents(['plan', 'approve', id], home, env)).code).toBe(3);
    const approvedAll = await agents(['plan', 'approve', id, '--all'], home, env);
    expect(approvedAll.code, approvedAll.stderr).toBe(0);

    const answers = agentLog(home, id).filter((e) => e.permission).map((e) => `${String(e.permission)}: ${String(e.answer)}`);
    expect(answers).toEqual([
      // Waiting for the operator ends the agent's turn.
      'echo one: cancelled',
      'echo one: allow',
      'echo two: cancelled',
      'echo two: always',
      'echo three: not asked: allowed always',
    ]);
    const sandbox = join(home, 'sandboxes', id);
    expect(['one', 'two', 'three'].map((n) => readFileSync(join(sandbox, `${n}.txt`), 'utf8'))).toEqual(['one\n', 'two\n', 'three\n']);
  });

  it('a profile names the agent\'s tools as NAME.TOOL and its kinds as NAME.KIND in allow: and approve:', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    await addScripted(home, 'scripted', {
      steps: { work: [command('one'), { tool: { title: 'Write NOTES.md', kind: 'edit', name: 'Write', rawInput: { file_path: 'NOTES.md', content: '# Notes\n' }, ask: true, write: { path: 'NOTES.md', content: '# Notes\n' } } }] },
    });
    // Supervised holds commands and not edits; this profile lets the agent's Bash through and holds its edits.
    const profile = '{ base: supervised, allow: [scripted.Bash], approve: [shell.run, file.delete, scripted.edit] }';
    const id = await create(home, planFor(examples, 'scripted', ['Do the work (work)'], profile));
    expect((await agents(['plan', 'run', id], home, env)).code).toBe(3);
    const listed = await agents(['plan', 'approvals', id, '--json'], home, env);
    const pending = (JSON.parse(listed.stdout) as { pending: { tool: string; args: Record<string, unknown> } }).pending;
    expect(pending.tool).toBe('file.write');
    expect(pending.args).toMatchObject({ agent: 'scripted', kind: 'edit', path: 'NOTES.md' });
    expect((await agents(['plan', 'approve', id], home, env)).code).toBe(0);
    const answers = agentLog(home, id).filter((e) => e.permission).map((e) => `${String(e.permission)}: ${String(e.answer)}`);
    expect(answers).toEqual(['echo one: allow', 'Write NOTES.md: cancelled', 'Write NOTES.md: allow']);
  });
});

describe('a machine without the plan\'s agent', () => {
  it('refuses to run the plan in one line naming the agent, and runs it once the agent is added there', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const script = { steps: { notes: [{ tool: { title: 'Write NOTES.md', kind: 'edit', write: { path: 'NOTES.md', content: '# Notes\n' } } }] } };
    await addScripted(home, 'scripted', script);
    const id = await create(home, planFor(examples, 'scripted', ['Write the notes (notes)'], 'trusted'));
    // As on a worker whose settings lack the agent the plan was made with.
    expect((await agents(['acp', 'remove', 'scripted'], home, env)).code).toBe(0);
    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code).not.toBe(0);
    expect(run.stderr.split('\n')[0]).toContain('this plan runs the agent "scripted", which this machine does not have');
    expect(run.stderr).toContain('hint: Add the agent "scripted" on this machine');
    expect(existsSync(join(home, 'sandboxes', id, 'NOTES.md'))).toBe(false);

    await addScripted(home, 'scripted', script);
    const again = await agents(['plan', 'retry', id], home, env);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(home, 'sandboxes', id, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
  });
});

describe('the plan\'s session resumed (session/load) where the agent offers it', () => {
  it('after the agent was ended to wait for the operator, the answer goes on in the same session, loaded; an agent without loadSession gets a new one', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const steps = { notes: [{ tool: { title: 'Write NOTES.md', kind: 'edit', write: { path: 'NOTES.md', content: '# Notes\n' } } }], stamp: [command('one')] };
    await addScripted(home, 'loader', { loadSession: true, steps });
    await addScripted(home, 'plain', { steps });
    const ids: Record<string, string> = {};
    for (const name of ['loader', 'plain']) {
      ids[name] = await create(home, planFor(examples, name, ['Write the notes (notes)', 'Stamp the project (stamp)'], 'supervised'));
      expect((await agents(['plan', 'run', ids[name]], home, env)).code).toBe(3);
      const approved = await agents(['plan', 'approve', ids[name]], home, env);
      expect(approved.code, approved.stderr).toBe(0);
    }
    const loader = agentLog(home, ids.loader);
    const first = loader.find((e) => e.newSession)?.newSession;
    expect(loader.filter((e) => e.newSession)).toHaveLength(1);
    // The session it kept: both steps' prompts and answers replayed.
    expect(loader.filter((e) => e.loadSession)).toEqual([{ loadSession: first, turns: 4 }]);
    expect(new Set(loader.filter((e) => e.prompt).map((e) => e.prompt))).toEqual(new Set([first]));
    const plain = agentLog(home, ids.plain);
    expect(plain.filter((e) => e.newSession)).toHaveLength(2);
    expect(plain.filter((e) => e.loadSession || e.loadRefused)).toEqual([]);
  });
});
