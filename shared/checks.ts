import { z } from 'zod';
import { once } from './once';

/**
 * Verify before apply: the checks a plan runs in its sandbox after execute, their results, and the
 * verdict on each criterion (a bullet of the definition of done, a step's acceptance, or a check
 * that answers to no criterion). README.md, "Verify".
 */

export const DEFAULT_CHECK_TIMEOUT_SECONDS = 600;
const command = z.string().trim().min(1, 'must not be empty').max(10_000);
const criterionRef = z.union([z.string().trim().min(1), z.number().int().positive()]);

/** A check as a plan file, `.agents/verify.yaml` or a model writes it: a command, or `{ name, run, timeoutSeconds, criteria }`. */
export const CheckSpecSchema = z.lazy(() =>
  z.union([
    command,
    z.strictObject({
      name: z.string().trim().min(1).max(200).optional(),
      run: command,
      timeoutSeconds: z.number().int().positive().max(86_400).optional(),
      /** The definition-of-done bullets this check is evidence for: their text, or their number from 1. */
      criteria: z.union([criterionRef, z.array(criterionRef).min(1)]).optional(),
    }),
  ]),
);
export type CheckSpec = z.input<typeof CheckSpecSchema>;

/** Where a check was declared: the plan file's `verify:`, the project's `.agents/verify.yaml`, or a step's `check:`. */
export const CHECK_SOURCES = ['plan', 'project', 'step'] as const;
export const CheckSourceSchema = z.enum(CHECK_SOURCES);
export type CheckSource = z.infer<typeof CheckSourceSchema>;

/** A check as the plan keeps it: named (its command, when the file gives no name), with its time limit. */
export const CheckSchema = z.lazy(once(() =>
  z.object({
    name: z.string().min(1),
    run: z.string().min(1),
    timeoutSeconds: z.number().int().positive(),
    /** Bullet texts or numbers (from 1) of the definition of done this check is evidence for, besides a bullet its name matches. */
    criteria: z.array(criterionRef).default([]),
    source: CheckSourceSchema.default('plan'),
  }),
));
export type Check = z.infer<typeof CheckSchema>;

/** A check spec as the plan keeps it. */
export function normalizeCheck(spec: CheckSpec, source: CheckSource = 'plan'): Check {
  const given = typeof spec === 'string' ? { run: spec } : spec;
  const run = given.run.trim();
  const criteria = given.criteria === undefined ? [] : Array.isArray(given.criteria) ? given.criteria : [given.criteria];
  return { name: given.name?.trim() || run, run, timeoutSeconds: given.timeoutSeconds ?? DEFAULT_CHECK_TIMEOUT_SECONDS, criteria, source };
}

/** What a plan keeps of its `verify:`, `verifyEach:` and the project's `.agents/verify.yaml`. */
export const PlanVerifySchema = z.lazy(() =>
  z.object({
    /** The plan-level checks: the project's defaults first, then the plan file's. */
    checks: z.array(CheckSchema),
    /** Each step's own check also runs right after the step. */
    verifyEach: z.boolean().default(false),
  }),
);
export type PlanVerify = z.infer<typeof PlanVerifySchema>;

/** A project's `.agents/verify.yaml`: checks every plan over the project runs. */
export const ProjectVerifySchema = z.lazy(() => z.strictObject({ verify: z.array(CheckSpecSchema).default([]) }));

/** One run of one check, confined as shell.run is, in the sandbox's project root. */
export const CheckResultSchema = z.lazy(() =>
  z.object({
    id: z.string().min(1),
    planId: z.string().min(1),
    /** The verify pass it belongs to (a step's check run right after its step has a pass of its own). */
    runId: z.string().min(1),
    name: z.string(),
    run: z.string(),
    source: CheckSourceSchema,
    /** The step a step's check belongs to; null for a plan-level check. */
    decisionId: z.string().nullable(),
    /** Null when the command did not run to an exit (refused, or killed at its time limit). */
    exitCode: z.number().int().nullable(),
    passed: z.boolean(),
    durationMs: z.number().nonnegative(),
    timedOut: z.boolean(),
    timeoutSeconds: z.number().int().positive(),
    /** Why the check did not run at all (no confinement available, the profile forbids the shell); null when it ran. */
    refused: z.string().nullable(),
    /** The last lines of stdout and stderr, interleaved as written. */
    outputTail: z.string(),
    /** Where the whole output is kept, in the data directory; null where it is not kept. */
    outputPath: z.string().nullable(),
    /** How the command was confined: bwrap-nobody, sandbox-exec, none. */
    confinement: z.string().nullable(),
    startedAt: z.string(),
    finishedAt: z.string(),
  }),
);
export type CheckResult = z.infer<typeof CheckResultSchema>;

