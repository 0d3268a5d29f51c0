import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openApp } from '../../main/app/open-app';
import { withBenchDatabase } from './database';
import { fileWritingAgent } from '../../tests/support/scripted-agent';
import { ScriptedModelServer } from '../../tests/support/scripted-model-server';
import { Team } from '../../tests/team/team-harness';
import type { Benchmark, BenchResult } from '../bench-result';
import { paired, ratioFigure, scratchDir } from '../engine/util';

const PLANS = Number(process.env.BENCH_TEAM_PLANS ?? 30);
const REPS = Number(process.env.BENCH_TEAM_REPS ?? 1);
const LATENCY_MS = 200;
const WORKERS = 3;
const BUDGET = 0.45;

/** What the scripted model writes: two files, one a step (strategize 2 replies, each step 3: 8 replies of 200 ms a plan). */
const FILES = { 'NOTES.md': '# Notes\n', 'CHANGELOG.md': '# Changelog\n' };

function agentPlan(i: number, project: string): string {
  return [`name: bench-${i}`, `project: ${JSON.stringify(project)}`, 'agent: true', 'automationProfile: full-auto', 'definitionOfDone: |', '  - NOTES.md and CHANGELOG.md exist', ''].join('\n');
}

/**
 * `workers` worker processes (`agents worker --concurrency 1`, each its own data directory) on a
 * fresh database; `PLANS` agent plans created by a client (this process, as the CLI would be) and
 * queued at once; the time from the first enqueue to the last plan ready to apply.
 */
async function timeTeam(serverUrl: string, workers: number, model: ScriptedModelServer, scratch: string, rep: number): Promise<number> {
  const name = `bench_team_${workers}_${rep}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const env = { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: model.baseUrl, AGENTS_API_KEY: '' };
  const team = new Team(url.toString(), env);
  const dataDir = path.join(scratch, `client-${name}`);
  mkdirSync(dataDir);
  const client = await openApp({ dataDir, env, database: url.toString(), migrate: true });
  try {
    await Promise.all(Array.from({ length: workers }, (_, i) => team.worker(`bench-${i + 1}`, { concurrency: 1 })));
    const project = path.join(scratch, 'project');
    const ids: string[] = [];
    for (let i = 0; i < PLANS; i++) ids.push((await client.service.createFromContent({ content: agentPlan(i, project) }, scratch)).id);
    const started = performance.now();
    for (const id of ids) await client.service.run(id, { detach: true });
    for (;;) {
      const plans = (await client.service.list()).filter((p) => ids.includes(p.id));
      const failed = plans.find((p) => p.processingState === 'errored');
      if (failed) throw new Error(`team throughput: plan ${failed.name} failed: ${failed.errorMessage}`);
      if (plans.every((p) => p.phase === 'apply' && p.processingState === 'queued')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ms = performance.now() - started;
    const ran = team.workers.map((w) => w.ran().size);
    process.stderr.write(`  ${workers} worker(s): ${PLANS} plans in ${(ms / 1000).toFixed(1)} s (plans per worker: ${ran.join(', ')})\n`);
    return ms;
  } finally {
    await team.dispose();
    await client.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/**
 * Team mode's throughput: agent plans against the scripted model server answering each request
 * after 200 ms, as a model mostly makes a run wait. Three worker processes of concurrency 1 should
 * finish 30 plans in at most 0.45 of the time one does (a third, plus the queue's and the
 * machine's share). Runs against a throwaway local cluster, or AGENTS_TEST_DATABASE_URL's server.
 */
export const teamThroughputBenchmark: Benchmark = {
  name: 'team throughput',
  async run(): Promise<BenchResult[]> {
    const label = `${WORKERS} workers vs 1, ${PLANS} agent plans at ${LATENCY_MS} ms a model reply`;
    return withBenchDatabase({ name: label, budget: `<= ${BUDGET}` }, async (serverUrl) => {
      const model = new ScriptedModelServer();
      await model.start();
      const agent = fileWritingAgent(FILES);
      model.respondWith((request, index) => ({ ...agent(request, index), latencyMs: LATENCY_MS }));
      const scratch = scratchDir('team');
      try {
        mkdirSync(path.join(scratch.dir, 'project'));
        writeFileSync(path.join(scratch.dir, 'project', 'README.md'), '# Demo\n');
        const runs = await paired(
          REPS,
          (rep) => timeTeam(serverUrl, WORKERS, model, scratch.dir, rep),
          (rep) => timeTeam(serverUrl, 1, model, scratch.dir, rep),
        );
        const { ratio, figure, details } = ratioFigure(runs);
        return [{ name: label, figure, budget: `<= ${BUDGET}`, pass: ratio <= BUDGET, details: { ...details, plans: PLANS, latencyMs: LATENCY_MS } }];
      } finally {
        await model.close();
        scratch.cleanup();
      }
    });
  },
};
