import { z } from 'zod';
import { type BudgetMore, BudgetMoreSchema } from './agent';
import type { ProcessingState } from './domain';
import { checksFailed } from './checks';
import {
  ALLOWED,
  alreadyRunning,
  answerable,
  controlsRun,
  failedChecksReason,
  fixable,
  forkable,
  heldByRun,
  isRunnable,
  type PlanFacts,
  quoted,
  refuse,
  rewindable,
  sandboxGone,
  stepFixable,
  type Verdict,
  waitsForAnswer,
} from './action-rules';
import { action, type ActionSpec } from './action-spec';
import { STATUS_LABELS, requiredStatuses, statusLabel, wrongPhaseMessage, wrongStateMessage } from './vocabulary';

export type { ActionSpec, KeyBinding } from './action-spec';

/**
 * Every operator action, declared once: its id (the entry's key), its words, its keys, its
 * arguments, when a plan allows it and how the command line spells it. The ids and what records
 * say with them are derived from this table (shared/action-ids.ts). The engine enforces `allowed`
 * (`requireAllowed`), and the CLI, the router and the console's buttons, failure card and keyboard
 * are all driven by this table (docs/ARCHITECTURE.md, "Operator actions").
 */

/**
 * What an errored plan goes on with instead of run (or retry): a failed step is retried; failed
 * checks are run again or handed to the agent, as far as those rules allow now.
 */
function afterError(p: PlanFacts): string {
  if (p.phase !== 'apply') return 'retry it to go on from the failed step';
  if (p.errorDetails?.category !== 'verification') return 'resolve the conflicts, then apply again';
  const verify = ACTIONS.verify.allowed(p);
  // Nothing runs in a sandbox that is gone: that refusal says what is left.
  if (!verify.allowed) return verify.reason;
  // Words, not commands: the console shows this reason beside its buttons, the CLI beside its next-step line.
  const correct = ACTIONS.correct.allowed(p).allowed ? ', or ask the agent to fix it' : '';
  return `fix the cause and run the checks again${correct}`;
}

// Argument schemas are built when first asked for: a start of the CLI builds none of them.
const none = () => z.object({}).strict();
const stepNumber = () => z.number().int().positive();

