/**
 * The console's host for the console benchmarks, in a process of its own so that its peak RSS is
 * its own: the real `openApp` + `startServer` on a seeded data directory and the built renderer.
 * Driven over IPC by bench/console/harness.ts.
 */
import { Session } from 'node:inspector/promises';
import { type App, openApp } from '../../main/app/open-app';
import { startServer } from '../../main/web/server';

export type HostRequest =
  | { type: 'publish'; planId: string; ratePerSecond: number; durationMs: number }
  | { type: 'publish-changes'; planId: string; ratePerSecond: number; durationMs: number }
  | { type: 'publish-calls'; planId: string; decisionId: string; ratePerSecond: number; durationMs: number }
  | { type: 'memory' }
  | { type: 'profile-start' }
  | { type: 'profile-stop' }
  | { type: 'close' };

export type HostReply =
  | { type: 'ready'; url: string }
  | { type: 'published'; firstSeq: number; hostTs: number[]; elapsedMs: number }
  | { type: 'published-changes'; hostTs: number[]; elapsedMs: number; listReads: number }
  | { type: 'published-calls'; hostTs: number[]; elapsedMs: number; invocationReads: number }
  | { type: 'memory'; rss: number; heapUsed: number }
  | { type: 'profile'; totalMs: number; top: { fn: string; selfMs: number }[] }
  | { type: 'ok' }
  | { type: 'closed' };

function send(reply: HostReply): void {
  process.send?.(reply);
}

/**
 * Publishes `ratePerSecond` events for `durationMs` through the service's EventPublisher (so
 * they are stored and fanned out exactly as a running plan's are), topping up to the target count
 * every millisecond. Each event's host timestamp (Date.now() just before publishing) is kept by seq.
 */
async function publish(app: App, planId: string, ratePerSecond: number, durationMs: number) {
  const total = Math.round((ratePerSecond * durationMs) / 1000);
  const hostTs: number[] = [];
  let firstSeq = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = async () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * ratePerSecond) / 1000));
      while (hostTs.length < due) {
        const ts = Date.now();
        const event = await app.service.events.publish(planId, 'execute_step', {
          index: hostTs.length + 1,
          total,
          description: `Streamed step ${hostTs.length + 1}`,
          decisionId: 'streamed',
        });
        if (firstSeq === 0) firstSeq = event.seq;
        hostTs.push(ts);
      }
      if (hostTs.length >= total) resolve();
      else setTimeout(tick, 1);
    };
    void tick();
  });
  return { firstSeq, hostTs, elapsedMs: performance.now() - start };
}

/**
 * Commits `ratePerSecond` items for `durationMs` as the executor does: the items due at each
 * millisecond tick in one commit (like its CommitGroup), their events delivered after it. Each
 * item's host time is Date.now() just after its commit, when its event is delivered.
 */
async function commitPaced(app: App, ratePerSecond: number, durationMs: number, commitOne: () => Promise<void>) {
  const { service } = app;
  const total = Math.round((ratePerSecond * durationMs) / 1000);
  const hostTs: number[] = [];
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = async () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * ratePerSecond) / 1000));
      const from = hostTs.length;
      if (due > from) {
        await service.events.deferDelivery(async () =>
          await service.stores.changesets.atomically!(async () => {
            for (let i = from; i < due; i++) await commitOne();
          }),
        );
        const committed = Date.now();
        for (let i = from; i < due; i++) hostTs.push(committed);
      }
      if (hostTs.length >= total) resolve();
      else setTimeout(tick, 1);
    };
    void tick();
  });
  return { hostTs, elapsedMs: performance.now() - start };
}

/**
 * Records change entries, each with its change_recorded event in the same commit, as tool calls
 * do. Also counts the page's reads of the changes list (plans.changes) meanwhile.
 */
async function publishChanges(app: App, planId: string, ratePerSecond: number, durationMs: number) {
  const { service } = app;
  const changesetId = (await service.get(planId)).changesetId;
  if (!changesetId) throw new Error('the streaming plan has no changeset');
  const store = service.stores.changesets;
  const reads = listReads;
  const paced = await commitPaced(app, ratePerSecond, durationMs, async () => {
    recordedChanges += 1;
    const n = recordedChanges;
    const entry = await store.record(changesetId, {
      id: `bench-${process.pid}-${n}`,
      path: `streamed/file-${n}.txt`,
      oldPath: null,
      operation: 'create',
      beforeHash: null,
      afterHash: `h${n}`,
      beforeText: null,
      afterText: `line ${n}\n`,
      binary: false,
      decisionId: null,
      invocationId: null,
      createdAt: new Date().toISOString(),
    });
    await service.events.publish(planId, 'change_recorded', { entry });
  });
  return { ...paced, listReads: listReads - reads };
}

