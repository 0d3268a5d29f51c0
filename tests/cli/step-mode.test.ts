import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../shared/domain';
import { agents, agentsJson, BIN, createPlan, sandboxWorkspace } from './cli-harness';

const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
const PROMPT = /paused before step (\d+) of 6: Enter = step, c = continue to the end, Ctrl-C = stop/g;

/** `agents plan run ID --step --stream` on a real terminal (script(1)), answering the n-th pause with keys[n]: one key each, no Enter after it. */
async function stepOnATerminal(keys: string[]): Promise<{ code: number | null; output: string; planId: string; home: string }> {
  const { home, examples } = sandboxWorkspace();
  const planId = await createPlan(join(examples, 'add-license.yaml'), home);
  const child = spawn('script', ['-qec', `${quote(process.execPath)} ${quote(BIN)} plan run ${planId} --step --stream`, '/dev/null'], {
    env: { ...process.env, AGENTS_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    const prompts = [...output.matchAll(PROMPT)].length;
    if (prompts > answered && answered < keys.length) {
      const key = keys[answered];
      answered += 1;
      setTimeout(() => child.stdin.write(key), 300);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output, planId, home };
}

describe('agents plan run --step', () => {
  it('on a terminal pauses before each decision and takes one key, as approvals do: Enter steps one, c continues to the end', async () => {
    const { code, output, planId, home } = await stepOnATerminal(['\r', 'c']);
    expect(code, output).toBe(0);
    // Step 1 waits for Enter; step 2 for c; then the run goes to the end without asking again.
    expect([...output.matchAll(PROMPT)].map((m) => m[1])).toEqual(['1', '2']);
    const order = ['paused before step 1 of 6: Enter', 'checkpoint before step 1', 'paused before step 2 of 6: Enter', 'checkpoint before step 2', 'checkpoint before step 6', 'add-license: Ready to apply'].map((text) => output.indexOf(text));
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])), output).toBe(true);
    expect(PlanSchema.parse(await agentsJson(['plan', 'show', planId], home))).toMatchObject({ phase: 'apply', processingState: 'queued' });
  }, 60_000);

  it('on a terminal stops with Ctrl-C at a pause: the plan is Interrupted and resumable (exit 130)', async () => {
    const { code, output, planId, home } = await stepOnATerminal(['\x03']);
    expect(code, output).toBe(130);
    expect(output).toContain(`resume with: agents plan retry ${planId}`);
    expect((await agentsJson<{ status: string }>(['plan', 'show', planId], home)).status).toBe('Interrupted');
  }, 60_000);

  it('without a terminal is refused in one line before anything runs (exit 2)', async () => {
    const { home, examples } = sandboxWorkspace();
    const planId = await createPlan(join(examples, 'add-license.yaml'), home);
    const run = await agents(['plan', 'run', planId, '--step', '--stream'], home);
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --step: reads a key at each pause from a terminal, and stdin is not one: run it in a terminal, or step through the plan in the console\n',
    });
    expect((await agentsJson<{ status: string }>(['plan', 'show', planId], home)).status).toBe('Ready to run');
  }, 60_000);
});