export const ACTIONS = {
  run: action({
    id: 'run',
    channel: 'plans.run',
    label: 'Run',
    title: 'Run the plan',
    description: 'Run the plan: strategize and execute, stopping before apply',
    args: () => z.object({ step: z.boolean().default(false) }).strict(),
    allowed: (p) => {
      if (!isRunnable(p)) {
        const after = waitsForAnswer(p) ? '; approve or reject the waiting call first' : p.processingState === 'errored' ? `; ${afterError(p)}` : '';
        return refuse(wrongStateMessage(p, 'run', [STATUS_LABELS.ready_to_run]) + after);
      }
      return alreadyRunning(p) ?? sandboxGone(p) ?? ALLOWED;
    },
    cli: { command: 'run' },
  }),
  step: action({
    id: 'step',
    channel: 'plans.step',
    label: 'Step',
    title: 'Run one step',
    description: 'Run exactly one decision, then pause (starts a Ready to run plan in step mode)',
    keys: [{ key: 's', help: 'Step: run one decision (starts a queued plan in step mode)' }],
    args: none,
    allowed: (p) => (isRunnable(p) && !p.runHere ? (alreadyRunning(p) ?? sandboxGone(p) ?? ALLOWED) : controlsRun(p, 'step', [STATUS_LABELS.ready_to_run, STATUS_LABELS.running, STATUS_LABELS.paused])),
  }),
  continue: action({
    id: 'continue',
    channel: 'plans.continue',
    label: 'Continue',
    title: 'Continue',
    description: 'Continue to the end or the next breakpoint',
    keys: [{ key: 'c', help: 'Continue to the end or the next breakpoint' }],
    args: none,
    allowed: (p) => controlsRun(p, 'continue', [STATUS_LABELS.running, STATUS_LABELS.paused]),
  }),
  pause: action({
    id: 'pause',
    channel: 'plans.pause',
    label: 'Pause',
    title: 'Pause',
    description: 'Pause before the next decision',
    keys: [{ key: 'p', help: 'Pause before the next decision' }],
    args: none,
    allowed: (p) => (p.processingState === 'paused' && !waitsForAnswer(p) ? refuse(wrongStateMessage(p, 'pause', [STATUS_LABELS.running])) : controlsRun(p, 'pause', [STATUS_LABELS.running])),
  }),
  retry: action({
    id: 'retry',
    channel: 'plans.retry',
    label: 'Retry',
    title: 'Retry from the failed step',
    description: 'Retry the failed phase from the failed step',
    keys: [{ key: 'r', help: 'Retry an errored plan from the failed step' }],
    args: none,
    allowed: (p) => {
      if (p.processingState !== 'errored') return refuse(wrongStateMessage(p, 'retry', [STATUS_LABELS.failed, STATUS_LABELS.interrupted]));
      if (p.phase === 'apply' && p.errorDetails?.category === 'verification') return refuse(`plan ${p.id}'s checks failed; ${afterError(p)}`);
      if (p.phase === 'apply') return refuse(`plan ${p.id} failed to apply; ${afterError(p)}`);
      return alreadyRunning(p) ?? sandboxGone(p) ?? ALLOWED;
    },
    cli: { command: 'retry' },
  }),
  reset: action({
    id: 'reset',
    channel: 'plans.reset',
    label: 'Reset',
    title: 'Mark ready to run',
    description: `Mark the plan ${STATUS_LABELS.ready_to_run} again, for manual recovery`,
    args: none,
    allowed: (p) => (p.processingState === 'errored' ? ALLOWED : refuse(wrongStateMessage(p, 'reset', requiredStatuses(p.phase, ['errored'])))),
    cli: { command: 'reset' },
  }),
  apply: action({
    id: 'apply',
    channel: 'plans.apply',
    label: 'Apply',
    title: 'Apply the changes',
    description: 'Apply the changeset (or the files and hunks chosen) to the project',
    args: () => z
      .object({
        paths: z.array(z.string().min(1).max(4096)).max(100_000).optional(),
        /** Per file, the hunks (1-based) to apply; the file's other hunks stay for later. */
        hunks: z.record(z.string().min(1).max(4096), z.array(stepNumber()).min(1).max(100_000)).optional(),
        force: z.boolean().default(false),
        /** Apply although a check failed: the operator's confirmation (README.md, "Verify"). */
        acceptFailedChecks: z.boolean().default(false),
      })
      .strict(),
    allowed: (p) => {
      const states: ProcessingState[] = ['queued', 'errored'];
      if (p.phase !== 'apply' || !states.includes(p.processingState)) return refuse(wrongPhaseMessage(p, 'apply', 'apply', states), 'wrong_phase');
      if (p.projectPath === null && !p.gitProject) return refuse(`plan ${p.id} has no project directory to apply to`, 'no_project');
      return checksFailed(p.checks) ? { allowed: true, confirm: failedChecksReason(p) } : ALLOWED;
    },
    confirmedBy: 'acceptFailedChecks',
    cli: { command: 'apply', options: (a) => (a.acceptFailedChecks ? '--accept-failed-checks' : '') },
  }),
  discard: action({
    id: 'discard',
    channel: 'plans.discard',
    label: 'Discard',
    title: 'Discard the plan',
    description: 'Discard the plan and its sandbox (after a partial apply: drop the rest)',
    args: none,
    allowed: (p) => {
      const held = heldByRun(p, 'discarding');
      if (held) return held;
      if (p.processingState === 'cancelled' || p.processingState === 'complete') return refuse(`plan ${p.id} is already ${statusLabel(p)}`);
      return ALLOWED;
    },
    cli: { command: 'discard' },
  }),
  approve: action({
    id: 'approve',
    channel: 'plans.approve',
    label: 'Approve',
    title: 'Approve',
    description: 'Approve the call the plan waits for (with all: every later call of its tool), then go on with the run',
    keys: [
      { key: 'a', args: { all: false }, help: 'Approve the tool call the plan waits for' },
      { key: 'A', args: { all: true }, help: 'Approve this call and every later call of its tool' },
    ],
    args: () => z
      .object({
        all: z.boolean().default(false),
        /** A step out of budget: how many more turns or output tokens it gets; a plan over its cost, how many more US dollars. */
        more: BudgetMoreSchema.optional(),
        /** An MCP server's question: the operator's answer, checked against the question's schema. */
        input: z.record(z.string(), z.unknown()).optional(),
      })
      .strict(),
    allowed: (p) => answerable(p),
    cli: {
      command: 'approve',
      options: (a) => {
        const more = a.more as BudgetMore | undefined;
        return a.input ? `--input ${quoted(JSON.stringify(a.input), 'JSON')}` : a.all ? '--all' : more?.turns ? `--turns ${more.turns}` : more?.outputTokens ? `--tokens ${more.outputTokens}` : more?.costUsd ? `--cost ${more.costUsd}` : '';
      },
    },
  }),
  reject: action({
    id: 'reject',
    channel: 'plans.reject',
    label: 'Reject',
    title: 'Reject',
    description: "Reject the call the plan waits for, with a reason; the run goes on and the step fails (an MCP server's question: declined, or with cancel cancelled)",
    keys: [{ key: 'x', help: 'Reject the waiting call: type the reason, then Enter' }],
    args: () =>
      z
        .object({
          reason: z.string().trim().min(1, 'say why the call is rejected').max(2000),
          /** An MCP server's question: cancel it (the server hears cancel) rather than decline it. */
          cancel: z.literal(true).optional(),
        })
        .strict(),
    allowed: (p) => answerable(p),
    cli: { command: 'reject', options: (a) => `${a.cancel ? '--cancel ' : ''}--reason ${quoted(a.reason, 'why')}` },
  }),
  skip: action({
    id: 'skip',
    channel: 'plans.skip',
    label: 'Skip step',
    title: 'Skip step',
    description: 'Mark the failed step (or the step named) skipped; Run then goes on with the next step',
    args: () => z.object({ step: stepNumber().optional() }).strict(),
    allowed: (p) => stepFixable(p, 'skip'),
    cli: { command: 'skip', options: (a) => (a.step ? `--step ${String(a.step)}` : '') },
  }),
  edit_step: action({
    id: 'edit_step',
    label: 'Edit step',
    title: 'Edit the step',
    description: "Replace a step's tool calls (and description) from a file with step: and tools:",
    args: () => z.object({ step: stepNumber(), file: z.string().min(1) }).strict(),
    allowed: (p) => stepFixable(p, 'edit-step'),
    cli: { command: 'edit-step', options: (a) => `--step ${typeof a.step === 'number' ? a.step : 'N'} --file ${typeof a.file === 'string' ? a.file : 'step.yaml'}` },
  }),
  set_profile: action({
    id: 'set_profile',
    channel: 'plans.setProfile',
    label: 'Change profile',
    title: 'Change profile',
    description: 'Switch the plan to another automation profile; Run then goes on from the failed step',
    args: () => z.object({ profile: z.string().min(1) }).strict(),
    allowed: (p) => fixable(p, 'profile'),
    cli: { command: 'profile', options: (a) => (typeof a.profile === 'string' ? a.profile : 'PROFILE') },
  }),
  replan: action({
    id: 'replan',
    label: 'Replan',
    title: 'Replan the steps not done',
    description: 'Go back to strategize for the steps not done: a plan file (or, for an agent plan, the model) gives new ones',
    args: () => z.object({ file: z.string().min(1).optional() }).strict(),
    allowed: (p) => {
      const verdict = fixable(p, 'replan');
      if (!verdict.allowed) return verdict;
      return p.hasTree ? ALLOWED : refuse(`plan ${p.id} has no decision tree yet; run it to strategize`);
    },
    cli: { command: 'replan', options: (a) => `--file ${typeof a.file === 'string' ? a.file : 'plan.yaml'}` },
  }),
  correct: action({
    id: 'correct',
    channel: 'plans.correct',
    label: 'Ask the agent',
    title: 'Ask the agent to fix it',
    description: 'The model runs the failed step (or, ready to apply, the last step) again, told of the failure, your review and your note',
    args: () => z.object({ note: z.string().trim().max(4000).optional() }).strict(),
    allowed: (p) => {
      if (!p.agent) return refuse(`plan ${p.id} is not an agent plan; only a model can correct a step (retry it instead)`, 'not_agent');
      // A failed check stops the plan before apply: the model is given its output and works on the last step.
      const checksStop = p.processingState === 'errored' && p.phase === 'apply' && p.errorDetails?.category === 'verification';
      // Ready to apply: the operator's review (declined hunks, hand edits) is what the model corrects.
      const reviewed = p.processingState === 'queued' && p.phase === 'apply' && p.steps > 0;
      if (!checksStop && !reviewed && (p.processingState !== 'errored' || p.phase !== 'execute')) return refuse(wrongStateMessage(p, 'correct', [STATUS_LABELS.failed, STATUS_LABELS.checks_failed, STATUS_LABELS.ready_to_apply]));
      if (!checksStop && !reviewed && !p.failedStep) return refuse(`plan ${p.id} has no failed step to correct`);
      // Applied hunks are counted against the review as it is: a step run again would move them.
      if (reviewed && p.partlyApplied) return refuse(`plan ${p.id} is partly applied; the agent can correct it only before anything is applied (apply the rest, or discard it)`);
      return alreadyRunning(p) ?? sandboxGone(p) ?? ALLOWED;
    },
    cli: { command: 'correct', options: (a) => `--note ${quoted(a.note, 'what to do differently')}` },
  }),
  verify: action({
    id: 'verify',
    channel: 'plans.verify',
    label: 'Run checks',
    title: 'Run the checks again',
    description: "Run the plan's checks in its sandbox again and give each criterion its verdict",
    args: none,
    allowed: (p) => {
      const states: ProcessingState[] = ['queued', 'errored'];
      if (p.phase !== 'apply' || !states.includes(p.processingState)) return refuse(wrongPhaseMessage(p, 'verify', 'apply', states), 'wrong_phase');
      return alreadyRunning(p) ?? sandboxGone(p) ?? ALLOWED;
    },
    cli: { command: 'verify' },
  }),
  rewind: action({
    id: 'rewind',
    channel: 'plans.rewind',
    label: 'Rewind',
    title: 'Rewind to before this step',
    description: 'Put the sandbox, the changes and the steps back to how they were before the step started; the later steps run again',
    args: () => z.object({ toStep: stepNumber() }).strict(),
    allowed: rewindable,
    cli: { command: 'rewind', options: (a) => `--to-step ${typeof a.toStep === 'number' ? a.toStep : 'N'}` },
  }),
  fork: action({
    id: 'fork',
    channel: 'plans.fork',
    label: 'Fork',
    title: 'Fork from here',
    description: 'Make a new plan that shares the steps before this one and goes on from its checkpoint, with another profile, model or steps; the new plan is not run',
    args: () => z
      .object({
        atStep: stepNumber(),
        profile: z.string().min(1).optional(),
        model: z.string().min(1).max(200).optional(),
        /** A plan file whose definition of done holds the steps from `atStep` on (as replan takes). */
        file: z.string().min(1).optional(),
      })
      .strict(),
    allowed: forkable,
    cli: { command: 'fork', options: (a) => `--at-step ${typeof a.atStep === 'number' ? a.atStep : 'N'}` },
  }),
  compare: action({
    id: 'compare',
    channel: 'plans.compare',
    label: 'Compare',
    title: 'Compare with another run',
    description: 'Set two plans over the same project side by side: the files each changed, how their results differ, and what each run took',
    args: () => z.object({ with: z.string().min(1).max(64) }).strict(),
    // Reading only: any plan can be compared; that the two share a project is checked with both in hand.
    allowed: () => ALLOWED,
    cli: { command: 'compare', options: (a) => (typeof a.with === 'string' ? a.with : 'OTHER') },
  }),
  show_errors: action({
    id: 'show_errors',
    channel: 'plans.errors',
    label: 'Errors',
    title: 'Read the error history',
    description: 'Read the full error history: every attempt, and what was done about it',
    args: none,
    allowed: () => ALLOWED,
    cli: { command: 'errors' },
  }),
} as const satisfies Record<string, ActionSpec>;

