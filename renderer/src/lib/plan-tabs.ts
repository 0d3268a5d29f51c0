// The open plan's tabs, declared once: the tab bar, the keyboard and the help sheet read this list,
// and the view of each is in PlanView's TAB_VIEWS, which the compiler holds to the same ids.
import type { Plan, StrategyDecision } from '../../../shared/domain';

/** What decides whether a tab is shown: the plan and its tree. */
export interface TabContext {
  plan: Plan | null;
  decisions: Record<string, StrategyDecision>;
}

export interface TabSpec {
  id: string;
  label: string;
  /** The key that shows it, as KeyboardEvent.key gives it. */
  key: string;
  /** Shown only where this holds; always when absent. */
  shown?: (context: TabContext) => boolean;
}

export const PLAN_TABS = [
  { id: 'decisions', label: 'Decisions', key: '1' },
  { id: 'changes', label: 'Changes', key: '2' },
  { id: 'events', label: 'Events', key: '3' },
  // Only where the plan has checks (README.md, "Verify").
  { id: 'checks', label: 'Checks', key: '4', shown: ({ plan, decisions }) => (plan ? hasChecks(plan, decisions) : false) },
] as const satisfies readonly TabSpec[];

export type PlanTab = (typeof PLAN_TABS)[number]['id'];

/** The tabs the plan has now, in order. */
export function visibleTabs(context: TabContext): readonly (TabSpec & { id: PlanTab })[] {
  return PLAN_TABS.filter((tab: TabSpec) => tab.shown?.(context) ?? true);
}

/** The tab `key` shows, if the plan has it now. */
export function tabOfKey(key: string, context: TabContext): PlanTab | undefined {
  return visibleTabs(context).find((tab) => tab.key === key)?.id;
}

/** Whether the plan has checks to show: declared on the plan or a step, or a pass already ran. */
export function hasChecks(plan: Plan, decisions: Record<string, StrategyDecision>): boolean {
  return Boolean(plan.checks) || (plan.verify?.checks.length ?? 0) > 0 || stepChecks(decisions);
}

const stepChecksOf = new WeakMap<Record<string, StrategyDecision>, boolean>();

/** Whether a step has a check of its own, once per tree: the tabs read it on every store update. */
function stepChecks(decisions: Record<string, StrategyDecision>): boolean {
  let found = stepChecksOf.get(decisions);
  if (found === undefined) {
    found = Object.values(decisions).some((d) => Boolean(d.check));
    stepChecksOf.set(decisions, found);
  }
  return found;
}
