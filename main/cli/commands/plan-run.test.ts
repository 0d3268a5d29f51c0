import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inProcessCli } from '../test-support';

describe('agents plan run', () => {
  it('stops with exit 3 at a call that waits for approval, and a second run on the waiting plan exits 3 too', async () => {
    const { home, agents } = inProcessCli();
    const demo = join(home, 'demo');
    await agents('demo', demo);
    const id = (await agents('plan', 'create', join(demo, 'add-license.yaml'), '--profile', 'manual')).stdout.trim();

    const run = await agents('plan', 'run', id);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(`approve with: agents plan approve ${id} [--all]`);

    const again = await agents('plan', 'run', id);
    expect(again).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: plan ${id} waits for approval; answer with: agents plan approve ${id} | agents plan reject ${id} --reason TEXT\n`,
    });
  });
});
