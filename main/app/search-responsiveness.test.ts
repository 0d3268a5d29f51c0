// A hostile pattern in file.search, in both phases of a real plan run in this process: the run ends
// promptly and the host's event loop is never frozen meanwhile (a backtracking engine would hold it
// for hours). How small the delay stays is a speed target, measured by `npm run bench -- --only search`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { searchingAgent } from '../../tests/support/scripted-agent';
import { ScriptedModelServer, transcript } from '../../tests/support/scripted-model-server';
import { CATASTROPHIC_PATTERN, searchProject } from '../../tests/support/search-project';
import { type App, openApp } from './open-app';

const server = new ScriptedModelServer();
let dir: string;
let app: App;

beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
afterEach(() => {
  app.close();
  server.reset();
  rmSync(dir, { recursive: true, force: true });
});

/** The event loop's delay, measured as `npm run bench` measures the executor's, over windows the test opens and closes. */
function delayProbe() {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  let opened = 0;
  let ms = 0;
  return {
    open() {
      opened = performance.now();
      loop.enable();
    },
    close() {
      if (opened === 0) return;
      loop.disable();
      ms += performance.now() - opened;
      opened = 0;
    },
    result: () => ({ ms, maxMs: loop.max / 1e6, samples: loop.count }),
  };
}

/** Measures over one phase of a plan run: from its start event to its end event. */
async function measured<T>(fn: () => Promise<T>, phase: [start: string, end: string]): Promise<{ value: T; ms: number; maxMs: number; samples: number }> {
  const probe = delayProbe();
  const unsubscribe = app.service.events.subscribe((event) => {
    if (event.type === phase[0]) probe.open();
    else if (event.type === phase[1]) probe.close();
  });
  try {
    return { value: await fn(), ...probe.result() };
  } finally {
    probe.close();
    unsubscribe();
  }
}

/**
 * A project to search and an app over it; returns the id of a plan to measure. A first plan of the
 * same file runs before, unmeasured: a host is long-lived, and loading the model SDK (hundreds of
 * milliseconds, once per process) and compiling the matcher are not what this measures.
 */
async function setUp(planYaml: (project: string) => string): Promise<string> {
  dir = mkdtempSync(path.join(tmpdir(), 'agents-search-'));
  const project = path.join(dir, 'project');
  searchProject(project);
  app = await openApp({ dataDir: path.join(dir, 'home'), env: { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl } });
  const file = path.join(dir, 'plan.yaml');
  writeFileSync(file, planYaml(project));
  await app.service.run((await app.service.createFromFile(file)).id);
  server.requests.length = 0;
  return (await app.service.createFromFile(file)).id;
}

const LONG = { timeout: 60_000 };
const found = [{ location: 'strings.txt:2', path: 'strings.txt', line: 2, column: 1, text: 'a'.repeat(40) }];

describe('file.search with a catastrophic pattern, in a plan run', () => {
  it('in strategize: the model gets its matches at once, and a backreference back as a one-line validation error', LONG, async () => {
    // Measured while the catastrophic search runs: from the reply that asks for it to the request that brings its result.
    const agent = searchingAgent([CATASTROPHIC_PATTERN, '(a)\\1']);
    let probe: ReturnType<typeof delayProbe> | null = null;
    server.respondWith((request, index) => {
      probe?.close();
      const reply = agent(request, index);
      if (reply.toolCalls?.some((c) => c.name === 'file_search' && (c.args as { pattern: string }).pattern === CATASTROPHIC_PATTERN)) probe?.open();
      return reply;
    });
    const id = await setUp(
      (project) => `name: search\nproject: ${JSON.stringify(project)}\nagent: true\nautomationProfile: full-auto\ndefinitionOfDone: "- Report the lines that are a run of a"\n`,
    );
    probe = delayProbe();
    const value = await app.service.run(id);
    const { ms, maxMs, samples } = probe.result();
    expect(value.processingState, JSON.stringify(value.errorDetails)).not.toBe('errored');
    const searches = (await app.service.invocations(id)).filter((i) => i.tool === 'file.search');
    expect(searches[0].result).toMatchObject({ pattern: CATASTROPHIC_PATTERN, matches: found, filesSearched: 3_001, truncated: false });
    expect(searches[1].error).toMatchObject({ category: 'validation' });
    expect(searches[1].error?.message).toMatch(/^args\.pattern: "\(a\)\\\\1" is not a valid regular expression in RE2 syntax: backreferences/);
    expect(searches[1].error?.message).not.toContain('\n');
    // Both answers reached the model, and it went on to propose.
    const proposing = server.requests.find((r) => r.tools?.some((t) => t.function.name === 'propose_plan') && r.messages.filter((m) => m.role === 'tool').length === 2);
    expect(transcript(proposing as never)).toContain('strings.txt:2');
    expect(transcript(proposing as never)).toContain('backreferences');
    expect(samples).toBeGreaterThan(0);
    expect(ms).toBeLessThan(15_000);
    // Never held for as long as a backtracking search of one line would hold it.
    expect(maxMs).toBeLessThan(2_000);
  });

  it('in execute: a scripted step searches and the plan goes on', LONG, async () => {
    const id = await setUp(
      (project) =>
        `name: search\nproject: ${JSON.stringify(project)}\ndefinitionOfDone:\n  - step: Find the runs of a\n    tools:\n      - { tool: file.search, args: { pattern: ${JSON.stringify(CATASTROPHIC_PATTERN)} } }\n`,
    );
    const { value, ms, maxMs, samples } = await measured(() => app.service.run(id), ['runtime_execute_started', 'runtime_execute_complete']);
    expect(value.processingState, JSON.stringify(value.errorDetails)).not.toBe('errored');
    const [search] = (await app.service.invocations(id)).filter((i) => i.tool === 'file.search');
    expect(search.result).toMatchObject({ matches: found, filesSearched: 3_001 });
    expect(samples).toBeGreaterThan(0);
    expect(ms).toBeLessThan(15_000);
    // Never held for as long as a backtracking search of one line would hold it.
    expect(maxMs).toBeLessThan(2_000);
  });
});
