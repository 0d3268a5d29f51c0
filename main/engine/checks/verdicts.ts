import type { Check, CheckResult, CriterionVerdict, PlanChecksSummary, PlanChecksView } from '../../../shared/checks';
import { stepsInOrder } from '../../../shared/decision-tree';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { parseDefinitionOfDone } from '../run/strategize-actor';

/** A check the plan runs: plan-level (decisionId null) or a step's own. */
export interface DeclaredCheck extends Check {
  decisionId: string | null;
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
const keyOf = (c: { name: string; decisionId: string | null }) => `${c.decisionId ?? ''}\u0000${c.name}`;

/** The steps that still count: not skipped, and not replaced by a later proposal. */
function liveSteps(decisions: readonly StrategyDecision[]): StrategyDecision[] {
  return stepsInOrder([...decisions]).filter((d) => d.status !== 'skipped');
}

/** Every check the plan runs now, plan-level first (the project's defaults, then the plan file's), then each step's in tree order. */
export function declaredChecks(plan: Pick<Plan, 'verify'>, decisions: readonly StrategyDecision[]): DeclaredCheck[] {
  const planLevel = (plan.verify?.checks ?? []).map((c) => ({ ...c, decisionId: null }));
  const steps = liveSteps(decisions).flatMap((d) => (d.check ? [{ ...d.check, decisionId: d.id }] : []));
  return [...planLevel, ...steps];
}

/** The latest result of each declared check, in the order they ran. */
export function latestResults(declared: readonly DeclaredCheck[], results: readonly CheckResult[]): CheckResult[] {
  const wanted = new Set(declared.map(keyOf));
  const latest = new Map<string, CheckResult>();
  for (const result of results) {
    const key = keyOf(result);
    if (!wanted.has(key)) continue;
    latest.delete(key);
    latest.set(key, result);
  }
  return [...latest.values()];
}

/** A step's acceptance as the model wrote it (the rationale's `Acceptance:` line), else its description. */
function acceptanceOf(step: StrategyDecision): string {
  const line = step.rationale.split('\n').find((l) => l.startsWith('Acceptance: '));
  return line ? line.slice('Acceptance: '.length) : step.description;
}

function verdictOf(evidence: CriterionVerdict['evidence']): CriterionVerdict['verdict'] {
  if (evidence.length === 0) return 'not checked';
  return evidence.every((e) => e.passed) ? 'passed' : 'failed';
}

/**
 * Each criterion and its verdict. A bullet of the definition of done is checked by a plan-level
 * check whose name is the bullet's text or whose `criteria` names it (its text or number), and by
 * the check of the step it became (a scripted plan's step of the same text). Every other step with
 * its acceptance is a criterion of its own, checked by its step's check; a plan-level check that
 * answers to no bullet is a criterion of its own. No check: `not checked`, never passed.
 */
export function criterionVerdicts(plan: Pick<Plan, 'verify' | 'definitionOfDone'>, decisions: readonly StrategyDecision[], results: readonly CheckResult[]): CriterionVerdict[] {
  const declared = declaredChecks(plan, decisions);
  const latest = latestResults(declared, results);
  const resultFor = (check: DeclaredCheck) => latest.find((r) => keyOf(r) === keyOf(check));
  const evidenceOf = (checks: readonly DeclaredCheck[]): CriterionVerdict['evidence'] =>
    checks.flatMap((c) => {
      const result = resultFor(c);
      return result ? [{ resultId: result.id, name: result.name, passed: result.passed }] : [];
    });
  const steps = liveSteps(decisions);
  const planChecks = declared.filter((c) => c.decisionId === null);
  const bullets = parseDefinitionOfDone(plan.definitionOfDone).map((s) => s.step);
  const answers = (check: DeclaredCheck, text: string, index: number) => same(check.name, text) || check.criteria.some((c) => (typeof c === 'number' ? c === index : same(c, text)));

  const claimedChecks = new Set<DeclaredCheck>();
  const claimedSteps = new Set<string>();
  const criteria: CriterionVerdict[] = bullets.map((text, i) => {
    const byName = planChecks.filter((c) => answers(c, text, i + 1));
    const step = steps.find((d) => same(d.description, text) && !claimedSteps.has(d.id));
    if (step) claimedSteps.add(step.id);
    const stepCheck = step ? declared.filter((c) => c.decisionId === step.id) : [];
    for (const c of byName) claimedChecks.add(c);
    return { kind: 'done', index: i + 1, text, decisionId: step?.id ?? null, verdict: 'not checked', evidence: evidenceOf([...byName, ...stepCheck]) };
  });
  let acceptance = 0;
  for (const step of steps) {
    if (claimedSteps.has(step.id)) continue;
    acceptance += 1;
    criteria.push({ kind: 'acceptance', index: acceptance, text: acceptanceOf(step), decisionId: step.id, verdict: 'not checked', evidence: evidenceOf(declared.filter((c) => c.decisionId === step.id)) });
  }
  for (const [i, check] of planChecks.filter((c) => !claimedChecks.has(c)).entries()) {
    criteria.push({ kind: 'check', index: i + 1, text: check.name, decisionId: null, verdict: 'not checked', evidence: evidenceOf([check]) });
  }
  return criteria.map((c) => ({ ...c, verdict: verdictOf(c.evidence) }));
}

/** The plan's checks in a line's numbers, from its criteria and the latest results. */
export function summarize(criteria: readonly CriterionVerdict[], latest: readonly CheckResult[], ranAt: string | null, stale = false): PlanChecksSummary {
  const count = (v: CriterionVerdict['verdict']) => criteria.filter((c) => c.verdict === v).length;
  return {
    total: criteria.length,
    passed: count('passed'),
    failed: count('failed'),
    notChecked: count('not checked'),
    failedChecks: [...new Set(latest.filter((r) => !r.passed).map((r) => r.name))],
    stale,
    ranAt,
  };
}

/** Everything `agents plan checks` and the console's Checks tab show. */
export function checksView(plan: Plan, decisions: readonly StrategyDecision[], results: readonly CheckResult[]): PlanChecksView {
  const declared = declaredChecks(plan, decisions);
  return {
    planId: plan.id,
    summary: plan.checks ?? null,
    checks: declared,
    results: latestResults(declared, results),
    criteria: criterionVerdicts(plan, decisions, results),
  };
}
