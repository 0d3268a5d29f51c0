import { type Benchmark, type BenchResult, median, percentile } from '../bench-result';
import { ensureRendererBuilt, type Host, launchBrowser, ms, type openConsole, openProbedPlan, paintLatencies, PROFILING, profileRound, startHost, tempDataDir } from './harness';
import { PAGE_PROBE } from './page-probe';
import { seedPlans } from './seed';

const RATE_PER_SECOND = 5_000;
const DURATION_MS = 5_000;
const WARM_UP_MS = 1_000;
const RUNS = 3;
/** Shorter than the log's runs: every entry stays in the list, which grows by 5,000 a second. */
const CHANGES_DURATION_MS = 3_000;
const LATENCY_BUDGET_MS = 50;
/** The renderer's event window (renderer/src/store/merge-events.ts MAX_EVENTS). */
const WINDOW = 10_000;

interface FrameRecord {
  seq: number;
  count: number;
  painted: number;
}

export interface StreamRun {
  p95: number;
  p50: number;
  max: number;
  published: number;
  lost: number;
  holes: number;
  frames: number;
  publishMs: number;
}

/**
 * Publishes RATE_PER_SECOND events for DURATION_MS through the host's EventPublisher for the plan
 * open in the page, and joins the host's timestamp of every event (Date.now() before publishing)
 * with the wall-clock time of the first painted frame whose log showed it (its last seq at or past
 * the event's). A frame whose count of events was short of what its last seq implies had a hole.
 */
async function streamOnce(host: Host, page: Awaited<ReturnType<typeof openConsole>>, planId: string, durationMs: number): Promise<StreamRun> {
  const offset = (await page.evaluate('window.__bench.clockOffset()')) as number;
  await page.evaluate('window.__bench.startStream()');
  const published = await host.request({ type: 'publish', planId, ratePerSecond: RATE_PER_SECOND, durationMs }, 'published');
  const lastSeq = published.firstSeq + published.hostTs.length - 1;
  try {
    await page.waitForSelector(`[data-testid="event-log"][data-last-seq="${lastSeq}"]`, { timeout: 30_000 });
  } catch {
    // Counted as lost below.
  }
  await page.waitForTimeout(100);
  const frames = ((await page.evaluate('window.__bench.stopStream()')) as FrameRecord[]).filter((f) => f.painted > 0);

  const latencies: number[] = [];
  let lost = 0;
  let f = 0;
  for (let i = 0; i < published.hostTs.length; i++) {
    const seq = published.firstSeq + i;
    while (f < frames.length && frames[f].seq < seq) f++;
    if (f === frames.length) {
      lost = published.hostTs.length - i;
      break;
    }
    latencies.push(frames[f].painted - offset - published.hostTs[i]);
  }
  const holes = frames.filter((r) => r.seq >= published.firstSeq && r.count !== Math.min(r.seq, WINDOW)).length;
  return {
    p95: percentile(latencies, 95),
    p50: percentile(latencies, 50),
    max: Math.max(...latencies),
    published: published.hostTs.length,
    lost,
    holes,
    frames: frames.length,
    publishMs: published.elapsedMs,
  };
}

interface ChangeRun {
  p95: number;
  p50: number;
  published: number;
  lost: number;
  listReads: number;
}

/**
 * Records RATE_PER_SECOND change entries for `durationMs` (each with its change_recorded event in
 * the same commit) for the plan whose Changes tab is open, and joins each entry's commit time with
 * the paint of the first frame whose list held it (its row count at or past the entry's place).
 */
async function changesOnce(host: Host, page: Awaited<ReturnType<typeof openConsole>>, planId: string, durationMs: number): Promise<ChangeRun> {
  const offset = (await page.evaluate('window.__bench.clockOffset()')) as number;
  const before = Number(await page.locator('[data-testid="change-list"]').getAttribute('data-count'));
  await page.evaluate('window.__bench.startChanges()');
  const published = await host.request({ type: 'publish-changes', planId, ratePerSecond: RATE_PER_SECOND, durationMs }, 'published-changes');
  const expected = before + published.hostTs.length;
  try {
    await page.waitForSelector(`[data-testid="change-list"][data-count="${expected}"]`, { timeout: 30_000 });
  } catch {
    // Counted as lost below.
  }
  await page.waitForTimeout(100);
  const frames = ((await page.evaluate('window.__bench.stopChanges()')) as { count: number; painted: number }[]).filter((f) => f.painted > 0);
  const { latencies, lost } = paintLatencies(frames, before, published.hostTs, offset);
  return { p95: percentile(latencies, 95), p50: percentile(latencies, 50), published: published.hostTs.length, lost, listReads: published.listReads };
}

