/**
 * The console's host for the console benchmarks, in a process of its own so that its peak RSS is
 * its own: the real `openApp` + `startServer` on a seeded data directory and the built renderer.
 * Driven over IPC by bench/console/harness.ts.
 */
import { Session } from 'node:inspector/promises';
import { openApp } from '../../main/app/open-app';
import { startServer } from '../../main/web/server';

export type HostRequest =
  | { type: 'publish'; planId: string; ratePerSecond: number; durationMs: number }
  | { type: 'memory' }
  | { type: 'profile-start' }
  | { type: 'profile-stop' }
  | { type: 'close' };

export type HostReply =
  | { type: 'ready'; url: string }
  | { type: 'published'; firstSeq: number; hostTs: number[]; elapsedMs: number }
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
async function publish(app: ReturnType<typeof openApp>, planId: string, ratePerSecond: number, durationMs: number) {
  const total = Math.round((ratePerSecond * durationMs) / 1000);
  const hostTs: number[] = [];
  let firstSeq = 0;
  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - start) * ratePerSecond) / 1000));
      while (hostTs.length < due) {
        const ts = Date.now();
        const event = app.service.events.publish(planId, 'execute_step', {
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
    tick();
  });
  return { firstSeq, hostTs, elapsedMs: performance.now() - start };
}

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
  const app = openApp({ dataDir });
  const server = await startServer({ service: app.service, rendererDir, dataDir, log: () => undefined });
  let profiler: Session | null = null;
  process.on('message', (message: HostRequest) => {
    void (async () => {
      if (message.type === 'publish') {
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
