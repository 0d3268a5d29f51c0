import type { ChangeEntry } from '../../shared/domain';
import { unifiedDiff } from '../engine/changeset/diff';
import { reviewDiffs, reviewNet } from '../engine/changeset/review';
import type { PlanService } from './plan-service';

/** Entries read from the store at a time: the texts of one page at most are in memory. */
const PAGE = 64;

/**
 * `agents plan diff --json` as chunks of one JSON document: each entry with its diff, then each
 * file of the review with its net diff, every one written as soon as it is read and diffed. Only
 * ids and paths are kept across entries, so memory does not grow with the changeset's bytes.
 */
export function* diffJsonChunks(service: PlanService, planId: string): Generator<string> {
  const { changesetId } = service.get(planId);
  const store = service.stores.changesets;
  yield `{\n  "planId": ${JSON.stringify(planId)},\n  "changesetId": ${JSON.stringify(changesetId)},\n  "entries": [`;
  // Entries of one file (following renames) form a group: a file's net change needs only its own entries.
  const parent = new Map<string, string>();
  const root = (path: string): string => {
    let at = path;
    while (parent.has(at) && parent.get(at) !== at) at = parent.get(at) as string;
    parent.set(path, at);
    return at;
  };
  const order: { id: string; path: string }[] = [];
  let separator = '\n    ';
  const total = changesetId ? store.countEntries(changesetId) : 0;
  for (let offset = 0; changesetId && offset < total; offset += PAGE) {
    for (const meta of store.listEntryMeta(changesetId, { offset, limit: PAGE })) {
      const entry = store.getEntry(changesetId, meta.id);
      yield `${separator}${JSON.stringify({ ...meta, diff: entry ? unifiedDiff(entry) : null })}`;
      separator = ',\n    ';
      if (!parent.has(meta.path)) parent.set(meta.path, meta.path);
      if (meta.oldPath) parent.set(root(meta.path), root(meta.oldPath));
      order.push({ id: meta.id, path: meta.path });
    }
  }
  yield '\n  ],\n  "files": [';
  const groups = new Map<string, string[]>();
  for (const { id, path } of order) {
    const key = root(path);
    const group = groups.get(key);
    if (group) group.push(id);
    else groups.set(key, [id]);
  }
  const applied = service.stores.applied.list(planId);
  separator = '\n    ';
  for (const ids of groups.values()) {
    const entries: ChangeEntry[] = [];
    for (const id of ids) {
      const entry = changesetId ? store.getEntry(changesetId, id) : undefined;
      if (entry) entries.push(entry);
    }
    for (const { file, diff } of reviewDiffs(reviewNet(entries, applied))) {
      yield `${separator}${JSON.stringify({ ...file, diff })}`;
      separator = ',\n    ';
    }
  }
  yield '\n  ]\n}\n';
}
