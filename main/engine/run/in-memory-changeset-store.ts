import type { ChangeEntryMeta } from '../../../shared/contract';
import type { ChangeEntry, ChangeSet, ChangeSetSummary } from '../../../shared/changes';
import { newId } from '../../../shared/ids';
import { type ChangeSetStore, entryLineCounts, summarizeEntries, toEntryMeta } from '../ports/changeset-store';

/**
 * A ChangeSetStore in one process's memory: what a PlanExecutionContext uses when it is given no
 * store. The app always gives it the SQLite store.
 */
export class InMemoryChangeSetStore implements ChangeSetStore {
  private readonly changesets = new Map<string, ChangeSet>();

  async start(planId: string): Promise<string> {
    const id = newId();
    this.changesets.set(id, { id, planId, createdAt: new Date().toISOString(), entries: [] });
    return id;
  }

  async record(changesetId: string, entry: ChangeEntry): Promise<ChangeEntryMeta> {
    const changeset = this.changesets.get(changesetId);
    if (!changeset) throw new Error(`unknown changeset ${changesetId}`);
    changeset.entries.push(entry);
    return toEntryMeta(entry, entryLineCounts(entry));
  }

  async get(changesetId: string): Promise<ChangeSet | undefined> {
    const changeset = this.changesets.get(changesetId);
    return changeset && { ...changeset, entries: changeset.entries.filter((e) => !e.rewound) };
  }

  async getForPlan(planId: string): Promise<ChangeSet[]> {
    return [...this.changesets.values()].filter((c) => c.planId === planId).map((c) => ({ ...c, entries: c.entries.filter((e) => !e.rewound) }));
  }

  async summarize(changesetId: string): Promise<ChangeSetSummary> {
    const changeset = this.changesets.get(changesetId);
    if (!changeset) throw new Error(`unknown changeset ${changesetId}`);
    return summarizeEntries(changeset.id, changeset.planId, changeset.entries.filter((e) => !e.rewound));
  }

  async markRewound(changesetId: string, from: number, _rewindId: string): Promise<number> {
    let marked = 0;
    for (const entry of this.changesets.get(changesetId)?.entries.slice(from) ?? []) {
      if (entry.rewound) continue;
      entry.rewound = true;
      marked += 1;
    }
    return marked;
  }

  async listEntries(changesetId: string, page: { offset: number; limit: number }): Promise<ChangeEntry[]> {
    return (this.changesets.get(changesetId)?.entries ?? []).slice(page.offset, page.offset + page.limit);
  }

  async listEntryMeta(changesetId: string, page: { offset: number; limit: number }): Promise<ChangeEntryMeta[]> {
    return (await this.listEntries(changesetId, page)).map((entry) => toEntryMeta(entry, entryLineCounts(entry)));
  }

  async countEntries(changesetId: string): Promise<number> {
    return this.changesets.get(changesetId)?.entries.length ?? 0;
  }

  async getEntry(changesetId: string, entryId: string): Promise<ChangeEntry | undefined> {
    return this.changesets.get(changesetId)?.entries.find((e) => e.id === entryId);
  }

  async getEntryMeta(changesetId: string, entryId: string): Promise<ChangeEntryMeta | undefined> {
    const entry = await this.getEntry(changesetId, entryId);
    return entry && toEntryMeta(entry, entryLineCounts(entry));
  }
}
