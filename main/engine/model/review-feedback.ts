import type { RejectedHunk } from '../../../shared/review-feedback';

/** The operator's review of the plan so far, as the model is told of it. */
export interface ReviewFeedback {
  rejected: readonly RejectedHunk[];
  /** Files the operator changed by hand in the sandbox. */
  handEdited: readonly string[];
}

/**
 * What the review may add to a prompt: at most `hunks` declined hunks shown, `files` hand-edited
 * files named, and `chars` characters in all; the rest is counted, so a long review cannot crowd
 * out the step.
 */
export const REVIEW_FEEDBACK_BUDGET = { hunks: 8, files: 20, chars: 6000 } as const;

/** The review as a prompt section; empty when there is nothing to tell. */
export function reviewFeedbackText(feedback: ReviewFeedback, budget: { hunks: number; files: number; chars: number } = REVIEW_FEEDBACK_BUDGET): string {
  const parts: string[] = [];
  let used = 0;
  const fits = (text: string) => used + text.length + 2 <= budget.chars;
  if (feedback.rejected.length > 0) {
    const head = 'The operator reviewed the changes and declined these hunks. Do not make them again; where a reason is given, do what it asks instead:';
    parts.push(head);
    used += head.length;
    // The newest first: the latest verdicts matter most when not all fit.
    const newest = [...feedback.rejected].reverse();
    let shown = 0;
    for (const r of newest) {
      const text = `${r.path}, hunk ${r.hunk}${r.reason ? ` (reason: ${r.reason})` : ' (no reason given)'}:\n${r.lines}`;
      if (shown >= budget.hunks || !fits(text)) break;
      parts.push(text);
      used += text.length + 2;
      shown++;
    }
    const left = newest.length - shown;
    if (left > 0) {
      const files = new Set(newest.slice(shown).map((r) => r.path)).size;
      parts.push(`… and ${left} more declined hunk${left === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}, not shown.`);
    }
  }
  if (feedback.handEdited.length > 0) {
    const named = feedback.handEdited.slice(0, budget.files);
    const more = feedback.handEdited.length - named.length;
    let text = `The operator edited these files by hand; keep their edits: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`;
    if (!fits(text)) text = `The operator edited ${feedback.handEdited.length} file${feedback.handEdited.length === 1 ? '' : 's'} by hand; keep their edits.`;
    parts.push(text);
  }
  return parts.join('\n\n');
}
