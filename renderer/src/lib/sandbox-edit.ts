import type { DiffHunk } from '../../../shared/changes';
import type { Plan } from '../../../shared/domain';
import type { ToolInvocation } from '../../../shared/tool-calls';

/** The plan's sandbox, while the operator may still change it (not discarded, not complete). */
export function sandboxOf(plan: Pick<Plan, 'sandboxRefs' | 'processingState'>): string | null {
  if (plan.processingState === 'cancelled' || plan.processingState === 'complete') return null;
  return plan.sandboxRefs[0] ?? null;
}

/** Whether the operator may save into the sandbox now: it exists and no run is using it (the host checks too). */
export function canEditSandbox(plan: Pick<Plan, 'sandboxRefs' | 'processingState'>): boolean {
  return sandboxOf(plan) !== null && plan.processingState !== 'processing';
}

const HEADER = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

/**
 * The file as it was at the sandbox's base, rebuilt from its text now and the hunks of its net
 * change (the diff of base to now): outside the hunks the lines are the same, inside them the
 * removed and context lines are the base's. Null when the hunks do not fit the text (it changed
 * since the diff was read).
 */
export function baseFromHunks(current: string, hunks: readonly DiffHunk[]): string | null {
  const endsWithNewline = current.endsWith('\n');
  const lines = current === '' ? [] : (endsWithNewline ? current.slice(0, -1) : current).split('\n');
  const base: string[] = [];
  let next = 0; // index into `lines` of the first line not yet copied
  let baseEndsWithoutNewline = false;
  let reachesEnd = false;
  for (const hunk of hunks) {
    const header = HEADER.exec(hunk.header);
    if (!header) return null;
    const start = Number(header[1]);
    const count = header[2] === undefined ? 1 : Number(header[2]);
    // An empty new range sits after line `start`; a non-empty one begins at it.
    const first = count === 0 ? start : start - 1;
    if (first < next || first > lines.length) return null;
    base.push(...lines.slice(next, first));
    next = first;
    let previous: DiffHunk['rows'][number]['kind'] | null = null;
    for (const row of hunk.rows) {
      if (row.kind === 'note') {
        if (previous === 'del' || previous === 'context') baseEndsWithoutNewline = true;
      } else if (row.kind === 'add' || row.kind === 'context') {
        if (lines[next] !== row.text) return null;
        next += 1;
        if (row.kind === 'context') base.push(row.text);
      } else {
        base.push(row.text);
      }
      previous = row.kind;
    }
    reachesEnd = next === lines.length;
  }
  base.push(...lines.slice(next));
  if (base.length === 0) return '';
  const newline = hunks.length > 0 && reachesEnd ? !baseEndsWithoutNewline : endsWithNewline;
  return base.join('\n') + (newline ? '\n' : '');
}

/** The file the failed call was about: its `path` argument, else a path the error names. */
export function failedFilePath(invocations: readonly ToolInvocation[], decisionId: string | null, errorDetails: Record<string, unknown>): string | null {
  const failed = decisionId ? invocations.filter((i) => i.decisionId === decisionId && !i.ok).at(-1) : undefined;
  const argument = failed?.args.path ?? failed?.args.from;
  if (typeof argument === 'string' && argument !== '') return argument;
  return typeof errorDetails.path === 'string' && errorDetails.path !== '' ? errorDetails.path : null;
}
