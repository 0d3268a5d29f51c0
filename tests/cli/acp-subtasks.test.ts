import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { qwenAddArgs, TEST_AGENTS, testAgentsInstalled } from '../support/acp-agents';
import { CLAUDE_TASK_CALLS, claudeWithTasksAddArgs, oneStep, type StepCall } from '../support/acp-subtask-script';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, sandboxWorkspace } from './cli-harness';

const server = new ScriptedModelServer();
// This machine sets IS_SANDBOX=yes, which makes Claude Code's adapter skip permissions as root (TOOLCHAIN.md).
const env = { IS_SANDBOX: '' };
beforeAll(() => server.start());
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = { timeout: 240_000 };

interface Subtask {
  content: string;
  status: string;
  priority: string;
}
interface Node {
  type: string;
  description: string;
  subtasks?: Subtask[];
  children: Node[];
}

function planFor(examples: string, agent: string): string {
  const project = join(examples, 'acp-project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'README.md'), '# A project\n');
  const file = join(examples, `acp-${agent}.yaml`);
  writeFileSync(file, [`name: Notes by ${agent}`, 'project: ./acp-project', 'automationProfile: trusted', `agent: { acp: ${agent} }`, 'definitionOfDone:', '  - Write NOTES.md (notes)', ''].join('\n'));
  return file;
}

async function stepOf(id: string, home: string, runEnv: Record<string, string> = env): Promise<Node> {
  const tree = await agents(['plan', 'tree', id, '--json'], home, runEnv);
  expect(tree.code, tree.stderr).toBe(0);
  const root = (JSON.parse(tree.stdout) as { root: Node }).root;
  return root.children.find((n) => n.type === 'strategy_choice')!;
}

/**
 * The same journey for each agent: its model lists three sub-tasks through the agent's own todo
 * tool, writes NOTES.md, marks two done; the step shows them (`plan tree`, `--json`, the event
 * stream), and a rewind to before the step clears them.
 */
async function journey(agent: string, add: (home: string) => string[] | null, calls: StepCall[], before: (home: string, id: string) => void = () => {}, runEnv: Record<string, string> = env): Promise<void> {
  const { home, examples } = sandboxWorkspace();
  const args = add(home);
  if (args) {
    const added = await agents(args, home, runEnv);
    expect(added.code, added.stderr).toBe(0);
  }
  server.respondWith(oneStep(calls));
  const id = (await agents(['plan', 'create', planFor(examples, agent)], home, runEnv)).stdout.trim();
  before(home, id);
  const run = await agents(['plan', 'run', id, '--stream'], home, runEnv);
  expect(run.code, run.stderr).toBe(0);
  // Live: the stream says what the agent listed, as it listed it.
  expect(run.stdout).toContain('Write NOTES.md (notes): sub-tasks 0/3 done');
  expect(run.stdout).toContain('Write NOTES.md (notes): sub-tasks 2/3 done');

  const step = await stepOf(id, home, runEnv);
  expect(step.subtasks?.map((s) => [s.status, s.priority])).toEqual([
    ['completed', 'medium'],
    ['completed', 'medium'],
    ['pending', 'medium'],
  ]);
  expect(step.subtasks?.[1].content).toMatch(/NOTES\.md/);
  const text = await agents(['plan', 'tree', id], home, runEnv);
  expect(text.stdout).toMatch(/✓ Write NOTES\.md \(notes\)\n\s+sub-tasks 2\/3:\n\s+● Read the README\n\s+● .*NOTES\.md\n\s+○ Check the notes/);

  const rewound = await agents(['plan', 'rewind', id, '--to-step', '1'], home, runEnv);
  expect(rewound.code, rewound.stderr).toBe(0);
  expect((await stepOf(id, home, runEnv)).subtasks).toBeUndefined();
  expect((await agents(['plan', 'tree', id], home, runEnv)).stdout).not.toContain('sub-tasks');
}

describe.skipIf(!testAgentsInstalled)("a coding agent's plan updates are the step's sub-tasks", () => {
  const todos = (statuses: string[]): StepCall => (_dir, tools) => {
    const args = { todos: ['Read the README', 'Write NOTES.md', 'Check the notes'].map((content, i) => ({ id: String(i + 1), content, status: statuses[i] })) };
    // Called directly where the agent declares it, else through its deferred-tool bridge.
    return tools.includes('todo_write') ? { name: 'todo_write', args } : { name: 'tool_call', args: { name: 'todo_write', arguments: args } };
  };
  const QWEN_TODO_CALLS: StepCall[] = [
    (dir, tools) => (tools.includes('todo_write') ? { name: 'read_file', args: { absolute_path: join(dir, 'README.md') } } : { name: 'tool_search', args: { query: 'select:todo_write' } }),
    todos(['in_progress', 'pending', 'pending']),
    (dir) => ({ name: 'write_file', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes\n' } }),
    todos(['completed', 'completed', 'pending']),
  ];

  it('Qwen Code: its todo_write lists them', LONG, async () => {
    // Qwen Code offers its todo tool where its settings turn it on: here the settings in its home for the plan.
    const settings = (home: string, id: string) => {
      mkdirSync(join(home, 'agent-homes', id, '.qwen'), { recursive: true });
      writeFileSync(join(home, 'agent-homes', id, '.qwen', 'settings.json'), JSON.stringify({ tools: { todoWrite: { enabled: true } } }));
    };
    await journey('qwen-test', () => qwenAddArgs('qwen-test', server), QWEN_TODO_CALLS, settings);
  });

  it('the built-in qwen: its home for the plan is set up so that it keeps its todo list, without the operator saying so', LONG, async () => {
    // The built-in found in the folder acp.folder names, its provider from the environment as an operator's would be.
    const builtin = (home: string) => {
      mkdirSync(home, { recursive: true });
      writeFileSync(join(home, 'settings.json'), JSON.stringify({ acp: { agents: {}, folder: join(TEST_AGENTS, '.bin') } }));
      return null;
    };
    const providerEnv = { ...env, OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'scripted', OPENAI_MODEL: 'qwen3-coder' };
    await journey('qwen', builtin, QWEN_TODO_CALLS, () => {}, providerEnv);
  });

  it('Claude Code: its TaskCreate and TaskUpdate (loaded through ToolSearch) list them', LONG, async () => {
    await journey('claude-test', () => claudeWithTasksAddArgs('claude-test', server), CLAUDE_TASK_CALLS);
  });
});
