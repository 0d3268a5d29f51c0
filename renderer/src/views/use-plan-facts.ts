import { useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { PlanFacts } from '../../../shared/action-rules';
import type { Plan } from '../../../shared/domain';
import { consoleFacts } from '../lib/plan-facts';
import { consoleKnowledge } from '../store/console-knowledge';
import { useAppStore } from '../store/react';

/** The open plan's facts for the action rules, from the plan and what the store holds of its tree, approvals, checkpoints and review. */
export function usePlanFacts(plan: Plan): PlanFacts {
  const known = useAppStore(useShallow(consoleKnowledge));
  return useMemo(() => consoleFacts(plan, known), [plan, known]);
}
