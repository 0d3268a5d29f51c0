import { describe, expect, it } from 'vitest';
import { allowed } from './actions';
import type { PlanFacts } from './action-rules';
import { CheckSpecSchema, checksFailed, checksSummaryLine, normalizeCheck, type PlanChecksSummary } from './checks';
import { planStatus } from './vocabulary';

const summary = (over: Partial<PlanChecksSummary> = {}): PlanChecksSummary => ({
  total: 4,
  passed: 3,
  failed: 0,
  notChecked: 1,
  failedChecks: [],
  stale: false,
  ranAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

const facts = (over: Partial<PlanFacts> = {}): PlanFacts => ({
  id: 'P',
  phase: 'apply',
  processingState: 'errored',
  errorDetails: { category: 'verification' },
  projectPath: '/project',
  agent: false,
  running: false,
  runHere: false,
  pendingApproval: false,
  failedStep: false,
  steps: 2,
  hasTree: true,
  missingSandbox: null,
  checkpoints: 0,
  partlyApplied: false,
  ...over,
});

describe('checks', () => {
  it('takes a plain string as a command named after itself, with the default time limit', () => {
    expect(normalizeCheck(CheckSpecSchema.parse('npm test'))).toEqual({ name: 'npm test', run: 'npm test', timeoutSeconds: 600, criteria: [], source: 'plan' });
    expect(normalizeCheck({ name: 'licence', run: 'test -f LICENSE', timeoutSeconds: 5, criteria: 1 }, 'step')).toEqual({
      name: 'licence',
      run: 'test -f LICENSE',
      timeoutSeconds: 5,
      criteria: [1],
      source: 'step',
    });
  });

  it('refuses a check without a command, and a field it does not know', () => {
    expect(CheckSpecSchema.safeParse({ name: 'x' }).success).toBe(false);
    expect(CheckSpecSchema.safeParse({ run: 'true', timeout: 5 }).success).toBe(false);
    expect(CheckSpecSchema.safeParse('  ').success).toBe(false);
  });

  it('words the summary, never counting a criterion not checked as passed', () => {
    expect(checksSummaryLine(summary())).toBe('Checks: 3 of 4 passed, 1 not checked');
    expect(checksSummaryLine(summary({ passed: 2, failed: 1, failedChecks: ['npm test'], stale: true }))).toBe(
      'Checks: 2 of 4 passed, 1 failed, 1 not checked (stale: they run again before apply)',
    );
  });

  it('asks for confirmation to apply after a failed check, and not once the verdicts are stale', () => {
    const failed = facts({ checks: summary({ passed: 2, failed: 1, failedChecks: ['npm test'] }) });
    expect(checksFailed(failed.checks)).toBe(true);
    const refused = allowed('apply', failed, {});
    expect(refused).toMatchObject({ allowed: false, code: 'wrong_state' });
    expect(!refused.allowed && refused.reason).toBe('plan P: check "npm test" failed; apply with --accept-failed-checks to apply anyway');
    expect(allowed('apply', failed, { acceptFailedChecks: true })).toEqual({ allowed: true });
    expect(allowed('apply', failed)).toMatchObject({ allowed: true, confirm: expect.stringContaining('"npm test"') });
    expect(allowed('apply', facts({ checks: summary({ failed: 1, failedChecks: ['npm test'], stale: true }) }), {})).toEqual({ allowed: true });
  });

  it('calls a plan whose checks failed "Checks failed"', () => {
    expect(planStatus({ phase: 'apply', processingState: 'errored', errorDetails: { category: 'verification' } })).toBe('checks_failed');
  });
});
