import type { ChangeEntryMeta, ReviewFile } from '../../../shared/contract';

const byPath = (a: ReviewFile, b: ReviewFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * Each review's rows by path and by where a rename came from. A fold hands its index on to the
 * review it makes, so a stream of changes costs per change, not per file listed.
 */
const indexes = new WeakMap<readonly ReviewFile[], Map<string, ReviewFile>>();

function indexOf(files: readonly ReviewFile[]): Map<string, ReviewFile> {
  let index = indexes.get(files);
  if (!index) {
    index = new Map();
    for (const file of files) addToIndex(index, file);
    indexes.set(files, index);
  }
  return index;
}

function addToIndex(index: Map<string, ReviewFile>, file: ReviewFile): void {
  index.set(file.path, file);
  // A row at a path wins over a rename that left it: a file may be created where another moved from.
  if (file.oldPath && index.get(file.oldPath)?.path !== file.oldPath) index.set(file.oldPath, file);
}

/** The review's row of `path` (not of where a rename came from), found through the review's index. */
export function reviewFileAt(files: readonly ReviewFile[], path: string | null): ReviewFile | undefined {
  if (path === null) return undefined;
  const file = indexOf(files).get(path);
  return file?.path === path ? file : undefined;
}

/** The first place in `files` (in path order) whose path sorts after `path`. */
function insertionPoint(files: readonly ReviewFile[], path: string): number {
  let lo = 0;
  let hi = files.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (files[mid].path <= path) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `files` with `added` (both in path order) put in their places: a search per added row and block copies. */
function insertSorted(files: readonly ReviewFile[], added: readonly ReviewFile[]): ReviewFile[] {
  // Many rows at once (a backlog after a load): one sort is cheaper than a search each.
  if (added.length > 256) return [...files, ...added].sort(byPath);
  const parts: ReviewFile[][] = [];
  let from = 0;
  for (const row of added) {
    const at = insertionPoint(files, row.path);
    parts.push(files.slice(from, at), [row]);
    from = at;
  }
  parts.push(files.slice(from));
  return ([] as ReviewFile[]).concat(...parts);
}

export interface ReviewSummary {
  applied: number;
  /** Files not applied in full yet. */
  left: number;
  /** Files applied in part or in full. */
  touched: number;
  insertions: number;
  deletions: number;
}

const summaries = new WeakMap<readonly ReviewFile[], ReviewSummary>();

function count(summary: ReviewSummary, file: ReviewFile, sign: 1 | -1): void {
  if (file.state === 'applied') summary.applied += sign;
  else summary.left += sign;
  if (file.state !== 'remaining') summary.touched += sign;
  summary.insertions += sign * file.insertions;
  summary.deletions += sign * file.deletions;
}

/** Counts over a review, once per review (a fold carries them over): views read them on every store update. */
export function reviewSummary(files: readonly ReviewFile[]): ReviewSummary {
  let summary = summaries.get(files);
  if (!summary) {
    summary = { applied: 0, left: 0, touched: 0, insertions: 0, deletions: 0 };
    for (const file of files) count(summary, file, 1);
    summaries.set(files, summary);
  }
  return summary;
}

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
  const index = indexOf(files);
  const replaced = new Map<ReviewFile, ReviewFile>();
  const added: ReviewFile[] = [];
  let needsHost = false;
  for (const entry of entries) {
    const row = index.get(entry.path) ?? (entry.oldPath !== null ? index.get(entry.oldPath) : undefined);
    if (row) {
      if (row.entryIds.includes(entry.id)) continue;
      const decisionIds = entry.decisionId && !row.decisionIds.includes(entry.decisionId) ? [...row.decisionIds, entry.decisionId] : row.decisionIds;
      const next: ReviewFile = { ...row, entryIds: [...row.entryIds, entry.id], decisionIds, steps: decisionIds.map((id) => ({ id, description: describe(id) })), state: 'remaining', editedByOperator: row.editedByOperator || entry.origin === 'operator' };
      const fresh = added.indexOf(row);
      if (fresh >= 0) added[fresh] = next;
      else replaced.set([...replaced].find(([, current]) => current === row)?.[0] ?? row, next);
      addToIndex(index, next);
      needsHost = true;
      continue;
    }
    const created: ReviewFile = {
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
      editedByOperator: entry.origin === 'operator',
    };
    added.push(created);
    addToIndex(index, created);
  }
  if (added.length === 0 && replaced.size === 0) return { files: files as ReviewFile[], needsHost };
  const summary = { ...reviewSummary(files) };
  for (const [before, after] of replaced) {
    count(summary, before, -1);
    count(summary, after, 1);
  }
  for (const row of added) count(summary, row, 1);
  const kept = replaced.size === 0 ? files : files.map((f) => replaced.get(f) ?? f);
  // The host lists files in path order.
  const result = added.length === 0 ? [...kept] : insertSorted(kept, added.sort(byPath));
  // The index now describes the new review; the old one's is built again if it is folded twice.
  indexes.delete(files);
  indexes.set(result, index);
  summaries.set(result, summary);
  return { files: result, needsHost };
}