export async function runStreamBench(): Promise<BenchResult[]> {
  ensureRendererBuilt();
  const data = tempDataDir('stream');
  let host: Host | null = null;
  const browser = await launchBrowser();
  try {
    const [plan] = await seedPlans(data.dir, [{ name: 'Streaming plan', decisions: 20, events: 10, changedFiles: 5 }]);
    host = await startHost(data.dir);
    const page = await openProbedPlan(browser, host.url, plan.planId, PAGE_PROBE);
    await page.locator('[data-testid="tab-events"]').click();
    await page.waitForSelector(`[data-testid="event-row"][data-seq="${plan.lastSeq}"]`);
    await page.waitForTimeout(500);

    // A second of streaming first, unmeasured: the page's JIT and the host's statements warm up.
    await streamOnce(host, page, plan.planId, WARM_UP_MS);
    const runs: StreamRun[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await streamOnce(host, page, plan.planId, DURATION_MS));
    if (PROFILING) {
      const cdp = await page.context().newCDPSession(page);
      const running = host;
      await profileRound(running, cdp, `streaming ${RATE_PER_SECOND} events/s`, () => streamOnce(running, page, plan.planId, 2_000));
    }
    // Event to paint: the same rate of recorded changes, with the Changes tab open.
    await page.locator('[data-testid="tab-changes"]').click();
    await page.waitForSelector('[data-testid="change-list"]');
    await page.waitForTimeout(300);
    await changesOnce(host, page, plan.planId, WARM_UP_MS);
    const changeRuns: ChangeRun[] = [];
    for (let i = 0; i < RUNS; i++) changeRuns.push(await changesOnce(host, page, plan.planId, CHANGES_DURATION_MS));
    if (PROFILING) {
      const cdp = await page.context().newCDPSession(page);
      const running = host;
      await profileRound(running, cdp, `recording ${RATE_PER_SECOND} changes/s`, () => changesOnce(running, page, plan.planId, 2_000));
    }
    const changeP95 = median(changeRuns.map((r) => r.p95));
    const changeReads = changeRuns.reduce((n, r) => n + r.listReads, 0);
    const changeLost = changeRuns.reduce((n, r) => n + r.lost, 0);

    const p95 = median(runs.map((r) => r.p95));
    const published = runs.reduce((n, r) => n + r.published, 0);
    const lost = runs.reduce((n, r) => n + r.lost, 0);
    const holes = runs.reduce((n, r) => n + r.holes, 0);
    return [
      {
        name: 'event stream: host-to-paint latency',
        figure: `p95 ${ms(p95)} at ${RATE_PER_SECOND}/s (median of ${RUNS})`,
        budget: `< ${LATENCY_BUDGET_MS} ms`,
        pass: p95 < LATENCY_BUDGET_MS,
        details: {
          p95Ms: p95,
          p50Ms: median(runs.map((r) => r.p50)),
          maxMs: Math.max(...runs.map((r) => r.max)),
          runsP95Ms: runs.map((r) => r.p95.toFixed(1)).join(' '),
          achievedRatePerSecond: Math.round(published / (runs.reduce((n, r) => n + r.publishMs, 0) / 1000)),
        },
      },
      {
        name: 'event to paint: a recorded change in the open list',
        figure: `p95 ${ms(changeP95)} at ${RATE_PER_SECOND}/s (median of ${RUNS}), ${changeReads} list reads, ${changeLost} lost`,
        budget: `< ${LATENCY_BUDGET_MS} ms, 0 reads`,
        pass: changeP95 < LATENCY_BUDGET_MS && changeReads === 0 && changeLost === 0,
        details: {
          p95Ms: changeP95,
          p50Ms: median(changeRuns.map((r) => r.p50)),
          runsP95Ms: changeRuns.map((r) => r.p95.toFixed(1)).join(' '),
          listReads: changeReads,
          lost: changeLost,
          published: changeRuns.reduce((n, r) => n + r.published, 0),
        },
      },
      {
        name: 'event stream: events lost',
        figure: `${lost} of ${published} (${holes} frames with a hole)`,
        budget: '0',
        pass: lost === 0 && holes === 0,
        details: { published, lost, framesWithHole: holes, framesPainted: runs.reduce((n, r) => n + r.frames, 0) },
      },
    ];
  } finally {
    await browser.close();
    await host?.close();
    data.remove();
  }
}

export const eventStreamBenchmark: Benchmark = { name: 'event stream', run: runStreamBench };
