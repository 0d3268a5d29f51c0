import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../shared/domain';
import { agents, agentsJson, createPlan, sandboxWorkspace, startAgents } from './cli-harness';

describe('one database, several processes', () => {
  it('CLI runs complete while agents serve holds the same database, with no locking error', async () => {
    const { home, examples } = sandboxWorkspace();
    const serve = startAgents(['serve', '--port', '0'], home);
    await new Promise<void>((resolve, reject) => {
      let out = '';
      serve.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (/token=/.test(out)) resolve();
      });
      serve.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    try {
      const ids = [await createPlan(join(examples, 'add-license.yaml'), home), await createPlan(join(examples, 'flaky-network.yaml'), home)];
      // Two runs at once, beside the server: three processes writing one SQLite file.
      const runs = await Promise.all(ids.map((id) => agents(['plan', 'run', id, '--stream'], home)));
      for (const run of runs) {
        expect(run.stderr).not.toMatch(/locked|SQLITE_BUSY/i);
        expect(run.code).toBe(0);
      }
      for (const id of ids) {
        expect(PlanSchema.parse(await agentsJson(['plan', 'show', id], home))).toMatchObject({ phase: 'apply', processingState: 'queued' });
      }
    } finally {
      serve.kill('SIGTERM');
      await new Promise((resolve) => serve.once('exit', resolve));
    }
  });
});