/** An action's id: a key of the table (shared/action-ids.ts names it for the records that use it). */
type ActionId = keyof typeof ACTIONS;
/** The ids in the order the table declares them and lists show them. */
export const ACTION_IDS = Object.keys(ACTIONS) as ActionId[];

export type ActionArgs<A extends ActionId> = z.input<(typeof ACTIONS)[A]['args']>;

/** The channel that performs action `A` (never for an action of the command line only). */
export type ActionChannelOf<A extends ActionId> = NonNullable<(typeof ACTIONS)[A]['channel']>;
/** The actions a client of the host can ask for: those with a channel. */
export type ChannelAction = { [A in ActionId]: [ActionChannelOf<A>] extends [never] ? never : A }[ActionId];

/** What a plan allows while a rewind of it is unfinished: the rewind again (to finish it), discard, and reading (its errors, a comparison). */
const WHILE_REWIND_UNFINISHED: ReadonlySet<ActionId> = new Set(['rewind', 'discard', 'show_errors', 'compare']);

/** The toolbar's controls, in order. */
export const TOOLBAR_ACTIONS = ['run', 'step', 'continue', 'pause', 'retry', 'reset', 'apply', 'discard'] as const satisfies readonly ActionId[];

/**
 * Whether the plan allows the action with these arguments: an action the rule allows only once
 * confirmed is refused, with the rule's reason, unless `args` carry its `confirmedBy` argument.
 * Without `args`, whether the rule allows it at all (a confirmation may still be asked for).
 */
