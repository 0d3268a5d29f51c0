import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { treeState } from '../../engine/tools/test-support';
import { openPostgresStores, type PostgresStores } from '../../persistence/postgres/stores';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../persistence/postgres/test-support/database';

const BIN = path.resolve(import.meta.dirname, '../../../bin/agents.cjs');

/** `agents ARGS` against the team database, with its own home (data directory); resolves with its exit code and output. */
function agents(args: string[], home: string, url: string): { child: ChildProcess; done: Promise<{ code: number; stdout: string; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, AGENTS_HOME: home, AGENTS_DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
  return { child, done };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const PLAN = (project: string) =>
  [
    'name: taken over',
    `project: ${JSON.stringify(project)}`,
    'automationProfile: trusted',
    'definitionOfDone:',
    '  - step: Write and edit',
    '    tools:',
    '      - tool: file.write',
    '        args: { path: docs/guide.md, content: "# Guide" }',
    '      - tool: file.edit',
    '        args: { path: README.md, find: "# Demo", replace: "# Demo, taken over" }',
    '  - step: Write, then take a while',
    '    tools:',
    '      - tool: file.write',
    '        args: { path: partial.txt, content: "before the kill" }',
    '      - tool: shell.run',
    '        args: { command: "sleep 4 && printf done > slow.txt" }',
    '  - step: Finish',
    '    tools:',
    '      - tool: file.rename',
    '        args: { from: old.txt, to: new.txt }',
    '',
  ].join('\n');

// Real `agents worker` processes on one database, each with its own data directory: one is killed mid-step.
describe.skipIf(!testPostgres().url)(postgresSuiteName('a worker killed mid-run'), () => {
  const database = useFreshDatabase();
  const children: ChildProcess[] = [];
  let root: string | undefined;
  let pg: PostgresStores | undefined;
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await pg?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('its plan is finished by the other worker in a sandbox remade from the database, every change recorded once', async () => {
    const url = database.url();
    root = mkdtempSync(path.join(tmpdir(), 'agents-takeover-'));
    const project = path.join(root, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'README.md'), '# Demo\n');
    writeFileSync(path.join(project, 'old.txt'), 'renamed at the end\n');
    const planFile = path.join(root, 'plan.yaml');
    writeFileSync(planFile, PLAN(project));
    const homes = { a: path.join(root, 'worker-a'), b: path.join(root, 'worker-b'), cli: path.join(root, 'cli') };

    const workers = (['a', 'b'] as const).map((name) => agents(['worker', '--name', `worker-${name}`], homes[name], url));
    children.push(...workers.map((w) => w.child));
    // Migrating with the workers is safe: migrations take an advisory lock.
    pg = await openPostgresStores(url);
    const created = await agents(['plan', 'create', planFile], homes.cli, url).done;
    expect(created.code, created.stderr).toBe(0);
    const planId = created.stdout.trim();
    const queued = await agents(['plan', 'run', planId, '--detach'], homes.cli, url).done;
    expect(queued.code, queued.stderr).toBe(0);

    // The slow command of step 2 has started: its worker is killed there.
    const stores = pg;
    await until('slow command', async () => ((await stores.events.list(planId, 0, 1000)).some((e) => e.type === 'tool_call_started' && e.data.tool === 'shell.run') ? true : undefined), 60_000);
    const first = (await stores.plans.get(planId))!.sandboxRefs[0]!;
    const [holder, other] = first.startsWith(homes.a) ? [workers[0], workers[1]] : [workers[1], workers[0]];
    holder.child.kill('SIGKILL');

    const ended = await until('the end of the run', async () => {
      const plan = (await stores.plans.get(planId))!;
      return plan.phase === 'apply' && plan.processingState === 'queued' ? plan : undefined;
    }, 90_000);
    expect(other.child.exitCode).toBeNull();
    const sandbox = ended.sandboxRefs[0]!;
    expect(sandbox.startsWith(first.startsWith(homes.a) ? homes.b : homes.a)).toBe(true);
    const events = await stores.events.list(planId, 0, 5000);
    expect(events.filter((e) => e.type === 'sandbox_remade').map((e) => e.data)).toMatchObject([{ sandboxRoot: sandbox, base: 'project', drift: [] }]);

    const tree = treeState(sandbox);
    expect(Object.keys(tree).sort()).toEqual(['README.md', 'docs', 'docs/guide.md', 'new.txt', 'partial.txt', 'slow.txt']);
    const changeset = await stores.changesets.listEntryMeta(ended.changesetId!, { offset: 0, limit: 100 });
    const recorded = changeset.map((e) => [e.path, e.operation, e.origin ?? 'agent']);
    expect(recorded).toEqual([
      ['docs/guide.md', 'create', 'agent'],
      ['README.md', 'modify', 'agent'],
      ['partial.txt', 'create', 'agent'],
      ['slow.txt', 'create', 'agent'],
      ['new.txt', 'rename', 'agent'],
    ]);
  }, 180_000);
});