/**
 * Records tool calls of one decision, each invocation with its tool_call_finished event in the same
 * commit, as the executor does. Also counts the page's reads of invocations meanwhile (the plan's
 * list, the tallies, a decision's calls).
 */
async function publishCalls(app: App, planId: string, decisionId: string, ratePerSecond: number, durationMs: number) {
  const { service } = app;
  const reads = invocationReads;
  const paced = await commitPaced(app, ratePerSecond, durationMs, async () => {
    recordedCalls += 1;
    const id = `bench-call-${process.pid}-${recordedCalls}`;
    const ok = recordedCalls % 10 !== 0;
    const error = ok ? null : { name: 'ToolError', message: 'exit 1', category: 'tool' };
    const startedAt = new Date().toISOString();
    await service.stores.invocations.record({ id, planId, decisionId, tool: 'file.write', args: { path: `streamed/call-${recordedCalls}.txt` }, ok, error, startedAt, durationMs: 1 });
    await service.events.publish(planId, 'tool_call_finished', { decisionId, invocationId: id, tool: 'file.write', ok, durationMs: 1, startedAt, ...(error ? { error } : {}) });
  });
  return { ...paced, invocationReads: invocationReads - reads };
}

let invocationReads = 0;
let recordedCalls = 0;
let listReads = 0;
/** Entries recorded so far by publishChanges, across calls: their ids and paths stay unique. */
let recordedChanges = 0;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** The host's own CPU profile (V8 inspector), summed by function: where its time went. */
async function stopProfile(session: Session): Promise<{ totalMs: number; top: { fn: string; selfMs: number }[] }> {
  const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } };
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const byFn = new Map<string, number>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url ? `${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}` : ''}`.trim();
    byFn.set(name, (byFn.get(name) ?? 0) + (self.get(node.id) ?? 0));
  }
  const totalMs = [...byFn.values()].reduce((a, b) => a + b, 0);
  return { totalMs, top: [...byFn.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([fn, selfMs]) => ({ fn, selfMs })) };
}

async function main(): Promise<void> {
  const dataDir = process.env.BENCH_DATA_DIR;
  const rendererDir = process.env.BENCH_RENDERER_DIR;
  if (!dataDir || !rendererDir) throw new Error('BENCH_DATA_DIR and BENCH_RENDERER_DIR are required');
  const app = await openApp({ dataDir });
  // Counts the reads of the changes list, which pushing entries in events should make unnecessary.
  const changes = app.service.changes.bind(app.service);
  app.service.changes = (...args: Parameters<typeof changes>) => {
    listReads += 1;
    return changes(...args);
  };
  // Counts the reads of invocations, which pushing the calls in events should make unnecessary during a run.
  for (const method of ['invocations', 'invocationsForDecision', 'toolTallies'] as const) {
    const read = app.service[method].bind(app.service) as (...args: unknown[]) => never;
    (app.service as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      invocationReads += 1;
      return read(...args);
    };
  }
  const server = await startServer({ service: app.service, rendererDir, dataDir, log: () => undefined });
  let profiler: Session | null = null;
  process.on('message', (message: HostRequest) => {
    void (async () => {
      if (message.type === 'publish-changes') {
        send({ type: 'published-changes', ...(await publishChanges(app, message.planId, message.ratePerSecond, message.durationMs)) });
      } else if (message.type === 'publish-calls') {
        send({ type: 'published-calls', ...(await publishCalls(app, message.planId, message.decisionId, message.ratePerSecond, message.durationMs)) });
      } else if (message.type === 'publish') {
        send({ type: 'published', ...(await publish(app, message.planId, message.ratePerSecond, message.durationMs)) });
      } else if (message.type === 'profile-start') {
        profiler = new Session();
        profiler.connect();
        await profiler.post('Profiler.enable');
        await profiler.post('Profiler.setSamplingInterval', { interval: 200 });
        await profiler.post('Profiler.start');
        send({ type: 'ok' });
      } else if (message.type === 'profile-stop' && profiler) {
        send({ type: 'profile', ...(await stopProfile(profiler)) });
        profiler.disconnect();
      } else if (message.type === 'memory') {
        const usage = process.memoryUsage();
        send({ type: 'memory', rss: usage.rss, heapUsed: usage.heapUsed });
      } else {
        await server.close();
        app.close();
        send({ type: 'closed' });
        process.disconnect?.();
      }
    })();
  });
  send({ type: 'ready', url: server.url });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
