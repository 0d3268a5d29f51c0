import { createHash } from 'node:crypto';
import path from 'node:path';
import type { SQLInputValue } from 'node:sqlite';
import { toChangeEntry } from '../../main/engine/run/change-capture';
import { countLineChanges } from '../../main/engine/changeset/line-diff';
import type { CapturedChange } from '../../main/engine/tools/definition';
import { openDatabase } from '../../main/persistence/database';
import { SqliteChangeSetStore } from '../../main/persistence/changeset-store';
import type { ChangeEntry } from '../../shared/changes';
import { newId } from '../../shared/ids';
import type { Benchmark, BenchResult } from '../bench-result';
import { median } from '../bench-result';
import { fmtMs, paired, ratioFigure, scratchDir, seededRandom, syncDisk, textOfSize } from './util';

const ENTRIES = Number(process.env.BENCH_STORE_ENTRIES ?? 100_000);
/** Entries per recordMany call (and per raw transaction): what one large capture records at once. */
const BATCH = 1_000;
const PAGE = 500;
const REPS = Number(process.env.BENCH_STORE_REPS ?? 5);
const PAGE_READS = 21;

/**
 * A changeset of 100,000 entries over 20,000 paths: each path is created, then modified a few
 * times (one line edited), some are renamed or deleted; texts of 200-600 bytes.
 */
function makeEntries(): ChangeEntry[] {
  const random = seededRandom(100);
  const paths = 20_000;
  const current: (Buffer | null)[] = new Array(paths).fill(null);
  const names = Array.from({ length: paths }, (_, i) => `src/pkg-${i % 50}/file-${i}.ts`);
  const entries: ChangeEntry[] = [];
  const decisionId = newId();
  for (let n = 0; n < ENTRIES; n++) {
    const i = Math.floor(random() * paths);
    const before = current[i];
    let change: CapturedChange;
    const roll = random();
    if (before === null) {
      change = { operation: 'create', path: names[i], before: null, after: Buffer.from(textOfSize(200 + Math.floor(random() * 400), random)) };
    } else if (roll < 0.04) {
      change = { operation: 'delete', path: names[i], before, after: null };
    } else if (roll < 0.08) {
      const to = `${names[i]}.moved`;
      change = { operation: 'rename', path: to, oldPath: names[i], before, after: before };
      names[i] = to;
    } else {
      const lines = before.toString('utf8').split('\n');
      const at = Math.floor(random() * Math.max(1, lines.length - 1));
      lines[at] = `${lines[at]} // edit ${n}`;
      change = { operation: 'modify', path: names[i], before, after: Buffer.from(lines.join('\n')) };
    }
    current[i] = change.after;
    entries.push(toChangeEntry(change, { decisionId, invocationId: newId() }));
  }
  return entries;
}

interface RawRows {
  blobs: [string, string][];
  entries: SQLInputValue[][];
}

/** The rows the store writes for these entries, computed up front so the baseline only inserts. */
function rawRows(changesetId: string, entries: readonly ChangeEntry[]): RawRows[] {
  const batches: RawRows[] = [];
  const key = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
  for (let start = 0; start < entries.length; start += BATCH) {
    const batch: RawRows = { blobs: [], entries: [] };
    entries.slice(start, start + BATCH).forEach((e, k) => {
      const beforeBlob = e.beforeText === null ? null : key(e.beforeText);
      const afterBlob = e.afterText === null ? null : key(e.afterText);
      if (beforeBlob !== null) batch.blobs.push([beforeBlob, e.beforeText as string]);
      if (afterBlob !== null) batch.blobs.push([afterBlob, e.afterText as string]);
      const counts = countLineChanges(e.beforeText, e.afterText);
      batch.entries.push([
        changesetId, start + k + 1, e.id, e.path, e.oldPath, e.operation, e.beforeHash, e.afterHash,
        beforeBlob, afterBlob, e.binary ? 1 : 0, e.decisionId, e.invocationId, counts.insertions, counts.deletions, e.createdAt,
      ]);
    });
    batches.push(batch);
  }
  return batches;
}

