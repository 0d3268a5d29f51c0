import { useEffect } from 'react';
import type { CheckResult, CriterionVerdict, PlanChecksView } from '../../../shared/checks';
import { checksSummaryLine } from '../../../shared/checks';
import type { Plan } from '../../../shared/domain';
import { ActionButton } from '../components/ActionButton';
import { StatePanel } from '../components/StatePanel';
import { formatDuration } from '../lib/format';
import type { RunningCheck } from '../store/state/checks';
import { useAppStore } from '../store/react';

const KIND_LABELS: Record<CriterionVerdict['kind'], string> = { done: 'Definition of done', acceptance: 'Step acceptance', check: 'Check' };

function Criterion({ criterion }: { criterion: CriterionVerdict }) {
  const evidence = criterion.evidence.map((e) => `${e.name} (${e.passed ? 'passed' : 'failed'})`).join(', ');
  return (
    <li className={`criterion verdict-${criterion.verdict.replace(' ', '-')}`} data-testid="criterion" data-verdict={criterion.verdict}>
      <span className={`verdict-badge verdict-${criterion.verdict.replace(' ', '-')}`}>{criterion.verdict}</span>
      <span className="criterion-text">{criterion.text}</span>
      <span className="muted criterion-kind">
        {KIND_LABELS[criterion.kind]} {criterion.index}
        {evidence ? ` · evidence: ${evidence}` : ' · no command checks it'}
      </span>
    </li>
  );
}

/** How a result came out, in words: the exit code, the time limit, or why it did not run. */
function outcome(result: CheckResult): string {
  if (result.refused) return `refused: ${result.refused}`;
  if (result.timedOut) return `stopped at its time limit of ${result.timeoutSeconds} s`;
  return `exit code ${result.exitCode ?? 'none'}`;
}

function CheckRow({ name, run, result, live }: { name: string; run: string; result: CheckResult | null; live: RunningCheck | null }) {
  const state = live ? 'running' : result ? (result.passed ? 'passed' : 'failed') : 'not run';
  return (
    <li className={`check-row check-${state.replace(' ', '-')}`} data-testid="check-row" data-check-state={state} aria-label={`Check ${name}: ${state}`}>
      <div className="check-head">
        <span className={`verdict-badge verdict-${state.replace(' ', '-')}`}>{state}</span>
        <strong>{name}</strong>
        <code className="check-command">$ {run}</code>
        {live && (
          <span className="muted">
            check {live.index} of {live.total}
          </span>
        )}
        {!live && result && (
          <span className="muted" data-testid="check-evidence">
            {outcome(result)} · {formatDuration(result.durationMs)}
            {result.confinement ? ` · ${result.confinement === 'none' ? 'not confined' : `confined (${result.confinement})`}` : ''}
          </span>
        )}
      </div>
      {live ? (
        <pre className="check-output" role="log" aria-label={`Output of ${name}`} aria-live="off">
          {live.output || '…'}
        </pre>
      ) : (
        result &&
        result.outputTail && (
          <pre className="check-output" aria-label={`Output of ${name}`}>
            {result.outputTail}
          </pre>
        )
      )}
      {!live && result?.outputPath && <p className="muted check-log">Whole output: {result.outputPath}</p>}
    </li>
  );
}

/** Declared checks with their latest result, then results of checks no longer declared, then running ones not yet known. */
function rows(view: PlanChecksView | null, running: RunningCheck[]) {
  const results = view?.results ?? [];
  const out: { key: string; name: string; run: string; result: CheckResult | null; live: RunningCheck | null }[] = [];
  const seen = new Set<string>();
  const keyOf = (name: string, decisionId: string | null) => `${decisionId ?? ''}\u0000${name}`;
  const liveOf = (name: string, decisionId: string | null) => running.find((r) => r.name === name && r.decisionId === decisionId) ?? null;
  for (const check of view?.checks ?? []) {
    const key = keyOf(check.name, check.decisionId);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ key, name: check.name, run: check.run, result: results.findLast((r) => keyOf(r.name, r.decisionId) === key) ?? null, live: liveOf(check.name, check.decisionId) });
  }
  for (const r of running) {
    const key = keyOf(r.name, r.decisionId);
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ key, name: r.name, run: r.run, result: null, live: r });
    }
  }
  return out;
}

/** The failure card's title for a plan whose checks failed: the checks by name. */
export function failedChecksTitle(plan: Plan): string {
  const names = plan.checks?.failedChecks ?? [];
  return names.length === 0 ? 'Checks failed' : `Checks failed: ${names.join(', ')}`;
}

/** On the failure card of a plan whose checks failed: their output in the Checks tab, and running them again. */
export function FailedChecksActions({ primary }: { primary: boolean }) {
  const setTab = useAppStore((s) => s.setTab);
  const runAction = useAppStore((s) => s.runAction);
  return (
    <>
      <button type="button" className="button" onClick={() => setTab('checks')}>
        Show the checks
      </button>
      <ActionButton action="verify" primary={primary} testId="failure-verify" onClick={() => void runAction('verify')}>
        Run checks
      </ActionButton>
    </>
  );
}

/** The Checks tab: each criterion's verdict with its evidence, each check's result, and Run checks. */
export function ChecksPanel({ plan }: { plan: Plan }) {
  const view = useAppStore((s) => s.checksView);
  const status = useAppStore((s) => s.checksStatus);
  const error = useAppStore((s) => s.checksError);
  const running = useAppStore((s) => s.runningChecks);
  const refresh = useAppStore((s) => s.refreshChecks);
  const runAction = useAppStore((s) => s.runAction);
  const busy = useAppStore((s) => s.pendingAction === 'verify');
  // Read as the tab opens, not with the plan.
  useEffect(() => {
    if (status === 'idle') refresh();
  }, [status, refresh, plan.id]);

  if (!view && status === 'error')
    return (
      <StatePanel kind="error" title={`Couldn't load the checks: ${error ?? 'unknown error'}`}>
        <button type="button" className="button" onClick={refresh}>
          Try again
        </button>
      </StatePanel>
    );
  if (!view && running.length === 0) return <StatePanel kind="loading" title="Loading the checks…" />;

  const summary = view?.summary ?? plan.checks ?? null;
  const list = rows(view, running);
  return (
    <section className="checks-panel" aria-labelledby="checks-title">
      <div className="toolbar-row">
        <h3 id="checks-title" className="checks-title">
          {summary ? checksSummaryLine(summary) : running.length > 0 ? 'Checks running…' : 'The checks have not run yet'}
        </h3>
        <span className="grow" />
        <ActionButton action="verify" busy={busy || running.length > 0} testId="run-checks" onClick={() => void runAction('verify')}>
          Run checks
        </ActionButton>
      </div>
      {summary?.stale && <p className="checks-stale-notice">The sandbox changed after these checks ran: they run again before apply.</p>}
      {view && view.criteria.length > 0 && (
        <>
          <h4>Criteria</h4>
          <ul className="criteria" aria-label="Criteria">
            {view.criteria.map((c) => (
              <Criterion key={`${c.kind}-${c.index}`} criterion={c} />
            ))}
          </ul>
        </>
      )}
      <h4>Checks</h4>
      {list.length === 0 ? (
        <p className="muted">No checks are declared: add a `verify:` list to the plan file.</p>
      ) : (
        <ul className="check-rows" aria-label="Checks">
          {list.map((r) => (
            <CheckRow key={r.key} name={r.name} run={r.run} result={r.result} live={r.live} />
          ))}
        </ul>
      )}
    </section>
  );
}
