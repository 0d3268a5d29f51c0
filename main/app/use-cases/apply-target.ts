import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Plan } from '../../../shared/domain';
import { ValidationError } from '../../../shared/errors';
import { redactUrl } from '../../../shared/redact';
import { applyToBranch, applyToClone, operatorAuthor } from '../../engine/changeset/apply-git';
import { type AppliedRecord, applyReviewed, type ReviewApplyResult, type Reviewed, type ReviewSelection } from '../../engine/changeset/review';

/** Where an apply writes: the plan's project (neither given), a local clone, or a new branch of its repository. */
export interface ApplyTarget {
  /** A folder, e.g. a local clone of the plan's git repository (`agents plan apply --project DIR`). */
  project?: string;
  /** A new branch pushed to the plan's git repository (`agents plan apply --branch NAME`). */
  branch?: string;
  /** The commit's author name (the operator's name setting); else the OS user. */
  author?: string;
}

export interface TargetResult extends ReviewApplyResult {
  branch?: { name: string; commit: string | null; url: string };
}

/** Bad input found before anything runs: a folder that is not one, both targets, no target for a git project. */
export function checkTarget(plan: Plan, target: ApplyTarget): void {
  if (target.project !== undefined && target.branch !== undefined) throw new ValidationError('--branch', 'give --project DIR or --branch NAME, not both');
  if (target.project !== undefined) {
    const dir = path.resolve(target.project);
    if (!(existsSync(dir) && statSync(dir).isDirectory())) throw new ValidationError('--project', `not a directory: ${dir}`);
    return;
  }
  if (target.branch !== undefined && !plan.projectSource) {
    throw new ValidationError('--branch', `plan ${plan.id}'s project is a folder, not a git repository: agents plan apply ${plan.id} writes into it`);
  }
  if (target.branch === undefined && plan.projectPath === null && plan.projectSource) {
    const url = redactUrl(plan.projectSource.git);
    throw new ValidationError('project', `plan ${plan.id}'s project is the git repository ${url}: give --project DIR (a local clone) or --branch NAME`);
  }
}

/**
 * The apply itself, at its target; `fromBase` is the review with nothing applied yet, as a new
 * branch at the base commit needs every accepted change.
 */
export async function applyAtTarget(
  plan: Plan,
  reviewed: readonly Reviewed[],
  applied: readonly AppliedRecord[],
  fromBase: () => Promise<readonly Reviewed[]>,
  selection: ReviewSelection,
  target: ApplyTarget,
): Promise<TargetResult> {
  if (target.branch !== undefined && plan.projectSource) {
    const message = `${plan.name}\n\nThe reviewed changes of plan ${plan.id}.`;
    const result = await applyToBranch(plan.projectSource, target.branch, await fromBase(), { message, author: operatorAuthor(target.author), selection });
    return { ...result, branch: { name: result.branch, commit: result.commit, url: result.url } };
  }
  if (target.project !== undefined) return applyToClone(path.resolve(target.project), plan.projectSource ?? null, reviewed, applied, selection);
  return applyReviewed(plan.projectPath as string, reviewed, applied, selection);
}
