import { useEffect } from 'react';
import type { PlanListItem } from '../../../shared/contract';
import { useAppStore } from '../store/react';

const TITLE = 'CleverAgents';

/** How many plans wait for the operator: a failure, an approval, an interrupted run, or changes to apply. */
export function plansNeedingOperator(plans: readonly Pick<PlanListItem, 'needsAttention' | 'awaitingApply'>[]): number {
  return plans.filter((plan) => plan.needsAttention || plan.awaitingApply).length;
}

/** "(2) CleverAgents" while two plans need the operator, as a tab (and the desktop window) shows it. */
export function attentionTitle(count: number): string {
  return count > 0 ? `(${count}) ${TITLE}` : TITLE;
}

/** Keeps the document's title on the count of plans that need the operator. */
export function useAttentionTitle(): void {
  const count = useAppStore((state) => plansNeedingOperator(state.plans));
  useEffect(() => {
    document.title = attentionTitle(count);
  }, [count]);
}
