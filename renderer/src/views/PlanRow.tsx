import type { PlanListItem } from '../../../shared/contract';
import { ApprovalBadge } from '../components/ApprovalBadge';
import { Progress, StateBadge } from '../components/Badges';
import { formatAge } from '../lib/format';
import { PHASE_LABELS, STATUS_LABELS } from '../../../shared/vocabulary';
import { waitsForApproval } from '../store/approvals-slice';

export const PLAN_ROW_HEIGHT = 60;

export function planOptionId(planId: string): string {
  return `plan-option-${planId}`;
}

export function PlanRow({ plan, open, cursor, now, onOpen }: { plan: PlanListItem; open: boolean; cursor: boolean; now: number; onOpen(id: string): void }) {
  const classes = ['plan-row', open && 'open', cursor && 'cursor', plan.needsAttention && 'attention'].filter(Boolean).join(' ');
  return (
    <div
      id={planOptionId(plan.id)}
      role="option"
      aria-selected={open}
      className={classes}
      data-testid="plan-row"
      data-plan-id={plan.id}
      data-plan-name={plan.name}
      data-plan-state={plan.processingState}
      data-plan-phase={plan.phase}
      data-needs-attention={plan.needsAttention}
      onClick={() => onOpen(plan.id)}
    >
      <div className="plan-row-line">
        <span className="plan-row-name">{plan.name}</span>
        {plan.needsAttention && <span className="visually-hidden">needs attention</span>}
        {waitsForApproval(plan) ? <ApprovalBadge /> : plan.awaitingApply ? <span className="badge state-awaiting-apply">{STATUS_LABELS.ready_to_apply}</span> : <StateBadge state={plan.processingState} plan={plan} />}
      </div>
      <div className="plan-row-line muted">
        <span className="plan-row-phase">{PHASE_LABELS[plan.phase]}</span>
        <Progress done={plan.progress.done} total={plan.progress.total} label={`${plan.name}: ${plan.progress.done} of ${plan.progress.total} steps done`} />
        <span className="plan-row-age" title={plan.updatedAt}>
          {formatAge(plan.updatedAt, now)}
        </span>
      </div>
    </div>
  );
}
