import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { qwenAddArgs, testAgentsInstalled } from '../support/acp-agents';
import { byTurn, claudeWithTasksAddArgs, type StepCall } from '../support/acp-subtask-script';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, sandboxWorkspace } from './cli-harness';

const server = new ScriptedModelServer();
// This machine sets IS_SANDBOX=yes, which makes Claude Code's adapter skip permissions as root (TOOLCHAIN.md).
const env = { IS_SANDBOX: '' };
beforeAll(() => server.start());
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = { timeout: 240_000 };

const write = (file: string, content: string, tool: string): StepCall => (dir) => ({ name: tool, args: { file_path: join(dir, file), content } });

function planFor(examples: string, agent: string): string {
  const project = join(examples, 'acp-project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# A project\n');
  const file = join(examples, `acp-${agent}.yaml`);
  writeFileSync(
    file,
    [`name: Proposed by ${agent}`, 'project: ./acp-project', 'automationProfile: supervised', `agent: { acp: ${agent}, propose: true }`, 'definitionOfDone: The project has notes and a to-do list', ''].join('\n'),
  );
  return file;
}

interface Node {
  type: string;
  status: string;
  description: string;
  children: Node[];
}

/**
 * The agent, asked to propose, lists two steps in its plan and tries to write a file in the same
 * turn: the write is refused, the proposal waits for the operator (exit 3) with the two steps, and
 * once approved each runs as its own turn.
 */
async function journey(agent: string, add: string[], propose: StepCall[], tool: string, before: (home: string, id: string) => void = () => {}): Promise<void> {
  const { home, examples } = sandboxWorkspace();
  const added = await agents(add, home, env);
  expect(added.code, added.stderr).toBe(0);
  const script = byTurn([
    [/Propose the steps of this plan/, [...propose, write('SNEAK.md', 'written while planning\n', tool)]],
    [/Your step \(\d+ of \d+\): Write NOTES/, [write('NOTES.md', '# Notes\n', tool)]],
    [/Your step \(\d+ of \d+\): Write TODO/, [write('TODO.md', '- one thing\n', tool)]],
  ]);
  server.respondWith(script);
  const id = (await agents(['plan', 'create', planFor(examples, agent)], home, env)).stdout.trim();
  before(home, id);

  const run = await agents(['plan', 'run', id], home, env);
  expect(run.code, run.stdout + run.stderr).toBe(3);
  expect(script.prompts[0]).toContain('read-only planning turn');
  // The planning turn's tokens count toward the plan's usage, under its strategize phase.
  const waiting = JSON.parse((await agents(['plan', 'show', id, '--json'], home, env)).stdout) as { usage?: { outputTokens: number; steps: { phase: string; decisionId: string | null; outputTokens: number; turns: number }[] } };
  const planningUsage = waiting.usage?.steps.filter((s) => s.phase === 'strategize');
  expect(planningUsage).toEqual([expect.objectContaining({ decisionId: null, turns: 1 })]);
  expect(planningUsage?.[0]?.outputTokens).toBeGreaterThan(0);
  expect(waiting.usage?.outputTokens).toBe(planningUsage?.[0]?.outputTokens);
  // The agent was in its plan mode: it tells its model so.
  const planning = server.requests.filter((r) => JSON.stringify(r.messages).includes('Propose the steps of this plan'));
  expect(planning.some((r) => /plan mode is active|in plan mode/i.test(JSON.stringify(r.messages)))).toBe(true);
  const sandbox = join(home, 'sandboxes', id);
  // It tried to write while it planned, and was refused.
  const tried = server.requests.some((r) => r.messages.some((m) => m.tool_calls?.some((c) => c.function.arguments.includes('SNEAK.md'))));
  expect(tried).toBe(true);
  expect(existsSync(join(sandbox, 'SNEAK.md'))).toBe(false);

  // Rejected with a reason: the agent is told it and proposes again, and the new proposal waits too.
  const rejected = await agents(['plan', 'reject', id, '--reason', 'keep the to-do list short'], home, env);
  expect(rejected.code, rejected.stdout + rejected.stderr).toBe(3);
  const proposals = script.prompts.filter((p) => p.includes('Propose the steps of this plan'));
  expect(proposals).toHaveLength(2);
  expect(proposals[1]).toContain('rejected your previous proposal');
  expect(proposals[1]).toContain('keep the to-do list short');

  const approvals = JSON.parse((await agents(['plan', 'approvals', id, '--json'], home, env)).stdout) as { pending: { kind: string; description: string; args: { steps: { description: string }[] } } };
  expect(approvals.pending.kind).toBe('plan');
  expect(approvals.pending.description).toBe(`Agent ${agent} proposes 2 steps`);
  expect(approvals.pending.args.steps.map((s) => s.description)).toEqual(['Write NOTES.md with a heading', 'Write TODO.md with one item']);
  const tree = JSON.parse((await agents(['plan', 'tree', id, '--json'], home, env)).stdout) as { root: Node };
  const nodes = (n: Node): Node[] => [n, ...n.children.flatMap(nodes)];
  expect(nodes(tree.root).filter((n) => n.type === 'strategy_choice' && n.status !== 'skipped').map((n) => [n.description, n.status])).toEqual([
    ['Write NOTES.md with a heading', 'pending'],
    ['Write TODO.md with one item', 'pending'],
  ]);

  const approved = await agents(['plan', 'approve', id], home, env);
  expect(approved.code, approved.stdout + approved.stderr).toBe(0);
  expect(readFileSync(join(sandbox, 'NOTES.md'), 'utf8')).toBe('# Notes\n');
  expect(readFileSync(join(sandbox, 'TODO.md'), 'utf8')).toBe('- one thing\n');
  expect(script.prompts.some((p) => /Your step \(\d+ of \d+\): Write TODO\.md with one item/.test(p))).toBe(true);
  const shown = await agents(['plan', 'show', id], home, env);
  expect(shown.stdout).toContain('Ready to apply');
}

