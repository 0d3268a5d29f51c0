import { useEffect } from 'react';
import type { PlanListItem } from '../../../shared/contract';
import { useAppStore } from '../store/react';

const TITLE = 'CleverAgents';

/** How many plans wait for the operator: a failure, an approval, an interrupted run, or changes to apply. */
export function plansNeedingOperator(plans: readonly Pick<PlanListItem, 'needsAttention' | 'awaitingApply'>[]): number {
  return plans.filter((plan) => plan.needsAttention || plan.awaitingApply).length;
}

/**
 * "(2) CleverAgents" while two plans need the operator, as a tab shows it; the desktop app's window
 * also names the open plan: "(2) add-license — CleverAgents".
 */
export function attentionTitle(count: number, planName: string | null = null): string {
  const title = planName ? `${planName} — ${TITLE}` : TITLE;
  return count > 0 ? `(${count}) ${title}` : title;
}

/** Keeps the document's title (which Electron's window takes as its own) on the count, and with `namesPlan` on the open plan. */
export function useAttentionTitle(namesPlan = false): void {
  const count = useAppStore((state) => plansNeedingOperator(state.plans));
  const planName = useAppStore((state) => (namesPlan ? (state.plan?.name ?? null) : null));
  useEffect(() => {
    document.title = attentionTitle(count, planName);
  }, [count, planName]);
}
