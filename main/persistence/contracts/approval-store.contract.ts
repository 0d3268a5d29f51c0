import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Approval } from '../../../shared/domain';
import { newId } from '../../../shared/ids';
import { type ApprovalStore, pendingApproval, toolsApprovedForPlan } from '../../engine/approvals';
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
    beforeEach(() => {
      harness = factory();
      store = harness.subject;
    });
    afterEach(() => harness.dispose());

    it('keeps a request as it was given, listed per plan in order', () => {
      const first = makeApproval('P1');
      const second = makeApproval('P1', { tool: 'file.write', args: { path: 'a.txt', content: 'x' }, diff: '+x' });
      store.add(first);
      store.add(makeApproval('P2'));
      store.add(second);
      expect(store.get(first.id)).toEqual(first);
      expect(store.listForPlan('P1')).toEqual([first, second]);
      expect(store.listForPlan('nobody')).toEqual([]);
    });

    it('records an answer, and tells which request is pending and which tools are approved for the plan', () => {
      const once = makeApproval('P1');
      const all = makeApproval('P1', { tool: 'file.delete', callIndex: 1 });
      store.add(once);
      store.add(all);
      expect(pendingApproval(store.listForPlan('P1'))?.id).toBe(once.id);
      const answered = store.update(once.id, { status: 'approved', scope: 'once', answeredBy: 'console', answeredAt: iso(5) });
      expect(answered).toMatchObject({ status: 'approved', scope: 'once', answeredBy: 'console', tool: 'shell.run' });
      store.update(all.id, { status: 'approved', scope: 'all', answeredBy: 'root', answeredAt: iso(6) });
      expect(pendingApproval(store.listForPlan('P1'))).toBeUndefined();
      expect([...toolsApprovedForPlan(store.listForPlan('P1'))]).toEqual(['file.delete']);
    });

    it('refuses an answer to an unknown request and a second request with the same id', () => {
      const approval = makeApproval('P1');
      store.add(approval);
      expect(() => store.add(approval)).toThrow();
      expect(() => store.update('missing', { status: 'rejected' })).toThrow(/unknown approval/);
    });
  });
}
