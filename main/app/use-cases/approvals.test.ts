import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PlanError, ValidationError } from '../../../shared/errors';
import { sandboxExecutorFactory } from '../executor-factory';
import { planApprovals } from './approvals';
import { planAuthoring } from './authoring';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

describe('answering approvals', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  it('approves the delete a supervised plan waits for, records who answered, and runs on to apply', async () => {
    h = useCaseHarness();
    writeFileSync(path.join(h.project, 'notes.txt'), 'notes\n');
    const running = planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass);
    const approvals = planApprovals(h.ctx, h.runs, running.runFrom);
    const plan = await planAuthoring(h.ctx).createFromContent(
      {
        content: `name: tidy\nproject: ${JSON.stringify(h.project)}\nautomationProfile: supervised\ndefinitionOfDone:\n  - step: Remove the notes\n    tools:\n      - { tool: file.delete, args: { path: notes.txt } }\n`,
      },
      h.root,
    );
    expect(await running.run(plan.id)).toMatchObject({ processingState: 'paused', waitingFor: 'approval' });
    await expect(approvals.reject(plan.id, { by: 'ada', reason: ' ' })).rejects.toThrow(ValidationError);
    const done = await approvals.approve(plan.id, { by: 'ada' });
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(await h.ctx.stores.approvals.listForPlan(plan.id)).toMatchObject([{ status: 'approved', scope: 'once', answeredBy: 'ada' }]);
    await expect(approvals.approve(plan.id, { by: 'ada' })).rejects.toThrow(PlanError);
  });
});
