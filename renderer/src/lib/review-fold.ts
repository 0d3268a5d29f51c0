import type { ChangeEntryMeta, ReviewFile } from '../../../shared/contract';

/**
 * The review with pushed entries folded in, and whether the host must net them. A path no row
 * touches yet gets its row from its entry alone (one change is its own net change); the host's
 * hunk list arrives with the file's diff. An entry on a path already in the review changes that
 * row's net change, which only the host computes: the row lists the entry, and the host is asked.
 */
export function foldEntries(
  files: readonly ReviewFile[],
  entries: readonly ChangeEntryMeta[],
  describe: (decisionId: string) => string,
): { files: ReviewFile[]; needsHost: boolean } {
  const next = [...files];
  const rowOf = new Map<string, number>();
  const index = (row: ReviewFile, at: number) => {
    rowOf.set(row.path, at);
    if (row.oldPath) rowOf.set(row.oldPath, at);
  };
  next.forEach(index);
  let needsHost = false;
  let added = false;
  for (const entry of entries) {
    const at = rowOf.get(entry.path) ?? (entry.oldPath !== null ? rowOf.get(entry.oldPath) : undefined);
    if (at !== undefined) {
      const row = next[at];
      if (row.entryIds.includes(entry.id)) continue;
      const decisionIds = entry.decisionId && !row.decisionIds.includes(entry.decisionId) ? [...row.decisionIds, entry.decisionId] : row.decisionIds;
      next[at] = { ...row, entryIds: [...row.entryIds, entry.id], decisionIds, steps: decisionIds.map((id) => ({ id, description: describe(id) })), state: 'remaining' };
      index(next[at], at);
      needsHost = true;
      continue;
    }
    const row: ReviewFile = {
      path: entry.path,
      oldPath: entry.operation === 'rename' ? entry.oldPath : null,
      operation: entry.operation,
      binary: entry.binary,
      insertions: entry.insertions,
      deletions: entry.deletions,
      entryIds: [entry.id],
      decisionIds: entry.decisionId ? [entry.decisionId] : [],
      steps: entry.decisionId ? [{ id: entry.decisionId, description: describe(entry.decisionId) }] : [],
      hunks: [],
      units: 1,
      appliedHunks: [],
      state: 'remaining',
    };
    next.push(row);
    index(row, next.length - 1);
    added = true;
  }
  // The host lists files in path order.
  if (added) next.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files: next, needsHost };
}
