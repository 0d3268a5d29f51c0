import type { ChangeEntryMeta } from '../../shared/contract';
import type { ChangeEntry, ChangeSet, ChangeSetSummary } from '../../shared/domain';
import { newId } from '../../shared/ids';
import { type ChangeSetStore, entryLineCounts, summarizeEntries, toEntryMeta } from './changeset-store';

/**
 * A ChangeSetStore in one process's memory: what a PlanExecutionContext uses when it is given no
 * store. The app always gives it the SQLite store.
 */
export class InMemoryChangeSetStore implements ChangeSetStore {
  private readonly changesets = new Map<string, ChangeSet>();

  start(planId: string): string {
    const id = newId();
    this.changesets.set(id, { id, planId, createdAt: new Date().toISOString(), entries: [] });
    return id;
  }

  record(changesetId: string, entry: ChangeEntry): ChangeEntryMeta {
    const changeset = this.changesets.get(changesetId);
    if (!changeset) throw new Error(`unknown changeset ${changesetId}`);
    changeset.entries.push(entry);
    return toEntryMeta(entry, entryLineCounts(entry));
  }

  get(changesetId: string): ChangeSet | undefined {
    const changeset = this.changesets.get(changesetId);
    return changeset && { ...changeset, entries: changeset.entries.filter((e) => !e.rewound) };
  }

  getForPlan(planId: string): ChangeSet[] {
    return [...this.changesets.values()].filter((c) => c.planId === planId).map((c) => ({ ...c, entries: c.entries.filter((e) => !e.rewound) }));
  }

  summarize(changesetId: string): ChangeSetSummary {
    const changeset = this.changesets.get(changesetId);
    if (!changeset) throw new Error(`unknown changeset ${changesetId}`);
    return summarizeEntries(changeset.id, changeset.planId, changeset.entries.filter((e) => !e.rewound));
  }

  markRewound(changesetId: string, from: number, _rewindId: string): number {
    let marked = 0;
    for (const entry of this.changesets.get(changesetId)?.entries.slice(from) ?? []) {
      if (entry.rewound) continue;
      entry.rewound = true;
      marked += 1;
    }
    return marked;
  }

  listEntries(changesetId: string, page: { offset: number; limit: number }): ChangeEntry[] {
    return (this.changesets.get(changesetId)?.entries ?? []).slice(page.offset, page.offset + page.limit);
  }

  listEntryMeta(changesetId: string, page: { offset: number; limit: number }): ChangeEntryMeta[] {
    return this.listEntries(changesetId, page).map((entry) => toEntryMeta(entry, entryLineCounts(entry)));
  }

  countEntries(changesetId: string): number {
    return this.changesets.get(changesetId)?.entries.length ?? 0;
  }

  getEntry(changesetId: string, entryId: string): ChangeEntry | undefined {
    return this.changesets.get(changesetId)?.entries.find((e) => e.id === entryId);
  }

  getEntryMeta(changesetId: string, entryId: string): ChangeEntryMeta | undefined {
    const entry = this.getEntry(changesetId, entryId);
    return entry && toEntryMeta(entry, entryLineCounts(entry));
  }
}
