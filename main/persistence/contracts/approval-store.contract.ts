import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Approval } from '../../../shared/approvals';
import { newId } from '../../../shared/ids';
import { type ApprovalStore, pendingApproval, toolsApprovedForPlan } from '../../engine/ports/approvals';
import { type Harness, type HarnessFactory, iso } from '../test-support/fixtures';

function makeApproval(planId: string, overrides: Partial<Approval> = {}): Approval {
  return {
    id: newId(),
    planId,
    kind: 'tool',
    decisionId: 'D1',
    callIndex: 0,
    tool: 'shell.run',
    args: { command: 'make test' },
    description: 'Run the tests',
    rationale: 'They must pass',
    diff: null,
    hunks: null,
    status: 'pending',
    scope: null,
    answeredBy: null,
    answeredAt: null,
    reason: null,
    usedAt: null,
    createdAt: iso(),
    ...overrides,
  };
}

/** What every ApprovalStore must do. */
export function approvalStoreContract(name: string, factory: HarnessFactory<ApprovalStore>): void {
  describe(`ApprovalStore contract: ${name}`, () => {
    let harness: Harness<ApprovalStore>;
    let store: ApprovalStore;
    beforeEach(async () => {
      harness = await factory();
      store = harness.subject;
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it('keeps a request as it was given, listed per plan in order', async () => {
      const first = makeApproval('P1');
      const second = makeApproval('P1', { tool: 'file.write', args: { path: 'a.txt', content: 'x' }, diff: '+x' });
      await store.add(first);
      await store.add(makeApproval('P2'));
      await store.add(second);
      expect(await store.get(first.id)).toEqual(first);
      expect(await store.listForPlan('P1')).toEqual([first, second]);
      expect(await store.listForPlan('nobody')).toEqual([]);
    });

    it('records an answer, and tells which request is pending and which tools are approved for the plan', async () => {
      const once = makeApproval('P1');
      const all = makeApproval('P1', { tool: 'file.delete', callIndex: 1 });
      await store.add(once);
      await store.add(all);
      expect(pendingApproval(await store.listForPlan('P1'))?.id).toBe(once.id);
      const answered = await store.update(once.id, { status: 'approved', scope: 'once', answeredBy: 'console', answeredAt: iso(5) });
      expect(answered).toMatchObject({ status: 'approved', scope: 'once', answeredBy: 'console', tool: 'shell.run' });
      await store.update(all.id, { status: 'approved', scope: 'all', answeredBy: 'root', answeredAt: iso(6) });
      expect(pendingApproval(await store.listForPlan('P1'))).toBeUndefined();
      expect([...toolsApprovedForPlan(await store.listForPlan('P1'))]).toEqual(['file.delete']);
    });

    it('refuses an answer to an unknown request and a second request with the same id', async () => {
      const approval = makeApproval('P1');
      await store.add(approval);
      await expect(store.add(approval)).rejects.toThrow();
      await expect(store.update('missing', { status: 'rejected' })).rejects.toThrow(/unknown approval/);
    });

    it('takes one answer: two consoles answering at once record one, the second is refused and changes nothing', async () => {
      const approval = makeApproval('P1');
      await store.add(approval);
      const answers = await Promise.allSettled([
        store.update(approval.id, { status: 'approved', scope: 'once', answeredBy: 'console-1', answeredAt: iso(5) }),
        store.update(approval.id, { status: 'rejected', answeredBy: 'console-2', answeredAt: iso(6), reason: 'no' }),
      ]);
      expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'rejected']);
      expect(String((answers[1] as PromiseRejectedResult).reason)).toContain(`${approval.id} was answered already (approved)`);
      expect(await store.get(approval.id)).toMatchObject({ status: 'approved', answeredBy: 'console-1', reason: null });
      // Its use is recorded still.
      expect(await store.update(approval.id, { usedAt: iso(7) })).toMatchObject({ status: 'approved', usedAt: iso(7) });
    });
  });
}
