import type { CheckResult, PlanChecksSummary, PlanChecksView } from '../../../shared/checks';

/** A verify pass where `tests` failed: what the host keeps of a plan's checks, for store and view tests. */
export const failedSummary: PlanChecksSummary = { total: 2, passed: 1, failed: 1, notChecked: 0, failedChecks: ['tests'], stale: false, ranAt: '2026-01-01T00:00:01.000Z' };

export function result(overrides: Partial<CheckResult> = {}): CheckResult {
  return {
    id: 'R1',
    planId: 'P1',
    runId: 'RUN1',
    name: 'tests',
    run: 'npm test',
    source: 'plan',
    decisionId: null,
    exitCode: 1,
    passed: false,
    durationMs: 1200,
    timedOut: false,
    timeoutSeconds: 600,
    refused: null,
    outputTail: 'not ok 1 - adds\n',
    outputPath: '/data/checks/P1/R1.log',
    confinement: 'bwrap-nobody',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.200Z',
    ...overrides,
  };
}

export function checksView(overrides: Partial<PlanChecksView> = {}): PlanChecksView {
  return {
    planId: 'P1',
    summary: failedSummary,
    checks: [{ name: 'tests', run: 'npm test', timeoutSeconds: 600, criteria: [], source: 'plan', decisionId: null }],
    results: [result()],
    criteria: [{ kind: 'check', index: 1, text: 'tests', decisionId: null, verdict: 'failed', evidence: [{ resultId: 'R1', name: 'tests', passed: false }] }],
    ...overrides,
  };
}
