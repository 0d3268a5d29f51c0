import { describe, expect, it } from 'vitest';
import { type CheckResult, normalizeCheck } from '../../../shared/checks';
import type { StrategyDecision } from '../../../shared/domain';
import { criterionVerdicts, summarize } from './verdicts';

const step = (id: string, order: number, description: string, extra: Partial<StrategyDecision> = {}): StrategyDecision => ({
  id,
  planId: 'P',
  parentId: 'ROOT',
  type: 'strategy_choice',
  order,
  description,
  rationale: `Why\nAcceptance: ${description} holds`,
  toolCalls: [],
  status: 'done',
  createdAt: 't',
  updatedAt: 't',
  ...extra,
});

const result = (name: string, decisionId: string | null, passed: boolean, id = `${name}-${String(passed)}`): CheckResult => ({
  id,
  planId: 'P',
  runId: 'R',
  name,
  run: name,
  source: decisionId ? 'step' : 'plan',
  decisionId,
  exitCode: passed ? 0 : 1,
  passed,
  durationMs: 1,
  timedOut: false,
  timeoutSeconds: 600,
  refused: null,
  outputTail: '',
  outputPath: null,
  confinement: 'bwrap-nobody',
  startedAt: 't',
  finishedAt: 't',
});

describe('criterion verdicts', () => {
  it('checks a bullet by a check of its name, by criteria (text or number), and leaves one with none not checked', () => {
    const plan = {
      definitionOfDone: '- The licence exists\n- The README mentions it\n- The tests pass\n- Someone reviewed it',
      verify: { verifyEach: false, checks: [normalizeCheck({ name: 'the licence exists', run: 'test -f LICENSE' }), normalizeCheck({ run: 'grep -q LICENSE README.md', criteria: 2 }), normalizeCheck({ run: 'npm test', criteria: 'The tests pass' })] },
    };
    const verdicts = criterionVerdicts(plan, [], [result('the licence exists', null, true), result('grep -q LICENSE README.md', null, false), result('npm test', null, true)]);
    expect(verdicts.map((v) => [v.kind, v.index, v.verdict, v.evidence.map((e) => e.name)])).toEqual([
      ['done', 1, 'passed', ['the licence exists']],
      ['done', 2, 'failed', ['grep -q LICENSE README.md']],
      ['done', 3, 'passed', ['npm test']],
      ['done', 4, 'not checked', []],
    ]);
    expect(summarize(verdicts, [], null)).toMatchObject({ total: 4, passed: 2, failed: 1, notChecked: 1 });
  });

  it("gives each step of a model's tree its acceptance as a criterion, checked by the step's latest result; a skipped step counts no more", () => {
    const check = normalizeCheck('test -f NOTES.md', 'step');
    const steps = [step('S1', 1, 'Write NOTES.md', { check }), step('S2', 2, 'Link it'), step('S3', 3, 'Dropped', { status: 'skipped', check })];
    const results = [result(check.name, 'S1', false, 'first'), result(check.name, 'S1', true, 'second')];
    const verdicts = criterionVerdicts({ definitionOfDone: '- Notes exist', verify: undefined }, steps, results);
    expect(verdicts.map((v) => [v.kind, v.text, v.verdict, v.evidence.map((e) => e.resultId)])).toEqual([
      ['done', 'Notes exist', 'not checked', []],
      ['acceptance', 'Write NOTES.md holds', 'passed', ['second']],
      ['acceptance', 'Link it holds', 'not checked', []],
    ]);
  });
});
