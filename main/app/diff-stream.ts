import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ChangeEntry } from '../../shared/changes';
import { unifiedDiff } from '../engine/changeset/diff';
import { entryText } from '../engine/changeset/net';
import { type LineDiff, lineDiff } from '../engine/changeset/line-diff';
import { reviewDiffs, reviewNet } from '../engine/changeset/review';
import type { PlanService } from './plan-service';

/** Entries' metadata read from the store at a time; texts are read one entry at a time. */
const PAGE = 64;

/**
 * `agents plan diff --json` as chunks of one JSON document: each entry with its diff, then each
 * file of the review with its net diff, every one written as soon as it is read and diffed. Only
 * ids and paths are kept across entries, so memory does not grow with the changeset's bytes.
 *
 * A file changed by one entry (the common case) has that entry as its net change: its texts are
 * read and diffed once, and its row of `files` waits in a temporary file until the entries are
 * written. A file changed by several entries needs them together: they are read again for it.
 */
export async function* diffJsonChunks(service: PlanService, planId: string): AsyncGenerator<string> {
  const { changesetId } = await service.get(planId);
  const store = service.stores.changesets;
  yield `{\n  "planId": ${JSON.stringify(planId)},\n  "changesetId": ${JSON.stringify(changesetId)},\n  "entries": [`;
  const total = changesetId ? await store.countEntries(changesetId) : 0;

  // Entries of one file (following renames) form a group: a file's net change needs only its own
  // entries. Found from the entries' metadata, which holds no file text.
  const parent = new Map<string, string>();
  const root = (p: string): string => {
    let at = p;
    while (parent.has(at) && parent.get(at) !== at) at = parent.get(at) as string;
    parent.set(p, at);
    return at;
  };
  const order: { id: string; path: string }[] = [];
  for (let offset = 0; changesetId && offset < total; offset += PAGE) {
    for (const meta of await store.listEntryMeta(changesetId, { offset, limit: PAGE })) {
      // A rewound entry is history: the diff is what apply would write.
      if (meta.rewound) continue;
      if (!parent.has(meta.path)) parent.set(meta.path, meta.path);
      if (meta.oldPath) parent.set(root(meta.path), root(meta.oldPath));
      order.push({ id: meta.id, path: meta.path });
    }
  }
  const groups = new Map<string, string[]>();
  for (const { id, path: p } of order) {
    const key = root(p);
    const group = groups.get(key);
    if (group) group.push(id);
    else groups.set(key, [id]);
  }

  const applied = await service.stores.applied.list(planId);
  const fileRows = (entries: ChangeEntry[], diffOf?: (before: string, after: string) => LineDiff) =>
    reviewDiffs(reviewNet(entries, applied, diffOf)).map(({ file, diff }) => JSON.stringify({ ...file, diff }));
  const scratch = scratchFile();
  const spill = scratch.fd;
  try {
    /** Where the rows of each file changed by one entry are in the temporary file, by that entry's id. */
    const spilled = new Map<string, { at: number; bytes: number }>();
    let end = 0;
    let separator = '\n    ';
    for (let offset = 0; changesetId && offset < total; offset += PAGE) {
      for (const meta of await store.listEntryMeta(changesetId, { offset, limit: PAGE })) {
        if (meta.rewound) continue;
        // One entry's texts at a time: a page of them could be more than the heap holds.
        const entry = await store.getEntry(changesetId, meta.id);
        const before = entry && !entry.binary ? (entryText(entry, 'before') ?? '') : null;
        const after = entry && !entry.binary ? (entryText(entry, 'after') ?? '') : null;
        const known = before !== null && after !== null ? lineDiff(before, after) : undefined;
        yield `${separator}${JSON.stringify({ ...meta, diff: entry ? unifiedDiff(entry, known) : null })}`;
        separator = ',\n    ';
        if (entry && groups.get(root(meta.path))?.length === 1) {
          // The entry is the file's net change: its diff is the one just made.
          const rows = fileRows([entry], (b, a) => (known && b === before && a === after ? known : lineDiff(b, a)));
          const bytes = Buffer.from(rows.join(',\n    '), 'utf8');
          writeSync(spill, bytes, 0, bytes.length, end);
          spilled.set(entry.id, { at: end, bytes: bytes.length });
          end += bytes.length;
        }
      }
    }
    yield '\n  ],\n  "files": [';
    separator = '\n    ';
    for (const ids of groups.values()) {
      const place = ids.length === 1 ? spilled.get(ids[0]) : undefined;
      if (place) {
        if (place.bytes === 0) continue;
        const buffer = Buffer.allocUnsafe(place.bytes);
        for (let read = 0; read < place.bytes; ) read += readSync(spill, buffer, read, place.bytes - read, place.at + read);
        yield `${separator}${buffer.toString('utf8')}`;
        separator = ',\n    ';
        continue;
      }
      const entries: ChangeEntry[] = [];
      for (const id of ids) {
        const entry = changesetId ? await store.getEntry(changesetId, id) : undefined;
        if (entry) entries.push(entry);
      }
      for (const row of fileRows(entries)) {
        yield `${separator}${row}`;
        separator = ',\n    ';
      }
    }
    yield '\n  ]\n}\n';
  } finally {
    scratch.dispose();
  }
}

/**
 * A scratch file that is gone from the disk as soon as it is open, where the system allows it: a
 * reader that closes the pipe ends the process at once (main/cli/main.ts), and nothing stays behind.
 */
function scratchFile(): { fd: number; dispose(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'agents-diff-'));
  const fd = openSync(path.join(dir, 'files.json'), 'w+', 0o600);
  let removed = false;
  try {
    rmSync(dir, { recursive: true });
    removed = true;
  } catch {
    // Windows keeps an open file: it is removed when the stream ends.
  }
  return {
    fd,
    dispose() {
      closeSync(fd);
      if (!removed) rmSync(dir, { recursive: true, force: true });
    },
  };
}
