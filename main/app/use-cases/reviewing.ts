import type { Plan } from '../../../shared/domain';
import { ValidationError } from '../../../shared/errors';
import { hunkText, REJECTION_LIMITS, type RejectedHunk, withRejections } from '../../../shared/review-feedback';
import type { ReviewFeedback } from '../../engine/model/review-feedback';
import type { PlanContext } from './plan-context';
import type { PlanReading } from './reading';

/**
 * The review's verdicts kept with the plan (README.md, "Review and apply"): hunks the operator
 * declined, and why, so a correction and every later step are told of them.
 */
export function planReviewing(ctx: PlanContext, reading: Pick<PlanReading, 'reviewDiff'>) {
  /** The file's hunks, checked against `hunks`; a one-line ValidationError names a file or number the review does not have. */
  const fileHunks = async (planId: string, path: string, hunks: readonly number[]) => {
    if (hunks.length === 0) throw new ValidationError('hunks', `name at least one hunk of "${path}"`);
    const { file, hunks: all } = await reading.reviewDiff(planId, path);
    if (all === null) throw new ValidationError('hunks', `"${file.path}" is a binary file: it has no hunks to reject`);
    const wrong = hunks.find((n) => !Number.isInteger(n) || n < 1 || n > all.length);
    if (wrong !== undefined) throw new ValidationError('hunks', `"${file.path}" has ${all.length} hunk${all.length === 1 ? '' : 's'}; there is no hunk ${wrong}`);
    return { path: file.path, all, listed: file.hunks };
  };

  /** The file's hunks as listed now; none when the review no longer has the file (its rejections then go by number). */
  const listedHunks = async (planId: string, path: string) => {
    try {
      return (await reading.reviewDiff(planId, path)).file.hunks;
    } catch (error) {
      if (error instanceof ValidationError) return [];
      throw error;
    }
  };

  return {
    /**
     * Records the hunks named per file (numbered as `agents plan diff` shows them) as declined,
     * with the reason. Every file and number is checked before any is recorded.
     */
    async rejectHunks(planId: string, request: { hunks: Record<string, number[]>; reason?: string; by: string }): Promise<Plan> {
      const files: ({ hunks: number[] } & Awaited<ReturnType<typeof fileHunks>>)[] = [];
      for (const [path, hunks] of Object.entries(request.hunks)) files.push({ hunks, ...(await fileHunks(planId, path, hunks)) });
      if (files.length === 0) throw new ValidationError('hunks', 'name at least one hunk, e.g. README.md:1');
      const reason = request.reason?.trim().slice(0, REJECTION_LIMITS.reason) || null;
      const at = new Date().toISOString();
      return ctx.lifecycle.unit(async () => {
        let rejected = (await ctx.get(planId)).rejectedHunks ?? [];
        for (const { path, all, listed, hunks } of files) {
          const added: RejectedHunk[] = [...new Set(hunks)].map((hunk) => ({
            path,
            hunk,
            lines: hunkText(all[hunk - 1]),
            key: listed[hunk - 1].key,
            reason,
            by: request.by,
            at,
          }));
          rejected = withRejections(rejected, path, hunks, added, listed);
        }
        return ctx.lifecycle.update(planId, { rejectedHunks: rejected });
      });
    },

    /** Takes hunks `hunks` of `path` out of the declined ones (the operator ticked them again). */
    async restoreHunks(planId: string, request: { path: string; hunks: number[] }): Promise<Plan> {
      const listed = await listedHunks(planId, request.path);
      return ctx.lifecycle.unit(async () => {
        const current = (await ctx.get(planId)).rejectedHunks ?? [];
        return ctx.lifecycle.update(planId, { rejectedHunks: withRejections(current, request.path, request.hunks, [], listed) });
      });
    },
  };
}

export type PlanReviewing = ReturnType<typeof planReviewing>;

/** What the model is told of the review: the declined hunks and the files the operator edited by hand. */
export async function reviewFeedbackOf(ctx: PlanContext, planId: string): Promise<ReviewFeedback> {
  const plan = await ctx.get(planId);
  const handEdited = new Set<string>();
  if (plan.changesetId) {
    const { changesets } = ctx.stores;
    const metas = await changesets.listEntryMeta(plan.changesetId, { offset: 0, limit: await changesets.countEntries(plan.changesetId) });
    for (const meta of metas) if (meta.origin === 'operator' && !meta.rewound) handEdited.add(meta.path);
  }
  return { rejected: plan.rejectedHunks ?? [], handEdited: [...handEdited] };
}
