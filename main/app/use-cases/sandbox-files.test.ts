import { afterEach, describe, expect, it } from 'vitest';
import { sandboxExecutorFactory } from '../executor-factory';
import { planRunning } from './running';
import { planSandboxFiles } from './sandbox-files';
import { useCaseHarness } from './test-support';

describe("the operator's edits in a plan's sandbox", () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  it('reads nothing before the first run, then saves an edit as the operator’s change', async () => {
    h = useCaseHarness();
    const files = planSandboxFiles(h.ctx, h.runs);
    const plan = await h.createPlan({ steps: 1 });
    await expect(files.readFile(plan.id, 'README.md')).rejects.toThrow(/no sandbox yet; run it first/);
    await planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass).run(plan.id);
    expect(await files.readFile(plan.id, 'README.md')).toMatchObject({ content: '# Demo\n', binary: false });
    const { entry } = await files.saveFile(plan.id, 'README.md', '# Demo, edited\n');
    expect(entry).toMatchObject({ path: 'README.md', origin: 'operator' });
    expect((await files.saveFile(plan.id, 'README.md', '# Demo, edited\n')).entry).toBeNull();
  });
});
