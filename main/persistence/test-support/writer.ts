// A second process for the concurrency and crash tests: writes through the stores in a loop.
// Usage: node --import tsx writer.ts <db-file> <planId> <mode: contend|crash> <durationMs>
import { SqliteChangeSetStore } from '../changeset-store';
import { openDatabase } from '../database';
import { SqliteEventLog } from '../event-log';
import { SqlitePlanRepository } from '../plan-repository';
import { makeEntry } from './fixtures';

const [file, planId, mode, durationArg] = process.argv.slice(2);
const db = openDatabase(file);
const plans = new SqlitePlanRepository(db);
const events = new SqliteEventLog(db);
const changesets = new SqliteChangeSetStore(db);
// CommonJS as tsx loads it here: no top-level await.
async function main(): Promise<void> {
  const changesetId = (await plans.get(planId))?.changesetId;
  if (!changesetId) throw new Error(`plan ${planId} has no changeset`);

  const until = Date.now() + Number(durationArg);
  let iterations = 0;
  let appended = 0;
  let recorded = 0;
  process.stdout.write('ready\n');
  while (Date.now() < until || iterations < 20) {
    iterations += 1;
    if (mode === 'crash') {
      await changesets.record(changesetId, makeEntry({ path: `crash/${iterations}.txt`, afterText: `${iterations}\n` }));
      recorded += 1;
      // Reported only after the commit returned: the parent may kill us at any moment after this.
      process.stdout.write(`committed ${recorded}\n`);
      continue;
    }
    await plans.update(planId, { errorDetails: { writerIteration: iterations } });
    await events.appendNext(planId, 'execute_step', { decisionId: '01DECISION', index: iterations + 1, total: iterations + 1, description: `child ${iterations}` });
    appended += 1;
    // A bigger transaction now and then holds the write lock for longer.
    const batch = iterations % 25 === 0 ? 50 : 1;
    await changesets.recordMany(
      changesetId,
      Array.from({ length: batch }, (_, i) => makeEntry({ path: `child/${iterations}-${i}.txt`, afterText: `child ${iterations} ${i}\n` })),
    );
    recorded += batch;
  }
  db.close();
  process.stdout.write(`done ${JSON.stringify({ iterations, appended, recorded })}\n`);
}

void main();
