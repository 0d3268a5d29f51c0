import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../shared/domain';
import type { TestClient } from '../../main/web/test-support';
import { findPostgresBinDir, type PostgresCluster, startPostgresCluster } from '../../main/persistence/postgres/test-support/cluster';
import { scriptedModelEnv } from '../cli/plan-files';
import { fileWritingAgent } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { Team, type TeamWorker } from './team-harness';
import { consoleClient, data } from './team-processes';
import { foldDeltas, type ManifestDelta, type ManifestEntry } from '../../main/engine/checkpoints/manifest';
import { treeListing } from '../../main/engine/test-support/tree-hash';

/** The seed of this run: AGENTS_FAULT_SEED reruns a failing one. */
const SEED = Number(process.env.AGENTS_FAULT_SEED || Math.floor(Math.random() * 2 ** 31));
/** The size: 40 plans (scripted, agent, and supervised ones answered from a console) on 4 workers and 2 consoles, 60 s of faults. */
const PLANS = 28;
const WORKERS = 4;
const FAULT_WINDOW_MS = 60_000;
/** Plans on the supervised profile, queued from the consoles, whose approvals both consoles answer during the faults. */
const APPROVAL_PLANS = 6;
/** Agent plans, their model a scripted server on 127.0.0.1: it proposes one step that writes NOTES.md. */
const AGENT_PLANS = 6;

function agentPlanFile(project: string, n: number): string {
  return [`name: agent-${n}`, `project: ${JSON.stringify(project)}`, 'agent: true', 'automationProfile: full-auto', 'definitionOfDone: |', '  - NOTES.md exists', ''].join('\n');
}

/** mulberry32: the driver's moments and victims follow from the seed alone. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Four steps; the second appends a line and works 6 s (so the faults meet plans at work), and is not safe to run twice. */
function planFile(project: string, n: number): string {
  return [
    `name: faults-${n}`,
    `project: ${JSON.stringify(project)}`,
    'automationProfile: trusted',
    'definitionOfDone:',
    '  - step: Write the first file',
    `    tools: [{ tool: file.write, args: { path: one.txt, content: "${n}\\n" } }]`,
    '  - step: Append to the log, then work',
    '    tools:',
    `      - { tool: shell.run, args: { command: "echo ${n} >> log.txt && sleep 6" } }`,
    '  - step: Write the middle file',
    `    tools: [{ tool: file.write, args: { path: middle.txt, content: "m${n}\\n" } }]`,
    '  - step: Write the last file',
    `    tools: [{ tool: file.write, args: { path: two.txt, content: "2\\n" } }]`,
    '',
  ].join('\n');
}

/** Three steps; the second deletes a file, which the supervised profile asks the operator about. */
function approvalPlanFile(project: string, n: number): string {
  return [
    `name: approvals-${n}`,
    `project: ${JSON.stringify(project)}`,
    'automationProfile: supervised',
    'definitionOfDone:',
    '  - step: Write the notes',
    `    tools: [{ tool: file.write, args: { path: notes.txt, content: "${n}\\n" } }]`,
    '  - step: Remove the stale file',
    '    tools: [{ tool: file.delete, args: { path: old.txt } }]',
    '  - step: Write the last file',
    `    tools: [{ tool: file.write, args: { path: two.txt, content: "2\\n" } }]`,
    '',
  ].join('\n');
}

/** A path as treeListing lists it; a file whose mode nothing recorded (written after the checkpoint, new) with `?` for its mode. */
type Expected = ManifestEntry | { kind: 'file'; mode: number | null; hash: string };
function listed(rel: string, entry: Expected): string {
  if (entry.kind === 'symlink') return `L ${rel} -> ${entry.target}`;
  if (entry.kind === 'dir') return `D ${rel} ${entry.mode.toString(8)}`;
  return `F ${rel} ${entry.mode === null ? '?' : entry.mode.toString(8)} ${entry.hash}`;
}

/**
 * What a plan's sandbox must hold, from the database alone, as treeListing lists a folder: its last
 * checkpoint's files (modes, links, folders), then the changes recorded after it and not rewound.
 */
