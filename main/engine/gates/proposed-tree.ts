import type { Plan } from '../../../shared/domain';
import { stepsInOrder } from '../../../shared/decision-tree';
import { type ApprovalStore, requestApproval } from '../ports/approvals';
import type { EventPublisher } from '../ports/event-stream';
import type { PlanLifecycleService } from '../run/lifecycle';

/** What a run does after strategize: execute, wait for the operator's answer, or strategize again. */
export type ProposedTreeVerdict = { next: 'execute'; plan: Plan } | { next: 'wait'; approvalId: string } | { next: 'propose_again' };

/**
 * A model's proposed tree waits for the operator under every profile except full-auto: one
 * pending approval of kind `plan`, on the tree's root. Approve lets execute start; reject sends
 * the reason back to the model, whose new steps replace the ones not done. The tree's gate, as
 * ApprovalGate is a tool call's.
 */
export function reviewProposedTree(
  ports: { lifecycle: PlanLifecycleService; approvals: ApprovalStore; events: EventPublisher },
  planId: string,
): Promise<ProposedTreeVerdict> {
  const { lifecycle, approvals } = ports;
  return lifecycle.unit(async () => {
    const plan = await lifecycle.getPlan(planId);
    // A model's tree, or the steps a coding agent proposed (`propose: true`), wait; a plan file's steps are the operator's own.
    if ((!plan.agent && !plan.acp?.propose) || plan.automationProfile.name === 'full-auto' || !plan.decisionRootId) return { next: 'execute', plan };
    const latest = (await approvals.listForPlan(planId)).filter((a) => a.kind === 'plan').at(-1);
    const steps = stepsInOrder(await lifecycle.listDecisions(planId)).filter((d) => d.status === 'pending');
    // An approval covers the steps it showed: steps proposed since (after a replan) are asked about again.
    const shown = new Set(Array.isArray(latest?.args.stepIds) ? (latest.args.stepIds as unknown[]) : []);
    if (latest?.status === 'approved' && steps.every((d) => shown.has(d.id))) return { next: 'execute', plan };
    if (latest?.status === 'pending') return { next: 'wait', approvalId: latest.id };
    if (latest?.status === 'rejected' && latest.usedAt === null) {
      await approvals.update(latest.id, { usedAt: new Date().toISOString() });
      await lifecycle.skipOpenSteps(planId);
      await lifecycle.update(planId, { phase: 'strategize', agentFeedback: { reason: latest.reason ?? 'no reason given', previous: latest.rationale } });
      return { next: 'propose_again' };
    }
    const approval = await requestApproval(approvals, ports.events, {
      planId,
      kind: 'plan',
      decisionId: plan.decisionRootId,
      callIndex: null,
      tool: null,
      args: {
        steps: steps.map((d) => ({ description: d.description, rationale: d.rationale, toolCalls: d.toolCalls, ...(d.check ? { check: d.check.run } : {}) })),
        stepIds: steps.map((d) => d.id),
      },
      description: `${plan.acp ? `Agent ${plan.acp.name}` : 'The model'} proposes ${steps.length} step${steps.length === 1 ? '' : 's'}`,
      // A step's check is approved with it: it runs in the sandbox after execute (README.md, "Verify").
      rationale: steps.map((d, i) => `${i + 1}. ${d.description}\n   ${d.rationale.replace(/\n/g, '\n   ')}${d.check ? `\n   Check: $ ${d.check.run}` : ''}`).join('\n'),
      diff: null,
      hunks: null,
    });
    return { next: 'wait', approvalId: approval.id };
  });
}
