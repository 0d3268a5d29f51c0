import { describe, expect, it } from 'vitest';
import { inProcessCli } from '../test-support';

describe('team commands without a team database', () => {
  it('say in one line, with exit 2, that they need one and how to name it', async () => {
    const { agents } = inProcessCli();
    for (const args of [['worker'], ['workers'], ['db', 'migrate']]) {
      const result = await agents(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(
        `error: --database: agents ${args.join(' ')} needs a team database: --database postgresql://..., AGENTS_DATABASE_URL, or agents config set database URL\n`,
      );
    }
    const plan = await agents('plan', 'create', 'examples/add-license.yaml');
    expect(plan.code, plan.stderr).toBe(0);
    const detached = await agents('plan', 'run', plan.stdout.trim(), '--detach');
    expect(detached.code).toBe(2);
    expect(detached.stderr).toBe('error: detach: needs a team database (--database URL or AGENTS_DATABASE_URL): without one the run is this process\n');
    // Nothing ran: the plan is as it was created.
    expect(JSON.parse((await agents('plan', 'show', plan.stdout.trim(), '--json')).stdout)).toMatchObject({ processingState: 'queued', phase: 'strategize' });
  });
});