async function expectedListing(team: Team, planId: string): Promise<string[]> {
  const checkpoints = await team.query<{ delta: ManifestDelta; summary: { entries: number }; state: { changesetId: string | null } }>('SELECT delta, summary, state FROM checkpoints WHERE plan_id = $1 ORDER BY step', [planId]);
  const tree = new Map<string, Expected>(foldDeltas(checkpoints.map((c) => c.delta)));
  const last = checkpoints.at(-1);
  const entries = await team.query<{ changeset_id: string; path: string; old_path: string | null; operation: string; after_hash: string | null; rewound_by: string | null }>(
    'SELECT e.changeset_id, e.path, e.old_path, e.operation, e.after_hash, e.rewound_by FROM change_entries e JOIN changesets c ON c.id = e.changeset_id WHERE c.plan_id = $1 ORDER BY e.changeset_id, e.seq',
    [planId],
  );
  // Each entry's position in its changeset, as a checkpoint counts them (rewound ones too).
  const positions = new Map<string, number>();
  for (const entry of entries) {
    const index = positions.get(entry.changeset_id) ?? 0;
    positions.set(entry.changeset_id, index + 1);
    const before = last && last.state.changesetId === entry.changeset_id && index < last.summary.entries;
    if (before || entry.rewound_by) continue;
    const was = tree.get(entry.old_path ?? entry.path);
    if (entry.old_path) tree.delete(entry.old_path);
    if (entry.operation === 'delete' || entry.after_hash === null) tree.delete(entry.path);
    else tree.set(entry.path, { kind: 'file', mode: was?.kind === 'file' ? was.mode : null, hash: entry.after_hash });
  }
  return [...tree].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([rel, entry]) => listed(rel, entry));
}

