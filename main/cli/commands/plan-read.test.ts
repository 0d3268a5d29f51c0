import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { inProcessCli } from '../test-support';

describe('agents plan list', () => {
  it('lists the plans as the console does: a failed one first, then the newest first', async () => {
    const { home, agents } = inProcessCli();
    const demo = join(home, 'demo');
    expect((await agents('demo', demo)).code).toBe(0);
    const create = async (file: string) => {
      const created = await agents('plan', 'create', join(demo, file));
      expect(created.code, created.stderr).toBe(0);
      // Apart by a millisecond at least, so the newest is one plan.
      await sleep(5);
      return created.stdout.trim();
    };
    const first = await create('add-license.yaml');
    const failing = await create('broken-docs.yaml');
    const newest = await create('add-license.yaml');
    expect((await agents('plan', 'run', failing)).code).toBe(1);

    const listed = JSON.parse((await agents('plan', 'list', '--json')).stdout) as { plans: { id: string }[] };
    expect(listed.plans.map((p) => p.id)).toEqual([failing, newest, first]);
    const rows = (await agents('plan', 'list')).stdout.split('\n').slice(1, 4);
    expect(rows.map((row) => row.split(' ')[0])).toEqual([failing, newest, first]);
    expect(rows[0]).toContain('Failed');
  });
});
