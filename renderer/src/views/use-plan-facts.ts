import { useMemo } from 'react';
import type { PlanFacts } from '../../../shared/actions';
import type { Plan } from '../../../shared/domain';
import { consoleFacts } from '../lib/plan-facts';
import { useAppStore } from '../store/react';

/** The open plan's facts for the action rules, from the plan and what the store holds of its tree and approvals. */
export function usePlanFacts(plan: Plan): PlanFacts {
  const decisions = useAppStore((s) => s.decisions);
  const pendingApproval = useAppStore((s) => s.pendingApproval !== null);
  return useMemo(() => consoleFacts(plan, { decisions, pendingApproval }), [plan, decisions, pendingApproval]);
}
