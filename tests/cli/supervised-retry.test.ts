import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agents, agentsJson, createPlan, editYaml, sandboxWorkspace } from './cli-harness';

describe('agents CLI: automatic retry of a call the operator approved', () => {
  it('asks once for a supervised shell.run that exits 75 twice, then completes; errors lists each failure once', async () => {
    const { home, examples } = sandboxWorkspace();
    const file = join(examples, 'flaky-network.yaml');
    // Only shell.run waits, so the one approval asked for is the flaky command's.
    editYaml(file, (t) => t.replace('{ base: trusted, autoRetryTransient: 3 }', '{ base: supervised, approve: [shell.run] }'));
    const id = await createPlan(file, home);

    const run = await agents(['plan', 'run', id], home);
    expect(run.code, run.stderr).toBe(3);
    const approve = await agents(['plan', 'approve', id], home);
    expect(approve.code, approve.stderr).toBe(0);

    const approvals = await agentsJson<{ approvals: unknown[] }>(['plan', 'approvals', id], home);
    expect(approvals.approvals).toHaveLength(1);
    const plan = await agentsJson<{ phase: string; processingState: string }>(['plan', 'show', id], home);
    expect(plan).toMatchObject({ phase: 'apply', processingState: 'queued' });

    const errors = await agents(['plan', 'errors', id], home);
    expect(errors.stdout.match(/^ {2}attempt \d+/gm)).toEqual(['  attempt 1', '  attempt 2']);
    expect(errors.stdout.match(/automatic retries: \d of 3/g)).toEqual(['automatic retries: 1 of 3', 'automatic retries: 2 of 3']);
  });
});
