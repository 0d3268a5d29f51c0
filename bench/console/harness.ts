import { type ChildProcess, fork, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type CDPSession, chromium, type Page } from '@playwright/test';
import type { HostReply, HostRequest } from './host';

export const ROOT = resolve(__dirname, '..', '..');
/** The built renderer; BENCH_RENDERER_DIR points at another build (e.g. an unminified one to profile). */
export const RENDERER_DIR = process.env.BENCH_RENDERER_DIR ?? join(ROOT, 'out', 'renderer');

/** The flags TOOLCHAIN.md gives for Debian's Chromium on these machines. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the renderer (`npx electron-vite build`) when out/renderer is missing or older than its sources. */
export function ensureRendererBuilt(): void {
  if (process.env.BENCH_RENDERER_DIR) return;
  const index = join(RENDERER_DIR, 'index.html');
  const sources = Math.max(newestMtime(join(ROOT, 'renderer')), newestMtime(join(ROOT, 'shared')));
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  process.stderr.write('  building the renderer (npx electron-vite build)…\n');
  const result = spawnSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`npx electron-vite build failed with ${result.status}`);
}

export function tempDataDir(label: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `agents-bench-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Peak and current resident set of a process, in bytes (Linux /proc). */
export function residentSet(pid: number): { peak: number; current: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { peak: kib('VmHWM'), current: kib('VmRSS') };
}

export interface Host {
  url: string;
  pid: number;
  request<T extends HostReply['type']>(message: HostRequest, expect: T): Promise<Extract<HostReply, { type: T }>>;
  close(): Promise<void>;
}

/** `agents serve`'s server in a child process (bench/console/host.ts) on `dataDir`. */
export async function startHost(dataDir: string): Promise<Host> {
  const child: ChildProcess = fork(join(__dirname, 'host.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_DATA_DIR: dataDir, BENCH_RENDERER_DIR: RENDERER_DIR },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T extends HostReply['type']>(type: T) =>
    new Promise<Extract<HostReply, { type: T }>>((resolveReply, reject) => {
      const onMessage = (reply: HostReply) => {
        if (reply.type !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolveReply(reply as Extract<HostReply, { type: T }>);
      };
      const onExit = (code: number | null) => reject(new Error(`the bench host exited with ${code}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ready = await next('ready');
  return {
    url: ready.url,
    pid: child.pid ?? -1,
    request(message, expect) {
      const reply = next(expect);
      child.send(message);
      return reply;
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.send({ type: 'close' } satisfies HostRequest);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Opens the console and waits for the plan list. */
export async function openConsole(browser: Browser, url: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  await page.waitForSelector('body[data-app-state="loaded"]', { timeout: 60_000 });
  return page;
}

/**
 * Joins each published item's host time with the paint of the first frame that showed it (whose
 * count reached `before` plus the item's place); items no frame showed are lost.
 */
export function paintLatencies(frames: readonly { count: number; painted: number }[], before: number, hostTs: readonly number[], clockOffset: number): { latencies: number[]; lost: number } {
  const latencies: number[] = [];
  let f = 0;
  for (let i = 0; i < hostTs.length; i++) {
    while (f < frames.length && frames[f].count < before + i + 1) f++;
    if (f === frames.length) return { latencies, lost: hostTs.length - i };
    latencies.push(frames[f].painted - clockOffset - hostTs[i]);
  }
  return { latencies, lost: 0 };
}

/** The console with the page probe installed, the given plan open: where the console benches measure. */
export async function openProbedPlan(browser: Browser, url: string, planId: string, probe: string): Promise<Page> {
  const page = await openConsole(browser, url);
  await page.addInitScript({ content: probe });
  await page.reload();
  await page.waitForSelector('body[data-app-state="loaded"]');
  await page.locator(`[data-testid="plan-row"][data-plan-id="${planId}"]`).click();
  return page;
}

export function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

export function mib(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/**
 * Runs `body` under the page's V8 CPU profiler (Chrome DevTools Protocol) and returns the
 * functions with the most self time: where the page's main thread went.
 */
export async function profilePage(cdp: CDPSession, body: () => Promise<unknown>, top = 15): Promise<{ totalMs: number; top: { fn: string; selfMs: number }[] }> {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await body();
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] } };
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const byFn = new Map<string, number>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url ? `${f.url.split('/').pop()}:${f.lineNumber + 1}` : ''}`.trim();
    byFn.set(name, (byFn.get(name) ?? 0) + (self.get(node.id) ?? 0));
  }
  const totalMs = [...byFn.values()].reduce((a, b) => a + b, 0);
  return { totalMs, top: [...byFn.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([fn, selfMs]) => ({ fn, selfMs })) };
}

/** BENCH_PROFILE=1: the console benchmarks profile one more round of what they measure and print where the time went. */
export const PROFILING = process.env.BENCH_PROFILE === '1';

/** Runs `body` under the page's and the host's CPU profilers and prints both summaries (stderr). */
export async function profileRound(host: Host, cdp: CDPSession, label: string, body: () => Promise<unknown>): Promise<void> {
  await host.request({ type: 'profile-start' }, 'ok');
  const page = await profilePage(cdp, body, 15);
  const hostProfile = await host.request({ type: 'profile-stop' }, 'profile');
  const lines = (title: string, p: { totalMs: number; top: { fn: string; selfMs: number }[] }) =>
    [`  ${title}: ${p.totalMs.toFixed(0)} ms sampled, most self time:`, ...p.top.map((e) => `    ${e.selfMs.toFixed(1).padStart(8)} ms  ${e.fn}`)].join('\n');
  process.stderr.write(`profile of ${label}\n${lines('page', page)}\n${lines('host', hostProfile)}\n`);
}

interface TraceEvent {
  name: string;
  ph: string;
  dur?: number;
  tid: number;
  pid: number;
  ts: number;
  /** CPU time of an X event on its thread, when the tracer knows it. */
  tdur?: number;
  args?: { data?: { frame?: string }; name?: string };
}

export interface FrameTrace {
  /** Main-thread wall time spent running tasks within each frame (between consecutive marks), ms. */
  busy: number[];
  /** The same tasks' CPU time on that thread, ms: the work itself, without time the thread waited for a core. */
  cpu: number[];
  /** The frames' lengths, ms. */
  intervals: number[];
}

/**
 * Traces `body` (Chrome DevTools Protocol, categories toplevel and blink.user_timing) and cuts the
 * renderer main thread's time at each `performance.mark(markName)` the page makes (one per
 * animation frame): for each frame, how long it was, and how much of it the main thread spent
 * running tasks (script, style, layout, paint: everything the frame needed on that thread), as
 * wall time and as CPU time.
 */
export async function traceFrames(cdp: CDPSession, markName: string, body: () => Promise<unknown>): Promise<FrameTrace> {
  const events: TraceEvent[] = [];
  const onData = (payload: { value: unknown[] }) => {
    events.push(...(payload.value as TraceEvent[]));
  };
  cdp.on('Tracing.dataCollected', onData);
  const complete = new Promise<void>((done) => cdp.once('Tracing.tracingComplete', () => done()));
  await cdp.send('Tracing.start', { categories: 'toplevel,blink.user_timing', transferMode: 'ReportEvents' });
  await body();
  await cdp.send('Tracing.end');
  await complete;
  cdp.off('Tracing.dataCollected', onData);
  const marks = events.filter((e) => e.name === markName).sort((a, b) => a.ts - b.ts);
  if (marks.length < 2) return { busy: [], cpu: [], intervals: [] };
  const { pid, tid } = marks[0];
  // The thread's outermost tasks; nested ones are inside these.
  const tasks = events
    .filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && e.dur !== undefined && /RunTask/.test(e.name))
    .sort((a, b) => a.ts - b.ts);
  const top: { start: number; end: number; cpu: number }[] = [];
  for (const task of tasks) {
    const last = top.at(-1);
    const end = task.ts + (task.dur ?? 0);
    if (last && task.ts < last.end) {
      if (end > last.end) last.end = end;
    } else top.push({ start: task.ts, end, cpu: task.tdur ?? task.dur ?? 0 });
  }
  // A frame starts with the task that runs its animation-frame callbacks.
  const starts = marks.map((m) => top.find((t) => t.start <= m.ts && m.ts <= t.end)?.start ?? m.ts);
  const busy: number[] = [];
  const cpu: number[] = [];
  const intervals: number[] = [];
  for (let i = 0; i + 1 < starts.length; i++) {
    const [from, to] = [starts[i], starts[i + 1]];
    let wall = 0;
    let work = 0;
    for (const t of top) {
      if (t.end <= from) continue;
      if (t.start >= to) break;
      const overlap = Math.min(t.end, to) - Math.max(t.start, from);
      wall += overlap;
      work += t.end > t.start ? (t.cpu * overlap) / (t.end - t.start) : 0;
    }
    busy.push(wall / 1000);
    cpu.push(work / 1000);
    intervals.push((to - from) / 1000);
  }
  return { busy, cpu, intervals };
}