export const CRITERION_VERDICTS = ['passed', 'failed', 'not checked'] as const;
export const CriterionVerdictValueSchema = z.enum(CRITERION_VERDICTS);
export type CriterionVerdictValue = z.infer<typeof CriterionVerdictValueSchema>;

/**
 * What a criterion is: a bullet of the definition of done (`done`), a step's acceptance
 * (`acceptance`), or a plan-level check that answers to no bullet (`check`: it is its own criterion).
 */
export const CRITERION_KINDS = ['done', 'acceptance', 'check'] as const;
export const CriterionKindSchema = z.enum(CRITERION_KINDS);

export const CriterionVerdictSchema = z.lazy(() =>
  z.object({
    kind: CriterionKindSchema,
    /** From 1 among the criteria of its kind: bullet 2, step 3. */
    index: z.number().int().positive(),
    text: z.string(),
    /** The step, for a step's acceptance (and a bullet that is a step of a scripted plan). */
    decisionId: z.string().nullable(),
    /** `not checked` when no check answers to it: never counted as passed. */
    verdict: CriterionVerdictValueSchema,
    /** The check results the verdict rests on. */
    evidence: z.array(z.object({ resultId: z.string(), name: z.string(), passed: z.boolean() })),
  }),
);
export type CriterionVerdict = z.infer<typeof CriterionVerdictSchema>;

/** The plan's checks in a line: "Checks: 3 of 4 passed, 1 not checked". Kept on the plan, so every view has it. */
export const PlanChecksSummarySchema = z.lazy(() =>
  z.object({
    /** Criteria, as `total`, and how each came out. */
    total: z.number().int().nonnegative(),
    passed: z.number().int().nonnegative(),
    failed: z.number().int().nonnegative(),
    notChecked: z.number().int().nonnegative(),
    /** The names of the checks that failed in the last pass. */
    failedChecks: z.array(z.string()),
    /** The sandbox changed after the checks ran (an operator edit, a retry, a correction): they run again before apply. */
    stale: z.boolean(),
    /** When the last pass ended; null while none has. */
    ranAt: z.string().nullable(),
  }),
);
export type PlanChecksSummary = z.infer<typeof PlanChecksSummarySchema>;

/** "Checks: 3 of 4 passed, 1 not checked", "Checks: 1 of 2 passed, 1 failed (stale: they run again before apply)". */
export function checksSummaryLine(summary: PlanChecksSummary): string {
  const parts = [`${summary.passed} of ${summary.total} passed`];
  if (summary.failed > 0) parts.push(`${summary.failed} failed`);
  if (summary.notChecked > 0) parts.push(`${summary.notChecked} not checked`);
  return `Checks: ${parts.join(', ')}${summary.stale ? ' (stale: they run again before apply)' : ''}`;
}

/** Whether apply needs the operator's confirmation: a check failed and nothing changed since. */
export function checksFailed(summary: PlanChecksSummary | null | undefined): boolean {
  return Boolean(summary && !summary.stale && summary.failedChecks.length > 0);
}

/** Everything `agents plan checks` and the console's Checks tab show. */
export const PlanChecksViewSchema = z.lazy(() =>
  z.object({
    planId: z.string(),
    summary: PlanChecksSummarySchema.nullable(),
    /** The checks declared: plan-level (project defaults first), then each step's, with its step. */
    checks: z.array(CheckSchema.unwrap().extend({ decisionId: z.string().nullable() })),
    /** The latest result of each check, in the order they ran. */
    results: z.array(CheckResultSchema),
    criteria: z.array(CriterionVerdictSchema),
  }),
);
export type PlanChecksView = z.infer<typeof PlanChecksViewSchema>;
