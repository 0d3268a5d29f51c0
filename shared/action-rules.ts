// What a plan allows: the facts the actions' rules read, and the rules several actions share.
// The table of actions (actions.ts) is built from these; they know nothing of it.
import type { ErrorCode } from './errors';
import type { Plan } from './domain';
import type { PlanChecksSummary } from './checks';
import { type PlanStanding, STATUS_LABELS, statusLabel, wrongStateMessage } from './vocabulary';

/** What the rules read about a plan: its standing and what the stores and processes say about it. */
export interface PlanFacts extends PlanStanding {
  id: string;
  projectPath: string | null;
  /** The project is a git repository (team mode): apply writes to a clone or a new branch of it. */
  gitProject?: boolean;
  /** An agent plan: a model proposes its steps and can correct one. */
  agent: boolean;
  /** A run holds the plan: a process is running it (this one or another), or its state says so. */
  running: boolean;
  /** That run is this process's: step, continue and pause reach only a run of the process asked. */
  runHere: boolean;
  /** A call (or a proposed tree) waits for the operator's answer. */
  pendingApproval: boolean;
  /** A step failed, or was cut off while it ran. */
  failedStep: boolean;
  /** The decision tree's steps so far. */
  steps: number;
  /** The tree has a root: strategize has run at least once. */
  hasTree: boolean;
  /** The sandbox folder the plan ran in, when it is gone from the disk: nothing can run in it again. */
  missingSandbox: string | null;
  /** How the plan's last verify pass came out (README.md, "Verify"); absent or null before one ran. */
  checks?: PlanChecksSummary | null;
  /** Checkpoints recorded so far (one as each step starts): what rewind goes back to. */
  checkpoints: number;
  /** Part of the changeset is in the project already: a rewind would leave the two apart. */
  partlyApplied: boolean;
  /** A rewind (to before this step) began and did not finish: the sandbox may be half restored. */
  rewindPending?: number | null;
}

/** The facts read off the plan itself, as the engine and the console both see them. */
export function factsOfPlan(plan: Plan): Pick<PlanFacts, 'id' | 'phase' | 'processingState' | 'waitingFor' | 'errorDetails' | 'projectPath' | 'gitProject' | 'agent' | 'hasTree' | 'checks' | 'rewindPending'> {
  const { id, phase, processingState, waitingFor, errorDetails, projectPath } = plan;
  return { id, phase, processingState, waitingFor, errorDetails, projectPath, gitProject: Boolean(plan.projectSource), agent: Boolean(plan.agent || plan.acp), hasTree: plan.decisionRootId !== null, checks: plan.checks ?? null, rewindPending: unfinishedRewind(plan) };
}

/** The step an unfinished rewind of the plan goes back to before, as the plan records a rewind that failed; null when there is none. */
export function unfinishedRewind(plan: Pick<Plan, 'errorDetails'>): number | null {
  const { rewindFailed, toStep } = plan.errorDetails ?? {};
  return rewindFailed === true && typeof toStep === 'number' ? toStep : null;
}

/**
 * `confirm`: allowed only once the operator confirms, for that reason (apply after a failed check);
 * the action's `confirmedBy` argument says so, and without it the action is refused with the reason.
 */
export type Verdict = { allowed: true; confirm?: string } | { allowed: false; reason: string; code: ErrorCode };

export const ALLOWED: Verdict = { allowed: true };
export const refuse = (reason: string, code: ErrorCode = 'wrong_state'): Verdict => ({ allowed: false, reason, code });

/** A queued plan that has not reached apply can run (strategize, then execute). */
export const isRunnable = (p: Pick<PlanStanding, 'phase' | 'processingState'>): boolean => p.processingState === 'queued' && (p.phase === 'strategize' || p.phase === 'execute');
const inRun = (p: PlanFacts) => p.processingState === 'processing' || p.processingState === 'paused';
export const waitsForAnswer = (p: PlanFacts) => p.waitingFor === 'approval';

/** A run already holds the plan: by this process, or by another. */
export function alreadyRunning(p: PlanFacts): Verdict | null {
  if (p.runHere) return refuse(`plan ${p.id} is already running`);
  return p.running ? refuse(`plan ${p.id} is being run by another process`) : null;
}

/** A run (or the rest of one) needs the plan's sandbox: one whose folder is gone can only be applied from what it recorded. */
export function sandboxGone(p: PlanFacts): Verdict | null {
  if (p.missingSandbox === null) return null;
  return refuse(`plan ${p.id} cannot run: its sandbox ${p.missingSandbox} is gone; apply what it recorded, or discard the plan and create it again`);
}

