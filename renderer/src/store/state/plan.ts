import type { PlanTraceView, ResponseOf } from '../../../../shared/contract';
import type { PlanModelView } from '../../../../shared/agent';
import type { Plan, StrategyDecision } from '../../../../shared/domain';
import type { ErrorRecord } from '../../../../shared/error-records';
import type { ActionArgs } from '../../../../shared/actions';
import type { ActionId, ActionState } from '../../../../shared/action-ids';
import type { NextRetry } from '../plan-events';
import type { PlanSession } from '../plan-session';
import type { ToolCallsState } from '../tool-calls';
import type { PlanTab } from '../../lib/plan-tabs';
import type { LoadStatus } from './load-status';

export type RecoveryHint = ResponseOf<'plans.errors'>['recoveryHints'][number];

export interface PlanSlice extends ToolCallsState {
  /** The open plan's requests, subscription and bookkeeping; closed when another plan is opened. */
  session: PlanSession | null;
  planId: string | null;
  plan: Plan | null;
  planStatus: LoadStatus;
  planError: string | null;
  /** The agent plan's own model and whether the host can use it (from plans.get); null for a scripted plan or before it loads. */
  planModel: PlanModelView | null;
  /** The trace of the plan's current or last run and its viewer's address (from plans.get); null before it ran or before it loads. */
  planTrace: PlanTraceView | null;
  /**
   * Every action with whether the open plan allows it now and, if not, why, as the host decided
   * (plans.get): what the console's controls are enabled from (`actionState`). Null before it loads.
   */
  planActions: ActionState[] | null;
  /** Normalized by id; the tree is derived (see lib/decision-tree). */
  decisions: Record<string, StrategyDecision>;
  decisionsStatus: LoadStatus;
  expanded: Record<string, boolean>;
  selectedDecisionId: string | null;
  /** The decision a paused plan waits before. */
  pausedDecisionId: string | null;
  errors: ErrorRecord[];
  recoveryHints: RecoveryHint[];
  nextRetry: NextRetry | null;
  breakpoints: string[];
  pendingAction: ActionId | null;
  actionError: string | null;
  tab: PlanTab;
  /** Select the first failed decision once the decisions arrive (after `n` opened a plan). */
  selectFailedOnLoad: boolean;
  openPlan(planId: string, options?: { selectFailure?: boolean }): void;
  closePlan(): void;
  refreshPlan(): void;
  refreshDecisions(): void;
  /** Reads the tallies again, and the calls of every decision opened: after a gap in seq or a resync. */
  refreshToolCalls(): void;
  /** Reads a decision's calls when it is opened (once: events keep them current). */
  loadDecisionCalls(decisionId: string): void;
  /** Reads an opened decision's calls again (a call finished whose start the page did not see). */
  reloadDecisionCalls(decisionId: string): void;
  refreshErrors(): void;
  setTab(tab: PlanTab): void;
  toggleExpanded(decisionId: string): void;
  setExpanded(decisionId: string, expanded: boolean): void;
  selectDecision(decisionId: string | null, options?: { reveal?: boolean }): void;
  moveDecisionSelection(delta: number): void;
  /** Selects the first failed decision, if any; returns whether one was found. */
  selectFirstFailure(): boolean;
  /** Takes an operator action (shared/actions.ts) on the open plan, if its rule allows it now. */
  runAction<A extends ActionId>(action: A, args?: ActionArgs<A>): Promise<void>;
  toggleBreakpoint(decisionId: string): Promise<void>;
}