export const storeBenchmark: Benchmark = {
  name: 'store',
  async run(): Promise<BenchResult[]> {
    const entries = makeEntries();
    const changesetId = newId();
    const rows = rawRows(changesetId, entries);
    const pageTimes: number[] = [];
    let pageRows = 0;

    const subject = async () => {
      const scratch = scratchDir('store');
      try {
        const db = openDatabase(path.join(scratch.dir, 'agents.db'));
        const store = new SqliteChangeSetStore(db);
        const id = await store.start('bench-plan');
        syncDisk();
        const started = performance.now();
        for (let start = 0; start < entries.length; start += BATCH) await store.recordMany(id, entries.slice(start, start + BATCH));
        const ms = performance.now() - started;
        // The first page as the console asks for it: the total, then the first 500 entries without texts.
        for (let r = 0; r < PAGE_READS; r++) {
          const t = performance.now();
          const total = await store.countEntries(id);
          const page = await store.listEntryMeta(id, { offset: 0, limit: PAGE });
          pageTimes.push(performance.now() - t);
          pageRows = page.length;
          if (total !== entries.length) throw new Error(`store: ${total} entries stored, expected ${entries.length}`);
        }
        db.close();
        return ms;
      } finally {
        scratch.cleanup();
      }
    };
    const baseline = async () => {
      const scratch = scratchDir('store-raw');
      try {
        const db = openDatabase(path.join(scratch.dir, 'agents.db'));
        db.prepare('INSERT INTO changesets (id, plan_id, created_at) VALUES (?, ?, ?)').run(changesetId, 'bench-plan', new Date().toISOString());
        const insertBlob = db.prepare('INSERT OR IGNORE INTO blobs (hash, content) VALUES (?, ?)');
        const insertEntry = db.prepare(
          `INSERT INTO change_entries (changeset_id, seq, id, path, old_path, operation, before_hash, after_hash,
             before_blob, after_blob, binary, decision_id, invocation_id, insertions, deletions, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        );
        // Raw node:sqlite: each batch in a transaction by hand, no helper of ours in the baseline.
        const insertBatch = (batch: RawRows) => {
          db.exec('BEGIN IMMEDIATE');
          for (const blob of batch.blobs) insertBlob.run(...blob);
          for (const entry of batch.entries) insertEntry.run(...entry);
          db.exec('COMMIT');
        };
        syncDisk();
        const started = performance.now();
        for (const batch of rows) insertBatch(batch);
        const ms = performance.now() - started;
        db.close();
        return ms;
      } finally {
        scratch.cleanup();
      }
    };
    const runs = await paired(REPS, subject, baseline);
    const { ratio, figure, details } = ratioFigure(runs);
    // The first read of each repetition pays for a cold statement cache; the median covers all reads.
    const pageMedian = median(pageTimes);
    return [
      {
        name: `store: write ${ENTRIES.toLocaleString('en-US')} change entries`,
        figure,
        budget: 'ratio <= 1.5',
        pass: ratio <= 1.5,
        details: { ...details, entries: ENTRIES, batch: BATCH, blobRows: rows.reduce((n, b) => n + b.blobs.length, 0) },
      },
      {
        name: 'store: first page of the changeset',
        figure: `${fmtMs(pageMedian)} ms median (${pageRows} of ${ENTRIES.toLocaleString('en-US')} entries, ${pageTimes.length} reads)`,
        budget: '< 20 ms',
        pass: pageMedian < 20,
        details: { pageMedianMs: Number(pageMedian.toFixed(2)), pageMaxMs: Number(Math.max(...pageTimes).toFixed(2)), pageSize: PAGE, reads: pageTimes.length },
      },
    ];
  },
};
