import type { ActionState } from '../../../shared/action-ids';
import { actionList } from '../../../shared/actions';
import { factsOfPlan, type PlanFacts } from '../../../shared/action-rules';
import type { Plan, StrategyDecision } from '../../../shared/domain';

/** What the fake host knows of a plan beyond its row, as a real host reads it from its stores. */
export interface HostKnowledge {
  decisions?: readonly StrategyDecision[];
  pendingApproval?: boolean;
  /** How many checkpoints are recorded; unknown: every step that has started counts as one. */
  checkpoints?: number;
  partlyApplied?: boolean;
  /** Team mode: the team's workers run plans, never the host's own process. */
  team?: boolean;
}

/**
 * The `actions` a host lists for the plan in plans.get, for the fake bridge: the real rules over
 * facts read off the fake's data the way main/engine/gates/action-guard.ts reads its stores. A
 * run the fake cannot see into counts as the host's own.
 */
export function hostActions(plan: Plan, known: HostKnowledge = {}): ActionState[] {
  const waiting = plan.waitingFor === 'approval';
  // A plan paused in step mode is held by its run; one paused for an answer has no process at all.
  const running = plan.processingState === 'processing' || (plan.processingState === 'paused' && !waiting);
  const steps = (known.decisions ?? []).filter((d) => d.type === 'strategy_choice');
  const facts: PlanFacts = {
    ...factsOfPlan(plan),
    running,
    runHere: running && !known.team,
    pendingApproval: waiting || Boolean(known.pendingApproval),
    failedStep: steps.some((d) => d.status === 'failed' || d.status === 'running'),
    steps: steps.length,
    missingSandbox: null,
    checkpoints: known.checkpoints ?? steps.filter((d) => d.status !== 'pending').length,
    partlyApplied: known.partlyApplied ?? false,
  };
  return actionList(facts);
}
