import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../shared/domain';
import { StreamEventSchema } from '../../shared/events';
import { agents, agentsJson, createPlan, sandboxWorkspace, startAgents } from './cli-harness';

/**
 * A step that is not safe to run twice: it appends a line, then works a while. `held`: the plan is
 * supervised and the step does both in one shell call, which waits for the operator.
 */
function appendingPlan(dir: string, held = false): string {
  const file = join(dir, held ? 'held-append.yaml' : 'append.yaml');
  const calls = held
    ? ['      - { tool: shell.run, args: { command: "echo appended >> log.txt && sleep 1.5" } }']
    : ['      - { tool: shell.run, args: { command: "echo appended >> log.txt" } }', '      - { tool: shell.run, args: { command: "sleep 1.5" } }'];
  writeFileSync(
    file,
    [
      `name: ${held ? 'held-append' : 'append'}`,
      'project: ./demo-project',
      ...(held ? ['automationProfile: supervised'] : []),
      'definitionOfDone:',
      '  - step: Note the start',
      '    tools:',
      '      - { tool: file.write, args: { path: "notes.txt", content: "notes\\n" } }',
      '  - step: Append to the log, then work',
      '    tools:',
      ...calls,
    ].join('\n') + '\n',
  );
  return file;
}

type Node = { description: string; type: string; children?: Node[] };
const flatten = (node: Node): Node[] => [node, ...(node.children ?? []).flatMap(flatten)];

describe('a run killed in a step that appends to a file, then retried', () => {
  it("goes back to the step's checkpoint first: the step runs on the tree it first ran on, and the file has one line", async () => {
    const { home, examples } = sandboxWorkspace();
    const planId = await createPlan(appendingPlan(examples), home);
    // SIGKILLed once the append is recorded, while the step still works.
    await new Promise<void>((resolve) => {
      const child = startAgents(['plan', 'run', planId, '--stream', '--json'], home);
      let buffer = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split('\n');
        buffer = lines.pop() ?? '';
        for (const line of lines) {
          const event = StreamEventSchema.parse(JSON.parse(line));
          if (event.type === 'change_recorded' && event.data.entry.path === 'log.txt') child.kill('SIGKILL');
        }
      });
      child.on('close', () => resolve());
    });
    const interrupted = PlanSchema.parse(await agentsJson(['plan', 'show', planId], home));
    expect(interrupted.errorDetails).toMatchObject({ category: 'interrupted' });
    const sandbox = interrupted.sandboxRefs[0]!;
    expect(readFileSync(join(sandbox, 'log.txt'), 'utf8')).toBe('appended\n');

    const retry = await agents(['plan', 'retry', planId], home);
    expect(retry.code).toBe(0);
    expect(PlanSchema.parse(await agentsJson(['plan', 'show', planId], home))).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(readFileSync(join(sandbox, 'log.txt'), 'utf8')).toBe('appended\n');
    // The killed attempt's change is history (rewound); nothing is taken for the operator's edit.
    const diff = await agentsJson<{ entries: { path: string; origin: string; rewound: boolean }[] }>(['plan', 'diff', planId], home);
    expect(diff.entries.filter((e) => e.origin === 'operator')).toEqual([]);
    const tree = await agentsJson<{ root: Node }>(['plan', 'tree', planId], home);
    expect(flatten(tree.root).map((n) => n.description)).toContainEqual(expect.stringMatching(/^Rewound to before step 2 \(from step 2\)/));
  }, 60_000);

  it('an approved call its step runs again after the restore is not asked about again: the answer holds for the step it was given to', async () => {
    const { home, examples } = sandboxWorkspace();
    const planId = await createPlan(appendingPlan(examples, true), home);
    expect((await agents(['plan', 'run', planId], home)).code).toBe(3);
    const sandbox = PlanSchema.parse(await agentsJson(['plan', 'show', planId], home)).sandboxRefs[0]!;
    // Approved, and SIGKILLed while the approved call works.
    await new Promise<void>((resolve) => {
      const child = startAgents(['plan', 'approve', planId], home);
      const poll = setInterval(() => {
        if (existsSync(join(sandbox, 'log.txt'))) child.kill('SIGKILL');
      }, 20);
      child.on('close', () => {
        clearInterval(poll);
        resolve();
      });
    });
    expect(PlanSchema.parse(await agentsJson(['plan', 'show', planId], home)).errorDetails).toMatchObject({ category: 'interrupted' });

    const retry = await agents(['plan', 'retry', planId], home);
    expect(retry.code, retry.stdout + retry.stderr).toBe(0);
    expect(readFileSync(join(sandbox, 'log.txt'), 'utf8')).toBe('appended\n');
    const { approvals } = await agentsJson<{ approvals: { status: string }[] }>(['plan', 'approvals', planId], home);
    expect(approvals.map((a) => a.status)).toEqual(['approved']);
  }, 60_000);
});
