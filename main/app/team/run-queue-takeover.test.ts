import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../persistence/postgres/test-support/database';
import { RunQueue } from './run-queue';

const WORKER = path.join(import.meta.dirname, 'test-support', 'run-worker.ts');

interface Line {
  pid: number;
  at: number;
  ready?: string;
  started?: string;
  attempt?: number;
  error?: string;
}

/** A worker process; `lines` fills with what it prints, `next` waits for a line that matches. */
function startWorker(url: string, name: string) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', WORKER, url, name], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Line[] = [];
  let stderr = '';
  const waiters: (() => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (text) => {
    lines.push(JSON.parse(text) as Line);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const next = (what: string, match: (line: Line) => boolean, timeoutMs: number) =>
    new Promise<Line>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no ${what} within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
      const check = () => {
        const line = lines.find(match);
        if (line) {
          clearTimeout(timer);
          resolve(line);
        } else waiters.push(check);
      };
      child.once('exit', (code) => reject(new Error(`${name} exited ${code} before ${what}: ${stderr}`)));
      check();
    });
  return { child, lines, next };
}

describe.skipIf(!testPostgres().url)(postgresSuiteName('RunQueue takeover across processes'), () => {
  const database = useFreshDatabase();
  const children: ChildProcess[] = [];
  let queue: RunQueue | undefined;
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await queue?.stop(1000);
  });

  it("hands a SIGKILLed worker's run to another worker within 60 s (heartbeat lease)", async () => {
    const url = database.url();
    // Two processes migrating a fresh database at the same moment.
    const a = startWorker(url, 'worker-a');
    const b = startWorker(url, 'worker-b');
    children.push(a.child, b.child);
    await Promise.all([a.next('ready', (l) => !!l.ready, 30_000), b.next('ready', (l) => !!l.ready, 30_000)]);

    queue = await RunQueue.open(url, { name: 'console' });
    await queue.enqueue('01PLAN', { reason: 'run' });
    const first = await Promise.race([a.next('start', (l) => l.started === '01PLAN', 10_000), b.next('start', (l) => l.started === '01PLAN', 10_000)]);
    const [holder, other] = first.pid === a.child.pid ? [a, b] : [b, a];
    const holderName = holder === a ? 'worker-a' : 'worker-b';
    expect(first.attempt).toBe(0);
    const listed = await queue.listWorkers();
    expect(listed.find((w) => w.pid === holder.child.pid)).toMatchObject({ name: holderName, plans: ['01PLAN'], live: true });

    // Let one heartbeat refresh pass, so the lease is live when the holder dies.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const killedAt = Date.now();
    holder.child.kill('SIGKILL');
    const takeover = await other.next('takeover', (l) => l.started === '01PLAN', 60_000);
    const seconds = (takeover.at - killedAt) / 1000;
    console.log(`run queue takeover after SIGKILL: ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(60);
    expect(takeover.attempt).toBe(1);
    expect(other.lines.filter((l) => l.started === '01PLAN')).toHaveLength(1);
    expect(await queue.depth()).toEqual({ queued: 0, active: 1 });
    // The dead worker's row still shows what it held (it goes not-live three beats after its last); the taker's shows the plan.
    const workers = await queue.listWorkers();
    expect(workers.find((w) => w.pid === holder.child.pid)).toMatchObject({ plans: ['01PLAN'] });
    expect(workers.find((w) => w.pid === other.child.pid)).toMatchObject({ plans: ['01PLAN'], live: true });
  }, 90_000);
});
