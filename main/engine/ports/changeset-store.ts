import type { ChangeEntryMeta } from '../../../shared/contract';
import type { ChangeEntry, ChangeSet, ChangeSetSummary } from '../../../shared/changes';
import { countLineChanges } from '../changeset/line-diff';

/** Where changesets and their entries are kept. The SQLite store implements the same contract. */
export interface ChangeSetStore {
  start(planId: string): Promise<string>;
  /** Stores the entry, computing its line counts once; returns it as lists and events show it. */
  record(changesetId: string, entry: ChangeEntry): Promise<ChangeEntryMeta>;
  get(changesetId: string): Promise<ChangeSet | undefined>;
  getForPlan(planId: string): Promise<ChangeSet[]>;
  summarize(changesetId: string): Promise<ChangeSetSummary>;
  /** One page of entries in recorded order, for big changesets. */
  listEntries(changesetId: string, page: { offset: number; limit: number }): Promise<ChangeEntry[]>;
  countEntries(changesetId: string): Promise<number>;
  /** One page of entries without file contents, with their line counts. */
  listEntryMeta(changesetId: string, page: { offset: number; limit: number }): Promise<ChangeEntryMeta[]>;
  getEntry(changesetId: string, entryId: string): Promise<ChangeEntry | undefined>;
  /** One entry without its texts, with its stored line counts. */
  getEntryMeta(changesetId: string, entryId: string): Promise<ChangeEntryMeta | undefined>;
  /**
   * Runs `fn` as one transaction: its writes to this store, and to every store that shares its
   * database (invocations, events), commit together or not at all. Stores without transactions
   * leave it out, and `fn` then simply runs.
   */
  atomically?<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Marks the entries from position `from` (0-based, in recorded order) on as made history by the
   * rewind `rewindId`: listed still, with `rewound`, but no longer part of the changeset as a whole
   * (`get`, `summarize`: what review, diff and apply read). Returns how many it marked.
   */
  markRewound(changesetId: string, from: number, rewindId: string): Promise<number>;
}

export function summarizeEntries(changesetId: string, planId: string, entries: readonly ChangeEntry[]): ChangeSetSummary {
  const operations = { create: 0, modify: 0, delete: 0, rename: 0 };
  const files = new Set<string>();
  let insertions = 0;
  let deletions = 0;
  for (const entry of entries) {
    operations[entry.operation] += 1;
    files.add(entry.path);
    const counts = entryLineCounts(entry);
    insertions += counts.insertions;
    deletions += counts.deletions;
  }
  return { changesetId, planId, entryCount: entries.length, files: files.size, operations, insertions, deletions };
}

/** Lines added and removed by an entry; binary entries count none. Computed once, when it is recorded. */
export function entryLineCounts(entry: ChangeEntry): { insertions: number; deletions: number } {
  return entry.binary ? { insertions: 0, deletions: 0 } : countLineChanges(entry.beforeText, entry.afterText);
}

/** The entry as lists show it, with line counts computed when it was recorded. */
export function toEntryMeta(entry: ChangeEntry, counts: { insertions: number; deletions: number }): ChangeEntryMeta {
  return {
    id: entry.id,
    path: entry.path,
    oldPath: entry.oldPath,
    operation: entry.operation,
    beforeHash: entry.beforeHash,
    afterHash: entry.afterHash,
    binary: entry.binary,
    decisionId: entry.decisionId,
    invocationId: entry.invocationId,
    ...(entry.origin === 'operator' ? { origin: 'operator' as const } : {}),
    ...(entry.rewound ? { rewound: true } : {}),
    ...counts,
  };
}
