import type { ActionId } from '../../../shared/action-ids';
import { allowed } from '../../../shared/actions';
import { factsOfPlan, type PlanFacts, type Verdict } from '../../../shared/action-rules';
import type { Plan, StrategyDecision } from '../../../shared/domain';

/** What the store knows beyond the plan row: the tree and the call waiting for an answer. */
export interface ConsoleKnowledge {
  decisions?: Record<string, StrategyDecision>;
  pendingApproval?: boolean;
  /** The plan's checkpoints, once listed; until then every step that has started counts as one. */
  checkpoints?: number;
  /** Part of the changeset is applied (the review says so). */
  partlyApplied?: boolean;
  /** Team mode: the team's workers run plans, never the console's own process, so step, continue and pause reach no run. */
  team?: boolean;
}

type StepFacts = { steps: number; failedStep: boolean; started: number };
const stepFactsOf = new WeakMap<Record<string, StrategyDecision>, StepFacts>();

/** Steps in the tree, whether one failed (or was cut off while running) and how many started, once per tree. */
function stepFacts(decisions: Record<string, StrategyDecision>): StepFacts {
  let facts = stepFactsOf.get(decisions);
  if (!facts) {
    facts = { steps: 0, failedStep: false, started: 0 };
    for (const d of Object.values(decisions)) {
      if (d.type !== 'strategy_choice') continue;
      facts.steps += 1;
      if (d.status === 'failed' || d.status === 'running') facts.failedStep = true;
      if (d.status !== 'pending') facts.started += 1;
    }
    stepFactsOf.set(decisions, facts);
  }
  return facts;
}

/**
 * The facts the action rules (shared/actions.ts) read, as the console sees them. A run the console
 * cannot see into counts as this host's: if it is another process's, the host refuses and says so.
 */
export function consoleFacts(plan: Plan, known: ConsoleKnowledge = {}): PlanFacts {
  const waiting = plan.waitingFor === 'approval';
  // A plan paused in step mode is held by its run; one paused for an answer has no process at all.
  const running = plan.processingState === 'processing' || (plan.processingState === 'paused' && !waiting);
  const { steps, failedStep, started } = known.decisions ? stepFacts(known.decisions) : { steps: 0, failedStep: false, started: 0 };
  return {
    ...factsOfPlan(plan),
    running,
    runHere: running && !known.team,
    pendingApproval: waiting || Boolean(known.pendingApproval),
    failedStep,
    steps,
    // The page cannot look at the disk: a sandbox gone is refused by the host, with its reason.
    missingSandbox: null,
    checkpoints: known.checkpoints ?? started,
    partlyApplied: known.partlyApplied ?? false,
  };
}

/** Whether the console offers `action` for the plan, or why not. */
export function verdict(action: ActionId, plan: Plan, known?: ConsoleKnowledge): Verdict {
  return allowed(action, consoleFacts(plan, known));
}

