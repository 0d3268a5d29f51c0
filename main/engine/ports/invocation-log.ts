import type { ToolTally } from '../../../shared/contract';
import type { ToolInvocation } from '../../../shared/tool-calls';

/** Where every tool invocation is kept. */
export interface InvocationLog {
  record(invocation: ToolInvocation): Promise<void>;
  listForPlan(planId: string): Promise<ToolInvocation[]>;
  /** One decision's calls in recording order: what the console lists when the decision is opened. */
  listForDecision(decisionId: string): Promise<ToolInvocation[]>;
  /** Per decision with calls, how many ran and how many failed: what the tree's rows show. */
  talliesForPlan(planId: string): Promise<ToolTally[]>;
}