export function allowed(action: ActionId, plan: PlanFacts, args?: Record<string, unknown>): Verdict {
  const spec: ActionSpec = ACTIONS[action];
  const unfinished = plan.rewindPending ?? null;
  if (unfinished !== null && !WHILE_REWIND_UNFINISHED.has(action)) {
    if (plan.running) return refuse(`plan ${plan.id} is being rewound; wait for the rewind to finish`);
    return refuse(`plan ${plan.id} has an unfinished rewind; finish it by rewinding to before step ${unfinished} again, or discard the plan`);
  }
  const verdict = spec.allowed(plan);
  if (args === undefined || !verdict.allowed || verdict.confirm === undefined) return verdict;
  return spec.confirmedBy && args[spec.confirmedBy] === true ? { allowed: true } : refuse(verdict.confirm);
}

/** Each action with whether the plan allows it and, if not, why: what `plan show --json` and `plans.get` list. */
export function actionList(plan: PlanFacts): { id: ActionId; allowed: boolean; reason: string | null; confirm?: string }[] {
  return ACTION_IDS.map((id) => {
    const verdict = allowed(id, plan);
    if (!verdict.allowed) return { id, allowed: false, reason: verdict.reason };
    return verdict.confirm === undefined ? { id, allowed: true, reason: null } : { id, allowed: true, reason: null, confirm: verdict.confirm };
  });
}

/** `agents plan skip P --step 2`: the command that takes a next step, with placeholders for what the operator supplies. */
export function commandLine(planId: string, step: { action: ActionId; args: Record<string, unknown> }): string | null {
  const { cli } = ACTIONS[step.action] as ActionSpec;
  if (!cli) return null;
  const options = cli.options?.(step.args) ?? '';
  return `agents plan ${cli.command} ${planId}${options ? ` ${options}` : ''}`;
}
