import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../shared/domain';
import { StreamEventSchema, type StreamEvent } from '../../shared/events';
import { type OtlpRequest } from '../support/otlp-receiver';
import { agents, agentsJson, createPlan, sandboxWorkspace, startAgents } from './cli-harness';

const STEPS = 6;

function slowPlan(dir: string): string {
  const steps = Array.from({ length: STEPS }, (_, i) =>
    [
      `  - step: Write part ${i + 1}`,
      '    tools:',
      `      - { tool: file.write, args: { path: "parts/part-${i + 1}.txt", content: "part ${i + 1}\\n" } }`,
      '      - { tool: shell.run, args: { command: "sleep 0.15" } }',
    ].join('\n'),
  );
  const file = join(dir, 'slow.yaml');
  writeFileSync(file, ['name: slow', 'project: ./demo-project', 'definitionOfDone:', ...steps].join('\n') + '\n');
  return file;
}

/** Runs the plan and SIGKILLs the process once `killAfter` changes have been streamed. */
function runAndKill(planId: string, home: string, killAfter: number): Promise<StreamEvent[]> {
  return new Promise((resolve) => {
    const child = startAgents(['plan', 'run', planId, '--stream', '--json'], home);
    const events: StreamEvent[] = [];
    let buffer = '';
    let changes = 0;
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        const event = StreamEventSchema.parse(JSON.parse(line));
        events.push(event);
        if (event.type === 'change_recorded' && ++changes === killAfter) child.kill('SIGKILL');
      }
    });
    child.on('close', () => resolve(events));
  });
}

describe('crash recovery: a run killed with SIGKILL', () => {
  it.each([1, 3, 5])('after %i change(s): the next start marks it interrupted, keeps every committed change, and retry completes', async (killAfter) => {
    const { home, examples } = sandboxWorkspace();
    const planId = await createPlan(slowPlan(examples), home);
    const streamed = await runAndKill(planId, home, killAfter);
    const streamedEntries = streamed.filter((e) => e.type === 'change_recorded').map((e) => (e.type === 'change_recorded' ? e.data.entry.id : ''));
    expect(streamedEntries.length).toBeGreaterThanOrEqual(killAfter);

    // The next process start finds the plan's owner gone.
    const plan = PlanSchema.parse(await agentsJson(['plan', 'show', planId], home));
    expect(plan.processingState).toBe('errored');
    expect(plan.errorDetails).toMatchObject({ category: 'interrupted', recoveryCommand: `agents plan retry ${planId}` });
    const errors = await agentsJson<{ errors: { category: string }[] }>(['plan', 'errors', planId], home);
    expect(errors.errors.map((e) => e.category)).toEqual(['interrupted']);

    const diff = await agentsJson<{ entries: { id: string; path: string }[] }>(['plan', 'diff', planId], home);
    const stored = diff.entries.map((e) => e.id);
    for (const id of streamedEntries) expect(stored).toContain(id);

    const retry = await agents(['plan', 'retry', planId], home);
    expect(retry.code).toBe(0);
    const done = PlanSchema.parse(await agentsJson(['plan', 'show', planId], home));
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued' });
    const final = await agentsJson<{ entries: { path: string }[] }>(['plan', 'diff', planId], home);
    expect(new Set(final.entries.map((e) => e.path))).toEqual(new Set(Array.from({ length: STEPS }, (_, i) => `parts/part-${i + 1}.txt`)));

    // Its trace is one run, crash and all: the attempt the retry made is a span under the run's, in the same trace.
    const trace = await agentsJson<OtlpRequest>(['plan', 'trace', planId], home);
    const spans = trace.resourceSpans!.flatMap((r) => r.scopeSpans!.flatMap((s) => s.spans!));
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.map((r) => r.name)).toEqual(['invoke_workflow slow']);
    const attempt = spans.find((s) => s.attributes?.some((a) => a.key === 'cleveragents.plan.attempt'));
    expect(attempt).toMatchObject({ name: 'invoke_workflow slow', parentSpanId: roots[0]!.spanId });
    // Nine CLI processes, each starting tsx, and twelve confined shell calls: slow on a busy 2-core machine.
  }, 60_000);
});
