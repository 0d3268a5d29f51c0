import { type Benchmark, type BenchResult, median, percentile } from '../bench-result';
import { ensureRendererBuilt, type Host, launchBrowser, ms, type openConsole, openProbedPlan, paintLatencies, PROFILING, profileRound, startHost, tempDataDir } from './harness';
import { PAGE_PROBE } from './page-probe';
import { seedPlans } from './seed';

const RATE_PER_SECOND = 5_000;
const DURATION_MS = 3_000;
const WARM_UP_MS = 1_000;
const RUNS = 3;
const LATENCY_BUDGET_MS = 50;

interface CallRun {
  p95: number;
  p50: number;
  published: number;
  lost: number;
  invocationReads: number;
}

type Page = Awaited<ReturnType<typeof openConsole>>;

/**
 * Records RATE_PER_SECOND tool calls of one step for `durationMs` (each invocation with its
 * tool_call_finished event in the same commit) while the plan's tree is open, and joins each call's
 * commit time with the paint of the first frame whose row counted it.
 */
async function callsOnce(host: Host, page: Page, planId: string, decisionId: string, durationMs: number): Promise<CallRun> {
  const offset = (await page.evaluate('window.__bench.clockOffset()')) as number;
  const row = `[data-testid="decision-row"][data-decision-id="${decisionId}"]`;
  const before = Number(await page.locator(row).getAttribute('data-ran'));
  await page.evaluate(`window.__bench.startCalls(${JSON.stringify(decisionId)})`);
  const published = await host.request({ type: 'publish-calls', planId, decisionId, ratePerSecond: RATE_PER_SECOND, durationMs }, 'published-calls');
  try {
    await page.waitForSelector(`${row}[data-ran="${before + published.hostTs.length}"]`, { timeout: 30_000 });
  } catch {
    // Counted as lost below.
  }
  await page.waitForTimeout(100);
  const frames = ((await page.evaluate('window.__bench.stopCalls()')) as { ran: number; painted: number }[]).filter((f) => f.painted > 0);
  const { latencies, lost } = paintLatencies(
    frames.map((frame) => ({ count: frame.ran, painted: frame.painted })),
    before,
    published.hostTs,
    offset,
  );
  return { p95: percentile(latencies, 95), p50: percentile(latencies, 50), published: published.hostTs.length, lost, invocationReads: published.invocationReads };
}

export async function runToolCallBench(): Promise<BenchResult[]> {
  ensureRendererBuilt();
  const data = tempDataDir('calls');
  let host: Host | null = null;
  const browser = await launchBrowser();
  try {
    const [plan] = await seedPlans(data.dir, [{ name: 'Tool-calling plan', decisions: 20, events: 10, changedFiles: 5 }]);
    host = await startHost(data.dir);
    const page = await openProbedPlan(browser, host.url, plan.planId, PAGE_PROBE);
    // A step in view: the calls land in its row, as a running step's do.
    const step = plan.decisionIds[2];
    await page.waitForSelector(`[data-testid="decision-row"][data-decision-id="${step}"]`);
    await page.waitForTimeout(500);

    await callsOnce(host, page, plan.planId, step, WARM_UP_MS);
    const runs: CallRun[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await callsOnce(host, page, plan.planId, step, DURATION_MS));
    if (PROFILING) {
      const cdp = await page.context().newCDPSession(page);
      const running = host;
      await profileRound(running, cdp, `recording ${RATE_PER_SECOND} tool calls/s`, () => callsOnce(running, page, plan.planId, step, 2_000));
    }
    const p95 = median(runs.map((r) => r.p95));
    const reads = runs.reduce((n, r) => n + r.invocationReads, 0);
    const lost = runs.reduce((n, r) => n + r.lost, 0);
    return [
      {
        name: 'event to paint: a tool call in the open tree',
        figure: `p95 ${ms(p95)} at ${RATE_PER_SECOND}/s (median of ${RUNS}), ${reads} list reads, ${lost} lost`,
        budget: `< ${LATENCY_BUDGET_MS} ms, 0 reads`,
        pass: p95 < LATENCY_BUDGET_MS && reads === 0 && lost === 0,
        details: {
          p95Ms: p95,
          p50Ms: median(runs.map((r) => r.p50)),
          runsP95Ms: runs.map((r) => r.p95.toFixed(1)).join(' '),
          invocationReads: reads,
          lost,
          published: runs.reduce((n, r) => n + r.published, 0),
        },
      },
    ];
  } finally {
    await browser.close();
    await host?.close();
    data.remove();
  }
}

export const toolCallBenchmark: Benchmark = { name: 'tool calls', run: runToolCallBench };
