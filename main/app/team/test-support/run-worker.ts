/**
 * A worker process for the run queue's tests: `node --import tsx run-worker.ts URL NAME`. It
 * prints one JSON line when ready and one per run it starts; each run holds its job until the
 * job's signal aborts (so a test can kill the process mid-run).
 */
import { RunQueue } from '../run-queue';

const [url, name] = process.argv.slice(2);
const say = (line: object) => process.stdout.write(`${JSON.stringify({ ...line, pid: process.pid, at: Date.now() })}\n`);

async function main(): Promise<void> {
  const queue = await RunQueue.open(url!, { name, onError: (error) => say({ error: error.message }) });
  await queue.work({ concurrency: 1, name }, async (planId, signal, job) => {
    say({ started: planId, attempt: job.attempt });
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  });
  say({ ready: name });
  process.on('SIGTERM', () => void queue.stop(1000).then(() => process.exit(0)));
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});
