import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inProcessCli } from '../test-support';

describe('agents plan run', () => {
  it('stops with exit 3 at a call that waits for approval; a rejection is marked ✕ in the tree', async () => {
    const { home, agents } = inProcessCli();
    const demo = join(home, 'demo');
    await agents('demo', demo);
    const id = (await agents('plan', 'create', join(demo, 'add-license.yaml'), '--profile', 'manual')).stdout.trim();

    const run = await agents('plan', 'run', id);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(`approve with: agents plan approve ${id} [--all]`);

    const rejected = await agents('plan', 'reject', id, '--reason', 'not yet');
    expect(rejected.code, rejected.stderr).toBe(1);
    // The answer is marked as the rejection it is, not with a check mark.
    const tree = (await agents('plan', 'tree', id)).stdout;
    expect(tree).toMatch(/^│  ├─ ✕ \[approval\] Rejected file\.write$/m);
    expect(tree).not.toMatch(/✓ \[approval\] Rejected/);
  });

  it('a second run on a waiting plan exits 3 too', async () => {
    const { home, agents } = inProcessCli();
    const demo = join(home, 'demo');
    await agents('demo', demo);
    const id = (await agents('plan', 'create', join(demo, 'add-license.yaml'), '--profile', 'manual')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(3);
    const again = await agents('plan', 'run', id);
    expect(again).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: plan ${id} is Waiting for approval; run needs a plan that is Ready to run; approve or reject the waiting call first\nanswer with: agents plan approve ${id} | agents plan reject ${id} --reason "why"\n`,
    });
  });
});