/** Step, continue and pause act on a run of this process that is not waiting for an answer. */
export function controlsRun(p: PlanFacts, action: string, needs: string[]): Verdict {
  if (waitsForAnswer(p)) return refuse(`plan ${p.id} is ${statusLabel(p)}; approve or reject the waiting call first`);
  // A run this process has just started may not have moved the plan's state yet.
  if (p.runHere) return ALLOWED;
  return inRun(p) ? refuse(`plan ${p.id} is not running in this process`, 'not_running') : refuse(wrongStateMessage(p, action, needs));
}

/**
 * A run holds the plan: refused with what stops it, from the console or from the terminal the run
 * is in (the CLI has no pause: Ctrl-C stops a run before its next step), and the status as every
 * command words it.
 */
export function heldByRun(p: PlanFacts, before: string): Verdict | null {
  if (!(p.running || p.processingState === 'processing')) return null;
  const status = p.processingState === 'paused' ? statusLabel(p) : STATUS_LABELS.running;
  // An apply in progress is not stopped, only waited for.
  if (p.phase === 'apply') return refuse(`plan ${p.id} is ${status} (applying); wait for the apply to end before ${before}`);
  return refuse(`plan ${p.id} is ${status}; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before ${before}`);
}

/** Fixing in place (skip, edit a step, change the profile, replan): the plan is stopped before apply. */
export function fixable(p: PlanFacts, action: string): Verdict {
  const held = heldByRun(p, 'changing it');
  if (held) return held;
  if (p.phase === 'apply' || p.processingState === 'complete' || p.processingState === 'cancelled') {
    return refuse(wrongStateMessage(p, action, [STATUS_LABELS.ready_to_run, STATUS_LABELS.failed, STATUS_LABELS.interrupted, STATUS_LABELS.paused]));
  }
  return ALLOWED;
}

/** Skip and edit a step: a fixable plan that has steps. */
export function stepFixable(p: PlanFacts, action: string): Verdict {
  const verdict = fixable(p, action);
  if (!verdict.allowed) return verdict;
  return p.steps === 0 ? refuse(`plan ${p.id} has no steps yet; run it to strategize`) : ALLOWED;
}

/** Rewind: a plan stopped before it is applied, with a checkpoint to go back to. */
export function rewindable(p: PlanFacts): Verdict {
  const held = heldByRun(p, 'rewinding');
  if (held) return held;
  if (waitsForAnswer(p)) return refuse(`plan ${p.id} is ${statusLabel(p)}; approve or reject the waiting call first`);
  if (p.processingState === 'complete' || p.processingState === 'cancelled') {
    return refuse(wrongStateMessage(p, 'rewind', [STATUS_LABELS.ready_to_run, STATUS_LABELS.failed, STATUS_LABELS.interrupted, STATUS_LABELS.ready_to_apply]));
  }
  if (p.partlyApplied) return refuse(`plan ${p.id} is partly applied; a rewind would leave the project and the changeset apart (apply the rest, or discard it)`);
  return sandboxGone(p) ?? (p.checkpoints === 0 ? refuse(`plan ${p.id} has no checkpoint yet; one is recorded as each step starts`) : ALLOWED);
}

/** Fork: a plan no run holds, with a checkpoint to start the new plan from (the origin itself is not changed). */
export function forkable(p: PlanFacts): Verdict {
  return heldByRun(p, 'forking') ?? (p.checkpoints === 0 ? refuse(`plan ${p.id} has no checkpoint yet; one is recorded as each step starts`) : ALLOWED);
}

/** Approve and reject: a call waits for the answer, and the run it stopped has ended. */
export function answerable(p: PlanFacts): Verdict {
  if (!p.pendingApproval) return refuse(`plan ${p.id} has no call waiting for approval (it is ${statusLabel(p)})`);
  return p.runHere ? refuse(`plan ${p.id} is still stopping; answer again in a moment`) : (sandboxGone(p) ?? ALLOWED);
}

/** `check "npm test" failed; ...`: names the failed checks and the confirmation that applies anyway. */
export function failedChecksReason(p: PlanFacts): string {
  const names = p.checks?.failedChecks ?? [];
  const named = names.map((n) => JSON.stringify(n)).join(', ');
  return `plan ${p.id}: ${names.length === 1 ? 'check' : 'checks'} ${named} failed; apply with --accept-failed-checks to apply anyway`;
}

export function quoted(value: unknown, placeholder: string): string {
  return JSON.stringify(typeof value === 'string' && value !== '' ? value : placeholder);
}
