import { checksSummaryLine, type PlanChecksSummary } from '../../../shared/checks';
import { useAppStore } from '../store/react';

/** "Checks: 3 of 4 passed, 1 not checked" in the plan header; opens the Checks tab. */
export function ChecksSummary({ summary }: { summary: PlanChecksSummary }) {
  const setTab = useAppStore((s) => s.setTab);
  const state = summary.stale ? 'stale' : summary.failed > 0 ? 'failed' : summary.notChecked > 0 ? 'partial' : 'passed';
  return (
    <button type="button" className={`link-button checks-summary checks-${state}`} data-testid="checks-summary" data-checks-state={state} onClick={() => setTab('checks')}>
      {checksSummaryLine(summary)}
    </button>
  );
}
