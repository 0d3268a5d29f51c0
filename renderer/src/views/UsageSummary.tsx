import { useEffect } from 'react';
import { describeUsage, priceOfPlan } from '../../../shared/describe';
import type { Plan } from '../../../shared/domain';
import { useAppStore } from '../store/react';

/** Tokens the model used for the plan, and their cost when the settings have a price. */
export function UsageSummary({ plan }: { plan: Plan }) {
  const settings = useAppStore((s) => s.settings);
  const status = useAppStore((s) => s.settingsStatus);
  const load = useAppStore((s) => s.loadSettings);
  useEffect(() => {
    if (plan.agent && status === 'idle') void load();
  }, [plan.agent, status, load]);
  // A coding agent over ACP: the tokens and the cost it reports.
  if (!plan.agent && !plan.acp) return null;
  const usage = plan.usage ?? { inputTokens: 0, outputTokens: 0 };
  const { tokens, cost } = describeUsage(usage, priceOfPlan(plan, settings?.price), (n) => n.toLocaleString('en'));
  return (
    <span className="usage muted" data-testid="plan-usage" title="Tokens the model used for this plan">
      Tokens: {tokens}
      {cost !== null ? ` · cost ${cost}` : ''}
    </span>
  );
}
