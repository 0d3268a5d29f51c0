import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkerInfo } from '../../main/app/team/run-queue';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import { ROOT } from '../cli/cli-harness';
import { scriptedModelEnv } from '../cli/plan-files';
import { fileWritingAgent } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { readyToApply, type ShownPlan, Team } from './team-harness';
import { consoleClient } from './team-processes';

const PLANS = 20;

/** A scripted plan: a file written, then a shell command that checks it is there. */
function scriptedPlan(i: number, project: string): string {
  return [
    `name: scripted-${i}`,
    `project: ${JSON.stringify(project)}`,
    'automationProfile: trusted',
    'definitionOfDone:',
    `  - step: Write out/${i}.txt`,
    `    tools: [{ tool: file.write, args: { path: "out/${i}.txt", content: "${i}\\n" } }]`,
    '  - step: Check it is there',
    `    tools: [{ tool: shell.run, args: { command: "test -f out/${i}.txt" } }]`,
    '',
  ].join('\n');
}

/** An agent plan under full-auto: the scripted model proposes one step and writes NOTES.md in it. */
function agentPlan(i: number, project: string): string {
  return [`name: agent-${i}`, `project: ${JSON.stringify(project)}`, 'agent: true', 'automationProfile: full-auto', 'definitionOfDone: |', '  - NOTES.md exists', ''].join('\n');
}

describe.skipIf(!testPostgres().url)(postgresSuiteName('team mode with real processes: two workers and a console on one database'), () => {
  const database = useFreshDatabase();
  const model = new ScriptedModelServer();
  let team: Team | undefined;
  beforeAll(async () => {
    await model.start();
    model.respondWith(fileWritingAgent({ 'NOTES.md': '# Notes\n' }));
  });
  afterAll(async () => {
    await team?.dispose();
    await model.close();
  });

  it(`runs ${PLANS} plans, scripted and agent, created in the console and queued from the CLI with --detach, on both workers`, async () => {
    team = new Team(database.url(), scriptedModelEnv(model));
    const project = join(team.base, 'project');
    cpSync(join(ROOT, 'examples', 'demo-project'), project, { recursive: true });
    // Two workers migrating the fresh database at once, then a console on it.
    const [a, b] = await Promise.all([team.worker('worker-a', { concurrency: 2 }), team.worker('worker-b', { concurrency: 2 })]);
    const served = await team.serve();
    const console = await consoleClient(served);

    const ids: string[] = [];
    for (let i = 0; i < PLANS; i++) {
      const reply = await console.call('plans.create', { content: i % 2 === 0 ? scriptedPlan(i, project) : agentPlan(i, project) });
      expect(reply, JSON.stringify(reply)).toMatchObject({ ok: true });
      ids.push((reply as unknown as { data: { plan: { id: string } } }).data.plan.id);
    }
    // Four CLI processes at a time; each returns once its run is queued.
    for (let i = 0; i < ids.length; i += 4) {
      const queued = await Promise.all(ids.slice(i, i + 4).map((id) => team!.agents(['plan', 'run', id, '--detach'])));
      for (const result of queued) {
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toMatch(/ queued; follow it with: agents plan show /);
      }
    }
    const listed = await team.json<{ workers: WorkerInfo[]; queue: { queued: number; active: number } }>(['workers']);
    expect(listed.workers.map((w) => [w.name, w.live, w.concurrency]).sort()).toEqual([
      ['worker-a', true, 2],
      ['worker-b', true, 2],
    ]);

    const plans = await team.allReadyToApply(ids, 240_000);
    expect(plans).toHaveLength(PLANS);
    // Both workers ran some, and no plan was run by both.
    const [ranA, ranB] = [a.ran(), b.ran()];
    expect(ranA.size, a.log()).toBeGreaterThan(0);
    expect(ranB.size, b.log()).toBeGreaterThan(0);
    expect(ranA.size + ranB.size).toBe(PLANS);
    expect(new Set([...ranA, ...ranB])).toEqual(new Set(ids));

    // The console sees every plan of the team as the CLI does.
    const inConsole = (await console.call('plans.list', {})) as unknown as { data: { plans: ShownPlan[] } };
    expect(inConsole.data.plans.filter((p) => ids.includes(p.id) && readyToApply(p))).toHaveLength(PLANS);
    // One of each kind, in full: what the worker changed is in the database the client reads.
    const shown = await team.json<ShownPlan>(['plan', 'show', ids[1]!]);
    expect(shown).toMatchObject({ name: 'agent-1', phase: 'apply', processingState: 'queued' });
    const agentDiff = await team.json<{ entries: { path: string }[] }>(['plan', 'diff', ids[1]!]);
    expect(agentDiff.entries.map((e) => e.path)).toEqual(['NOTES.md']);
    const scriptedDiff = await team.json<{ entries: { path: string }[] }>(['plan', 'diff', ids[0]!]);
    expect(scriptedDiff.entries.map((e) => e.path)).toEqual(['out/0.txt']);
    await console.close();

    const idle = await team.json<{ workers: WorkerInfo[]; queue: { queued: number; active: number } }>(['workers']);
    expect(idle.queue).toEqual({ queued: 0, active: 0 });
    expect(idle.workers.every((w) => w.plans.length === 0)).toBe(true);
  }, 360_000);
});
