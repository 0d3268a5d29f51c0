import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { StreamEventSchema, type StreamEvent } from '../../shared/events';
import { BIN, createPlan, sandboxWorkspace } from './cli-harness';

it('agents plan run --step pauses before each decision: Enter steps one, c continues to the end', async () => {
  const { home, examples } = sandboxWorkspace();
  const planId = await createPlan(join(examples, 'add-license.yaml'), home);
  const child = spawn(process.execPath, [BIN, 'plan', 'run', planId, '--step', '--stream', '--json'], { env: { ...process.env, AGENTS_HOME: home } });
  const events: StreamEvent[] = [];
  let buffer = '';
  let pauses = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const line of lines) {
      const event = StreamEventSchema.parse(JSON.parse(line));
      events.push(event);
      if (event.type !== 'paused') continue;
      pauses += 1;
      // The operator steps at the first pause and continues at the second.
      child.stdin.write(pauses === 1 ? '\n' : 'c\n');
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  const sequence = events.filter((e) => e.type === 'paused' || e.type === 'runtime_execute_step').map((e) => `${e.type}:${e.data.index}`);
  expect(sequence).toEqual([
    'paused:1',
    'runtime_execute_step:1',
    'paused:2',
    ...[2, 3, 4, 5, 6].map((i) => `runtime_execute_step:${i}`),
  ]);
});