/** The sandbox as treeListing lists it, with the modes the expected listing does not know left out. */
function sandboxListing(sandbox: string, expected: readonly string[]): string[] {
  const unknown = new Set(expected.filter((line) => / \? [0-9a-f]{64}$/.test(line)).map((line) => line.split(' ')[1]));
  return treeListing(sandbox).map((line) => {
    const [kind, rel, , hash] = line.split(' ');
    return kind === 'F' && unknown.has(rel!) ? `F ${rel} ? ${hash}` : line;
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A console call that gives up after `ms` (a console waiting on a restarting database): null then, or on an error reply. */
async function consoleCall<T>(client: TestClient, channel: string, request: unknown, ms = 15_000): Promise<T | null> {
  const timeout = sleep(ms).then(() => null);
  const reply = await Promise.race([client.call(channel, request), timeout]);
  if (!reply || reply.type !== 'reply' || !reply.ok) return null;
  return data<T>(reply);
}

/**
 * Team mode under injected faults, with real processes on a throwaway cluster: workers run plans
 * while a seeded driver SIGKILLs, SIGSTOPs and resumes workers, terminates their connections,
 * silences the event feed and restarts PostgreSQL once, and two consoles answer approvals. Then, from the database and the sandboxes:
 * every plan finished (scripted and agent plans; supervised ones queued from the consoles, whose approvals were answered once each); its events in seq order without a hole, each epoch no older than the one
 * before it and none stale; each change recorded once (what a killed step wrote is history); each
 * sandbox holds one line in its log however often its step was interrupted, and file for file
 * what its last checkpoint and the changes recorded after it say (read from the database alone).
 */
describe.skipIf(!findPostgresBinDir())('team mode under injected faults (seeded)', () => {
  let cluster: PostgresCluster;
  let team: Team;
  const model = new ScriptedModelServer();
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    await model.start();
    model.respondWith(fileWritingAgent({ 'NOTES.md': '# Notes\n' }));
    team = new Team(cluster.url, scriptedModelEnv(model));
  }, 60_000);
  afterAll(async () => {
    await team?.dispose();
    await model.close();
    await cluster?.stop();
  }, 60_000);

  it(`every plan finishes, everything recorded once, no stale write (seed ${SEED}; rerun with AGENTS_FAULT_SEED=${SEED})`, async () => {
    console.log(`fault injection seed ${SEED} (rerun with AGENTS_FAULT_SEED=${SEED})`);
    const rnd = random(SEED);
    const began = Date.now();
    const since = () => `${Math.round((Date.now() - began) / 1000)} s`;
    const project = join(team.base, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Demo\n');
    writeFileSync(join(project, 'old.txt'), 'stale\n');
    // Everything is queued before any worker starts, so the faults meet the team at work: 8 plans from
    // the CLI (each command is a process, a few at a time), the rest from the two consoles.
    const clients = [await consoleClient(await team.serve({ name: 'console-1' })), await consoleClient(await team.serve({ name: 'console-2' }))];
    const fromCli = async (name: string, content: string) => {
      const file = join(team.base, `${name}.yaml`);
      writeFileSync(file, content);
      const id = await team.create(file);
      const queued = await team.agents(['plan', 'run', id, '--detach']);
      expect(queued.code, queued.stderr).toBe(0);
      return id;
    };
    // A test client waits for one reply at a time: each console's calls go in turn.
    const turns = clients.map(() => Promise.resolve() as Promise<unknown>);
    const fromConsole = (n: number, content: string) => {
      const lane = n % clients.length;
      const client = clients[lane]!;
      const made = turns[lane]!.then(async () => {
        const id = (await consoleCall<{ plan: Plan }>(client, 'plans.create', { content }))?.plan.id;
        expect(id, `plan created from a console: ${content.split('\n')[0]}`).toBeTruthy();
        expect(await consoleCall(client, 'plans.run', { planId: id })).not.toBeNull();
        return id!;
      });
      turns[lane] = made.catch(() => undefined);
      return made;
    };
    const inTurn = async (count: number, make: (n: number) => Promise<string>, first = 1, at = 1) => {
      const made: string[] = [];
      for (let n = first; n < first + count; n += at) made.push(...(await Promise.all(Array.from({ length: Math.min(at, first + count - n) }, (_, i) => make(n + i)))));
      return made;
    };
    const CLI_PLANS = 6;
    const CLI_AGENT_PLANS = 2;
    const [cliIds, cliAgentIds, consoleIds, consoleAgentIds, approvalIds] = await Promise.all([
      inTurn(CLI_PLANS, (n) => fromCli(`plan-${n}`, planFile(project, n)), 1, 4),
      inTurn(CLI_AGENT_PLANS, (n) => fromCli(`agent-${n}`, agentPlanFile(project, n)), 1, 2),
      inTurn(PLANS - CLI_PLANS, (n) => fromConsole(n, planFile(project, n)), CLI_PLANS + 1, 2),
      inTurn(AGENT_PLANS - CLI_AGENT_PLANS, (n) => fromConsole(n, agentPlanFile(project, n)), CLI_AGENT_PLANS + 1, 2),
      inTurn(APPROVAL_PLANS, (n) => fromConsole(n, approvalPlanFile(project, n)), 1, 2),
    ]);
    const ids = [...cliIds, ...consoleIds];
    const agentIds = [...cliAgentIds, ...consoleAgentIds];
    const all = [...ids, ...approvalIds, ...agentIds];
    console.log(`${all.length} plans queued, ${since()} in`);

    let made = 0;
    const live: TeamWorker[] = [];
    const start = async () => {
      made += 1;
      const worker = await team.worker(`worker-${made}`, { concurrency: 2 });
      live.push(worker);
      return worker;
    };
    await Promise.all(Array.from({ length: WORKERS }, start));
    let answering = true;
    let answers = 0;
    // Both consoles answer the supervised plans' approvals while the faults go on.
    const answerers = clients.map(async (client) => {
      while (answering) {
        for (const id of approvalIds) {
          const shown = await consoleCall<{ plan: Plan }>(client, 'plans.get', { planId: id });
          if (shown?.plan.waitingFor !== 'approval') continue;
          // The other console may answer the same approval: a second answer is refused, so only one is counted.
          if (await consoleCall(client, 'plans.approve', { planId: id })) answers += 1;
        }
        await sleep(1_000);
      }
    });
    const readyToApply = async () => {
      const rows = await team.query<{ id: string; phase: string; processing_state: string }>('SELECT id, phase, processing_state FROM plans').catch(() => []);
      return rows.filter((r) => all.includes(r.id) && r.phase === 'apply' && r.processing_state === 'queued').length;
    };

    // The faults, at seeded moments.
    const faults: string[] = [];
    // By the order the workers were made, not the order they became ready: the seed alone picks the victim.
    const order = (worker: TeamWorker) => Number(worker.name.replace('worker-', ''));
    const pick = () => [...live].sort((x, y) => order(x) - order(y))[Math.floor(rnd() * live.length)]!;
    const ended = Date.now() + FAULT_WINDOW_MS;
    // PostgreSQL restarts once, in the window's first half, while the plans are at work.
    const restartAt = Date.now() + FAULT_WINDOW_MS * (0.15 + rnd() * 0.35);
    let restarted = false;
    let first = true;
    while (Date.now() < ended) {
      await sleep(2_000 + rnd() * 4_000);
      // The first fault kills a worker while every worker has plans at work, so some plan is always interrupted.
      const roll = first ? rnd() * 0.25 : rnd();
      first = false;
      faults.push(`(${since()}, ${await readyToApply()} of ${all.length} done)`);
      if (!restarted && Date.now() > restartAt) {
        restarted = true;
        faults.push('restart PostgreSQL');
        await cluster.restart();
      } else if (roll < 0.25 && live.length > 1) {
        const victim = pick();
        live.splice(live.indexOf(victim), 1);
        faults.push(`SIGKILL ${victim.name}`);
        victim.child.kill('SIGKILL');
        await start();
      } else if (roll < 0.45 && live.length > 1) {
        const victim = pick();
        live.splice(live.indexOf(victim), 1);
        const asleep = 12_000 + rnd() * 6_000;
        faults.push(`SIGSTOP ${victim.name} for ${Math.round(asleep / 1000)} s`);
        victim.child.kill('SIGSTOP');
        await start();
        setTimeout(() => victim.child.kill('SIGCONT'), asleep);
      } else if (roll < 0.75) {
        faults.push('terminate the workers\u2019 connections');
        await team.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'agents' AND pid <> pg_backend_pid()").catch(() => []);
      } else {
        faults.push('silence the feed for 5 s');
        await team.query('ALTER TABLE events DISABLE TRIGGER events_announce').catch(() => []);
        await sleep(5_000);
        await team.query('ALTER TABLE events ENABLE TRIGGER events_announce').catch(() => []);
      }
    }
    console.log(`faults (seed ${SEED}), ${since()} in: ${faults.join('; ')}`);

    // Every plan finishes (the supervised ones once a console has answered); a probe that meets the restart tries again.
    await team.until(`${all.length} plans ready to apply`, 300_000, async () => ((await readyToApply()) === all.length ? true : undefined), 2_000);
    // The faults met work: some plans were interrupted (their worker killed, stopped or cut off) and went on.
    const [{ n: resumed }] = await team.query<{ n: number }>("SELECT count(DISTINCT plan_id)::int AS n FROM error_records WHERE category = 'interrupted'");
    console.log(`all ${all.length} plans ready to apply, ${since()} in; ${resumed} of them interrupted and resumed`);
    expect(resumed, 'plans the faults interrupted').toBeGreaterThan(0);
    answering = false;
    await Promise.all(answerers);
    await Promise.all(clients.map((client) => client.close()));

    /** A plan's events, change entries and checkpoints in order, for a failing seed's report. */
    const history = async (id: string) => {
      const events = await team.query<{ seq: number; epoch: number | null; type: string; data: unknown }>('SELECT seq::int AS seq, epoch::int AS epoch, type, data FROM events WHERE plan_id = $1 ORDER BY seq', [id]);
      const entries = await team.query('SELECT e.changeset_id, e.seq, e.path, e.operation, e.rewound_by, e.invocation_id, e.created_at FROM change_entries e JOIN changesets c ON c.id = e.changeset_id WHERE c.plan_id = $1 ORDER BY e.changeset_id, e.seq', [id]);
      const checkpoints = await team.query("SELECT step, summary, state->>'changesetId' AS changeset FROM checkpoints WHERE plan_id = $1 ORDER BY step", [id]);
      const invocations = await team.query('SELECT id, decision_id, tool, ok, started_at FROM tool_invocations WHERE plan_id = $1 ORDER BY pos', [id]);
      return [
        ...events.map((e) => `event ${e.seq} (epoch ${e.epoch}) ${e.type} ${JSON.stringify(e.data).slice(0, 200)}`),
        ...entries.map((e) => `entry ${JSON.stringify(e)}`),
        ...checkpoints.map((c) => `checkpoint ${JSON.stringify(c)}`),
        ...invocations.map((i) => `invocation ${JSON.stringify(i)}`),
      ].join('\n');
    };

    /**
     * What holds for every plan: its events in seq order without a hole, each epoch no older than the
     * one before it and none past the plan's; each step decided once and done; each call recorded
     * once (a retried step's calls are new calls, with their own start); each of `paths` changed once,
     * not counting what a restored (interrupted) step wrote before; its sandbox, file for file, its
     * last checkpoint plus the changes after it, read from the database. Returns the sandbox.
     */
    const recordedOnce = async (id: string, paths: string[], steps?: string[]): Promise<{ name: string; sandbox: string }> => {
      const events = await team.query<{ seq: number; epoch: number | null }>('SELECT seq::int AS seq, epoch::int AS epoch FROM events WHERE plan_id = $1 ORDER BY seq', [id]);
      expect(events.map((e) => e.seq), `plan ${id}: seq with a hole`).toEqual(events.map((_, i) => i + 1));
      const [{ epoch: current }] = await team.query<{ epoch: number }>('SELECT epoch::int AS epoch FROM plan_epochs WHERE plan_id = $1', [id]);
      let last = 0;
      for (const { seq, epoch } of events) {
        if (epoch === null) continue;
        expect(epoch, `plan ${id}: event ${seq} carries epoch ${epoch} after ${last}`).toBeGreaterThanOrEqual(last);
        expect(epoch, `plan ${id}: event ${seq} carries epoch ${epoch}, past the plan's ${current}`).toBeLessThanOrEqual(current!);
        last = epoch;
      }
      const decided = await team.query<{ description: string; status: string }>("SELECT description, status FROM decisions WHERE plan_id = $1 AND type = 'strategy_choice' ORDER BY description", [id]);
      if (steps) expect(decided, `plan ${id}: its steps`).toEqual([...steps].sort().map((description) => ({ description, status: 'done' })));
      expect(new Set(decided.map((d) => d.description)).size, `plan ${id}: a step decided twice`).toBe(decided.length);
      expect(decided.filter((d) => d.status !== 'done'), `plan ${id}: steps not done`).toEqual([]);
      const twice = await team.query('SELECT decision_id, tool, started_at FROM tool_invocations WHERE plan_id = $1 GROUP BY decision_id, tool, started_at HAVING count(*) > 1', [id]);
      expect(twice, `plan ${id}: a call recorded twice`).toEqual([]);
      const entries = await team.query<{ path: string; n: number }>(
        'SELECT e.path, count(*)::int AS n FROM change_entries e JOIN changesets c ON c.id = e.changeset_id WHERE c.plan_id = $1 AND e.rewound_by IS NULL GROUP BY e.path ORDER BY e.path',
        [id],
      );
      const want = [...paths].sort().map((path) => ({ path, n: 1 }));
      if (JSON.stringify(entries) !== JSON.stringify(want)) console.log(`plan ${id}: its history\n${await history(id)}`);
      expect(entries, `plan ${id}: its changes`).toEqual(want);
      const [plan] = await team.query<{ name: string; sandbox: string }>("SELECT name, data->'sandboxRefs'->>0 AS sandbox FROM plans WHERE id = $1", [id]);
      expect(existsSync(plan!.sandbox), `plan ${id}: no sandbox at ${plan!.sandbox}`).toBe(true);
      const expected = await expectedListing(team, id);
      expect(sandboxListing(plan!.sandbox, expected), `plan ${id}: its sandbox against its last checkpoint and the changes after it`).toEqual(expected);
      return plan!;
    };

    for (const id of approvalIds) {
      await recordedOnce(id, ['notes.txt', 'old.txt', 'two.txt'], ['Write the notes', 'Remove the stale file', 'Write the last file']);
      // Each approval asked once and answered once, from a console.
      const approvals = await team.query<{ status: string }>('SELECT status FROM approvals WHERE plan_id = $1 ORDER BY pos', [id]);
      if (approvals.length !== 1) console.log(`plan ${id}: its history\n${await history(id)}`);
      expect(approvals.map((a) => a.status), `plan ${id}: its approvals`).toEqual(['approved']);
      const resolved = await team.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE plan_id = $1 AND type = 'approval_resolved'", [id]);
      expect(resolved[0]!.n, `plan ${id}: approval_resolved events`).toBe(1);
    }
    expect(answers).toBe(APPROVAL_PLANS);
    // The model's one step wrote NOTES.md once, however often its worker was taken over.
    for (const id of agentIds) await recordedOnce(id, ['NOTES.md']);
    for (const id of ids) {
      const { name, sandbox } = await recordedOnce(id, ['log.txt', 'middle.txt', 'one.txt', 'two.txt'], ['Write the first file', 'Append to the log, then work', 'Write the middle file', 'Write the last file']);
      // One line in the log however often its step was interrupted.
      const n = Number(name.replace('faults-', ''));
      expect(readFileSync(join(sandbox, 'log.txt'), 'utf8'), `plan ${id}: the log of its sandbox`).toBe(`${n}\n`);
      expect(readFileSync(join(sandbox, 'middle.txt'), 'utf8')).toBe(`m${n}\n`);
    }
    // No worker died of an unheard error: each one that ended was killed, or stopped itself on losing its job (75).
    for (const worker of team.workers) {
      expect(worker.log(), worker.name).not.toMatch(/Unhandled|uncaught|Connection terminated unexpectedly\n\s+at /);
    }
  }, 600_000);
});
