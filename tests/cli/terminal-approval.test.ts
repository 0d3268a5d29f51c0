import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PlanSchema } from '../../shared/domain';
import { agentsJson, BIN, createPlan, sandboxWorkspace } from './cli-harness';

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

it('on a terminal, agents plan run takes an approval as a single key, without Enter', async () => {
  const { home, examples } = sandboxWorkspace();
  // supervised: the plan's shell.run waits for approval.
  const id = await createPlan(join(examples, 'add-license.yaml'), home, ['--profile', 'supervised']);
  // script(1) gives the command a real terminal.
  const child = spawn('script', ['-qec', `${quote(process.execPath)} ${quote(BIN)} plan run ${id}`, '/dev/null'], {
    env: { ...process.env, AGENTS_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    // The file.rename call, then the shell.run call: each prompt is answered with one key and no newline.
    if (output.split('approve? [y]es').length - 1 > answered) {
      answered += 1;
      setTimeout(() => child.stdin.write('y'), 300);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(answered).toBe(2);
  expect(code, output).toBe(0);
  expect(output).toContain('add-license: Ready to apply');
  const plan = PlanSchema.parse(await agentsJson(['plan', 'show', id], home));
  expect(plan).toMatchObject({ phase: 'apply', processingState: 'queued' });
}, 60_000);
