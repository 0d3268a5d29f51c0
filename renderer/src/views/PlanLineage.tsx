import type { Plan } from '../../../shared/domain';
import { useAppStore } from '../store/react';

/** Where the plan was forked from and the plans forked from it: each opens the other plan, or sets the two side by side. */
export function PlanLineage({ plan }: { plan: Plan }) {
  const openPlan = useAppStore((s) => s.openPlan);
  const openCompare = useAppStore((s) => s.openCompare);
  const names = useAppStore((s) => s.plans);
  const nameOf = (id: string) => names.find((p) => p.id === id)?.name ?? id;
  const forks = plan.forks ?? [];
  if (!plan.forkedFrom && forks.length === 0) return null;
  const link = (planId: string) => (
    <button type="button" className="link-button" onClick={() => openPlan(planId)} aria-label={`Open plan ${nameOf(planId)} (${planId})`}>
      {nameOf(planId)}
    </button>
  );
  const compare = (planId: string) => (
    <button type="button" className="button small" onClick={() => void openCompare(planId)}>
      Compare with {nameOf(planId)}
    </button>
  );
  return (
    <nav className="plan-lineage" aria-label="Forks" data-testid="plan-lineage">
      {plan.forkedFrom && (
        <p data-testid="forked-from">
          Forked from {link(plan.forkedFrom.planId)} at step {plan.forkedFrom.atStep} {compare(plan.forkedFrom.planId)}
        </p>
      )}
      {forks.length > 0 && (
        <ul className="plan-forks" aria-label="Plans forked from this one">
          {forks.map((f) => (
            <li key={f.planId} data-testid="fork-ref">
              Fork at step {f.atStep}: {link(f.planId)} {compare(f.planId)}
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}
