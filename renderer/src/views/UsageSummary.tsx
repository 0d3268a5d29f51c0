import { useEffect } from 'react';
import { costOf } from '../../../shared/agent';
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
  if (!plan.agent) return null;
  const usage = plan.usage ?? { inputTokens: 0, outputTokens: 0 };
  const cost = costOf(usage, settings?.price);
  return (
    <span className="usage muted" data-testid="plan-usage" title="Tokens the model used for this plan">
      Tokens: {usage.inputTokens.toLocaleString('en')} in, {usage.outputTokens.toLocaleString('en')} out{cost !== null ? ` · cost ${cost.toFixed(4)}` : ''}
    </span>
  );
}