describe.skipIf(!testAgentsInstalled)('agent: { acp: NAME, propose: true }: the agent proposes the steps in a read-only turn, and they wait for approval', () => {
  it('Claude Code: in its plan mode, its tasks are the steps', LONG, async () => {
    const task = (subject: string): StepCall => () => ({ name: 'TaskCreate', args: { subject, description: subject, activeForm: subject } });
    await journey(
      'claude-test',
      claudeWithTasksAddArgs('claude-test', server),
      [() => ({ name: 'ToolSearch', args: { query: 'select:TaskCreate' } }), task('Write NOTES.md with a heading'), task('Write TODO.md with one item')],
      'Write',
    );
  });

  it('Qwen Code: in its plan mode, its todo list is the steps', LONG, async () => {
    const todos: StepCall = (_dir, tools) => {
      const args = { todos: ['Write NOTES.md with a heading', 'Write TODO.md with one item'].map((content, i) => ({ id: String(i + 1), content, status: 'pending' })) };
      return tools.includes('todo_write') ? { name: 'todo_write', args } : { name: 'tool_call', args: { name: 'todo_write', arguments: args } };
    };
    const search: StepCall = (dir, tools) => (tools.includes('todo_write') ? { name: 'read_file', args: { absolute_path: join(dir, 'README.md') } } : { name: 'tool_search', args: { query: 'select:todo_write' } });
    // Qwen Code offers its todo tool where its settings turn it on: the settings in its home for the plan.
    const settings = (home: string, id: string) => {
      mkdirSync(join(home, 'agent-homes', id, '.qwen'), { recursive: true });
      writeFileSync(join(home, 'agent-homes', id, '.qwen', 'settings.json'), JSON.stringify({ tools: { todoWrite: { enabled: true } } }));
    };
    await journey('qwen-test', qwenAddArgs('qwen-test', server), [search, todos], 'write_file', settings);
  });
});
