/**
 * Team mode's consoles, with real processes on one PostgreSQL database: `agents serve --database`
 * (the console, a client that runs nothing) and `agents worker` processes (which run the plans).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Approval } from '../../shared/approvals';
import type { Plan, StrategyDecision } from '../../shared/domain';
import type { StreamEvent } from '../../shared/events';
import type { TeamStatus } from '../../shared/team';
import type { TestClient } from '../../main/web/test-support';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import { type Agents, agentsCli, consoleClient, data, nextEvent, serveTeam, startTeamWorker, stop } from './team-processes';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agents-team-console-'));
  dirs.push(dir);
  return dir;
}

/** A project folder the plans work on, under `root` (the console's project root). */
function project(root: string): string {
  const dir = path.join(root, 'project');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'README.md'), '# Demo\n');
  writeFileSync(path.join(dir, 'old.txt'), 'stale\n');
  return dir;
}

const planId = (reply: { plan: Plan }) => reply.plan.id;

/** Asks the console for the plan until `done` says so. */
async function planWhen(client: TestClient, id: string, done: (plan: Plan) => boolean, timeoutMs = 60_000): Promise<Plan> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { plan } = data<{ plan: Plan }>(await client.call('plans.get', { planId: id }));
    if (done(plan)) return plan;
    if (Date.now() > until) throw new Error(`plan ${id} is still ${plan.processingState} (${plan.phase}) after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const readyToApply = (plan: Plan) => plan.phase === 'apply' || ['complete', 'errored', 'cancelled'].includes(plan.processingState);

/** Seqs 1..n, each once, in order. */
function expectEverySeq(events: readonly StreamEvent[], last: number): void {
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
}

describe.skipIf(!testPostgres().url)(postgresSuiteName('team consoles: agents serve --database with agents worker processes'), () => {
  const database = useFreshDatabase();
  const processes: Agents[] = [];
  const clients: TestClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    for (const agents of processes.splice(0)) await stop(agents);
  });
  afterAll(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("answers from the console an approval asked by a plan on a worker; the run finishes on a worker and the answer records the console's operator and host", async () => {
    // A password in the URL (trust authentication ignores it): serve must never print it.
    const withPassword = new URL(database.url());
    withPassword.password = 's3cret';
    const url = withPassword.toString();
    const root = tempDir();
    const serveHome = tempDir();
    // The console's operator names herself in the settings (Settings, "Operator name").
    writeFileSync(path.join(serveHome, 'settings.json'), `${JSON.stringify({ operator: 'ada' })}\n`, { mode: 0o600 });
    // serve migrates the fresh database; the worker starts once it has.
    const served = await serveTeam(url, serveHome, root);
    processes.push(served);
    expect(served.stderr()).toContain('agents serve: team database');
    expect(served.stderr()).not.toContain('s3cret');
    const worker = await startTeamWorker(url, tempDir(), 'worker-a');
    processes.push(worker);
    const client = await consoleClient(served);
    clients.push(client);

    const content = [
      'name: team-approval',
      `project: ${JSON.stringify(project(root))}`,
      'automationProfile: supervised',
      'definitionOfDone:',
      '  - step: Write the notes',
      '    tools: [{ tool: file.write, args: { path: notes.txt, content: "one" } }]',
      '  - step: Remove the stale file',
      '    tools: [{ tool: file.delete, args: { path: old.txt } }]',
    ].join('\n');
    const id = planId(data(await client.call('plans.create', { content })));
    client.send(JSON.stringify({ type: 'subscribe', id: 1, subscription: { planId: id, afterSeq: 0 } }));
    const events: StreamEvent[] = [];
    expect(data<{ plan: Plan }>(await client.call('plans.run', { planId: id })).plan.id).toBe(id);

    // The worker's events reach the console through the database's feed.
    const asked = await nextEvent(client, events, (e) => e.type === 'approval_requested');
    expect(asked.data).toMatchObject({ tool: 'file.delete' });
    await planWhen(client, id, (p) => p.waitingFor === 'approval');
    expect(worker.stderr()).toContain(`plan ${id}: run`);

    // Waiting for an answer, the run holds no worker and no job (its job completes just after the plan pauses).
    let team = data<TeamStatus | null>(await client.call('team.status', {}));
    for (let tries = 0; team?.running !== 0 && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      team = data<TeamStatus | null>(await client.call('team.status', {}));
    }
    expect(team).toMatchObject({ queued: 0, queuedPlans: [], running: 0, operator: 'ada', host: hostname() });
    expect(team!.workers).toEqual([expect.objectContaining({ name: 'worker-a', host: hostname(), pid: worker.child.pid, live: true, plans: [] })]);

    data(await client.call('plans.approve', { planId: id }));
    const resolved = await nextEvent(client, events, (e) => e.type === 'approval_resolved');
    expect(resolved.data).toMatchObject({ approved: true, answeredBy: 'ada', host: hostname() });
    const ended = await planWhen(client, id, readyToApply);
    expect(ended).toMatchObject({ phase: 'apply', processingState: 'queued', waitingFor: null });
    expect(worker.stderr()).toContain(`plan ${id}: approval answered`);

    // Every event of the run reached the console once, in order, whichever process wrote it.
    const { lastSeq } = data<{ lastSeq: number }>(await client.call('plans.events', { planId: id, afterSeq: 0, limit: 1 }));
    if (events.at(-1)!.seq < lastSeq) await nextEvent(client, events, (e) => e.seq === lastSeq);
    expectEverySeq(events, lastSeq);

    const { approvals } = data<{ approvals: Approval[] }>(await client.call('plans.approvals', { planId: id }));
    expect(approvals).toEqual([expect.objectContaining({ status: 'approved', answeredBy: 'ada', answeredFrom: hostname(), tool: 'file.delete' })]);
    const { decisions } = data<{ decisions: StrategyDecision[] }>(await client.call('plans.decisions', { planId: id, offset: 0 }));
    const answer = decisions.find((d) => d.type === 'approval');
    expect(answer?.rationale).toMatch(new RegExp(`^approved by ada on ${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at `));

    expect(await stop(served)).toEqual({ code: 0, signal: null });
    expect(served.stderr()).toContain('SIGTERM, shutting down');
    expect(served.stderr()).not.toMatch(/\n\s+at /);
  }, 180_000);

  it("records an approval answered at the command line under the operator name in that machine's settings", async () => {
    const url = database.url();
    const root = tempDir();
    const served = await serveTeam(url, tempDir(), root);
    processes.push(served);
    const worker = await startTeamWorker(url, tempDir(), 'worker-c');
    processes.push(worker);
    const client = await consoleClient(served);
    clients.push(client);
    const content = [
      'name: cli-approval',
      `project: ${JSON.stringify(project(root))}`,
      'automationProfile: supervised',
      'definitionOfDone:',
      '  - step: Remove the stale file',
      '    tools: [{ tool: file.delete, args: { path: old.txt } }]',
    ].join('\n');
    const id = planId(data(await client.call('plans.create', { content })));
    data(await client.call('plans.run', { planId: id }));
    await planWhen(client, id, (p) => p.waitingFor === 'approval');

    const cliHome = tempDir();
    expect((await agentsCli(['config', 'set', 'operator', 'grace'], cliHome)).code).toBe(0);
    const approved = await agentsCli(['plan', 'approve', id, '--database', url], cliHome);
    expect(approved.code, approved.stderr).toBe(0);
    await planWhen(client, id, readyToApply);
    const { approvals } = data<{ approvals: Approval[] }>(await client.call('plans.approvals', { planId: id }));
    expect(approvals).toEqual([expect.objectContaining({ status: 'approved', answeredBy: 'grace', answeredFrom: hostname() })]);
  }, 120_000);

  it('a console that reconnects with afterSeq misses no event of a plan a worker runs, nor does the feed when its listener is cut off', async () => {
    const url = database.url();
    const root = tempDir();
    const served = await serveTeam(url, tempDir(), root);
    processes.push(served);
    const worker = await startTeamWorker(url, tempDir(), 'worker-b');
    processes.push(worker);
    let client = await consoleClient(served);
    clients.push(client);

    const steps = [1, 2, 3, 4].flatMap((n) => [
      `  - step: Write part ${n}`,
      `    tools: [{ tool: file.write, args: { path: part-${n}.txt, content: "${n}" } }]`,
      `  - step: Wait after part ${n}`,
      '    tools: [{ tool: shell.run, args: { command: "sleep 0.6" } }]',
    ]);
    const content = ['name: team-reconnect', `project: ${JSON.stringify(project(root))}`, 'automationProfile: trusted', 'definitionOfDone:', ...steps].join('\n');
    const id = planId(data(await client.call('plans.create', { content })));
    client.send(JSON.stringify({ type: 'subscribe', id: 1, subscription: { planId: id, afterSeq: 0 } }));
    const events: StreamEvent[] = [];
    data(await client.call('plans.run', { planId: id }));

    // Part way in: the console's connection drops.
    await nextEvent(client, events, (e) => e.type === 'tool_call_finished' && (e.data as { tool?: string }).tool === 'file.write');
    await client.close();
    clients.length = 0;
    const before = events.at(-1)!.seq;

    // And the console's LISTEN connection is cut off by the server, while the worker goes on.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const cut = await admin.query("SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = 'agents event feed' AND datname = current_database()");
      expect(cut.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 700));

    client = await consoleClient(served);
    clients.push(client);
    const atReconnect = data<{ lastSeq: number }>(await client.call('plans.events', { planId: id, afterSeq: 0, limit: 1 })).lastSeq;
    expect(atReconnect).toBeGreaterThan(before);
    client.send(JSON.stringify({ type: 'subscribe', id: 2, subscription: { planId: id, afterSeq: before } }));
    // Everything after `before`, first from the database, then live from the feed, until the run ends.
    await nextEvent(client, events, (e) => e.type === 'state_changed' && (e.data as { phase?: string }).phase === 'apply', 90_000);
    const ended = await planWhen(client, id, readyToApply);
    expect(ended).toMatchObject({ phase: 'apply', processingState: 'queued' });
    const { lastSeq } = data<{ lastSeq: number }>(await client.call('plans.events', { planId: id, afterSeq: 0, limit: 1 }));
    if (events.at(-1)!.seq < lastSeq) await nextEvent(client, events, (e) => e.seq === lastSeq);
    // Some came from the database (committed while disconnected), some live through the reconnected feed.
    expect(lastSeq).toBeGreaterThan(atReconnect);
    expectEverySeq(events, lastSeq);

    // A plan started after the feed was cut reaches a console that follows every plan: the feed reconnected.
    const all: StreamEvent[] = [];
    client.send(JSON.stringify({ type: 'subscribe', id: 3, subscription: { planId: null } }));
    const second = planId(data(await client.call('plans.create', { content: content.replace('team-reconnect', 'team-after-cut') })));
    data(await client.call('plans.run', { planId: second }));
    await nextEvent(client, all, (e) => e.planId === second && e.type === 'tool_call_finished', 60_000);
    expect(served.stderr()).not.toMatch(/event delivery failed/);
    // The console said what happened to its feed.
    expect(served.stderr()).toMatch(/the team's event feed lost its connection \(.+\); reconnecting in \d+ ms/);
    expect(served.stderr()).toContain("the team's event feed is connected again");
  }, 180_000);
});
