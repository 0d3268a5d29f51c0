// Checkpoints and rewind from the command line (README, "Checkpoints"): real processes, real
// bubblewrap, real SQLite, and a rewind killed with SIGKILL part way through.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeHash, treeListing } from '../../main/engine/test-support/tree-hash';
import { openStores } from '../../main/persistence';
import { fileWritingAgent, isStrategize } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, agentsJson, BIN, startAgents } from './cli-harness';
import { agentPlanFile, ranPlan, scriptedModelEnv, scriptedPlanFile } from './plan-files';

const LONG = { timeout: 300_000 };

interface Shown {
  id: string;
  sandboxPath: string;
  phase: string;
  processingState: string;
  lastRewind?: { toStep: number; fromStep: number | null; by: string; recovered: boolean } | null;
  usage?: { steps: { decisionId: string | null; summary: string | null }[] };
}

/** A project of 30 small files, an executable script and a link; and a data directory. */
function workspace(): { base: string; home: string; project: string } {
  const base = mkdtempSync(join(tmpdir(), 'agents-checkpoints-'));
  const project = join(base, 'project');
  mkdirSync(project);
  for (let i = 1; i <= 30; i++) writeFileSync(join(project, `f${String(i).padStart(2, '0')}.txt`), 'base\n');
  writeFileSync(join(project, 'keep.txt'), 'keep\n');
  writeFileSync(join(project, 'run.sh'), '#!/bin/sh\n');
  chmodSync(join(project, 'run.sh'), 0o755);
  return { base, home: join(base, 'home'), project };
}

const STEP_1 = ['  - step: Write the notes', '    tools:', '      - tool: file.write', '        args: { path: NOTES.md, content: "notes\\n" }'];
const STEP_2 = [
  '  - step: Rewrite every file with a shell command',
  '    tools:',
  '      - tool: shell.run',
  '        args: { command: "for f in f*.txt; do echo changed > $f; done; rm keep.txt; chmod 644 run.sh; mkdir -p gen && echo n > gen/n.txt" }',
];
const STEP_3 = ['  - step: Write the summary', '    tools:', '      - tool: file.write', '        args: { path: SUMMARY.md, content: "summary\\n" }'];

const planFile = (base: string, project: string, name: string, steps: string[][]) => scriptedPlanFile(base, project, name, steps);
const ran = (home: string, file: string, env: Record<string, string> = {}) => ranPlan<Shown>(home, file, env);

/** The paths `plan diff --json` would apply. */
async function diffPaths(home: string, id: string): Promise<string[]> {
  const diff = await agentsJson<{ files: { path: string }[] }>(['plan', 'diff', id], home);
  return diff.files.map((f) => f.path).sort();
}

describe('agents plan checkpoints and agents plan rewind', () => {
  it('lists a checkpoint per step, rewinds without a terminal, says so in plan show and plan errors, and runs again', LONG, async () => {
    const { base, home, project } = workspace();
    const plan = await ran(home, planFile(base, project, 'three-steps', [STEP_1, STEP_2, STEP_3]));
    // The tree before step 2 is what a plan of step 1 alone leaves.
    const beforeStep2 = treeHash((await ran(home, planFile(base, project, 'step-one', [STEP_1]))).sandboxPath);
    const finished = treeHash(plan.sandboxPath);

    const listed = await agents(['plan', 'checkpoints', plan.id], home);
    expect(listed.code).toBe(0);
    const rows = listed.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^step +taken +files changed +tokens +description$/);
    expect(rows.slice(1).map((r) => r.split(/ {2,}/).filter(Boolean))).toEqual([
      ['1', expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/), '32', '0', 'Write the notes'],
      ['2', expect.any(String), '1', '0', 'Rewrite every file with a shell command'],
      ['3', expect.any(String), '33', '0', 'Write the summary'],
    ]);
    const json = await agentsJson<{ checkpoints: { step: number; filesChanged: number; entries: number }[] }>(['plan', 'checkpoints', plan.id], home);
    expect(json.checkpoints.map((c) => [c.step, c.filesChanged])).toEqual([
      [1, 32],
      [2, 1],
      [3, 33],
    ]);

    // Without a terminal the rewind goes ahead.
    const rewind = await agents(['plan', 'rewind', plan.id, '--to-step', '2'], home);
    expect(rewind.stderr).toBe('');
    expect(rewind.code).toBe(0);
    expect(rewind.stdout.trim()).toMatch(new RegExp(`^${plan.id} rewound to before step 2: 34 files put back, \\d+ changes rewound; Ready to run: agents plan run ${plan.id}$`));
    expect(treeHash(plan.sandboxPath)).toBe(beforeStep2);
    expect(await diffPaths(home, plan.id)).toEqual(['NOTES.md']);

    const show = await agents(['plan', 'show', plan.id], home);
    expect(show.stdout).toMatch(/rewound: +to before step 2 by \S+ at \S+\n/);
    expect(show.stdout).not.toContain('interruption');
    const errors = await agents(['plan', 'errors', plan.id], home);
    expect(errors.stdout).toMatch(/\[rewind\] Rewound to before step 2 \(from the end\): 34 files put back, \d+ changes rewound: rewind by /);
    expect(errors.stdout).toMatch(/Changes rewound: SUMMARY.md, f01.txt, .* and \d+ more/);

    const again = await agents(['plan', 'run', plan.id], home);
    expect(again.code, again.stderr).toBe(0);
    expect(treeHash(plan.sandboxPath)).toBe(finished);
    expect((await agentsJson<{ checkpoints: unknown[] }>(['plan', 'checkpoints', plan.id], home)).checkpoints).toHaveLength(3);

    // Applied: refused with one line, nothing changed.
    expect((await agents(['plan', 'apply', plan.id], home)).code).toBe(0);
    const refused = await agents(['plan', 'rewind', plan.id, '--to-step', '1'], home);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim().split('\n')).toEqual([`error: plan ${plan.id} is Applied; rewind needs a plan that is Ready to run or Failed or Interrupted or Ready to apply`]);
    expect(treeHash(plan.sandboxPath)).toBe(finished);
  });

  it('on a terminal asks first, listing the files and the operator’s own edits it undoes; --yes answers', LONG, async () => {
    const { base, home, project } = workspace();
    const plan = await ran(home, planFile(base, project, 'asked', [STEP_1, STEP_3]));
    writeFileSync(join(plan.sandboxPath, 'mine.txt'), 'by hand\n');
    const before = treeHash(plan.sandboxPath);
    // `script` gives the command a terminal; the key typed is the answer.
    const onTerminal = (key: string) =>
      spawnSync('script', ['-qec', [process.execPath, BIN, 'plan', 'rewind', plan.id, '--to-step', '2'].map((a) => `'${a}'`).join(' '), '/dev/null'], {
        input: key,
        env: { ...process.env, AGENTS_HOME: home },
        encoding: 'utf8',
        timeout: 60_000,
      }).stdout;
    const declined = onTerminal('n');
    expect(declined).toContain(`rewind plan ${plan.id} to before step 2: 2 files change`);
    expect(declined).toMatch(/removed +SUMMARY\.md\r?\n/);
    expect(declined).toMatch(/removed +mine\.txt  \(your edit\)/);
    expect(declined).toContain('this also undoes your own edits to 1 file: mine.txt');
    expect(declined).toContain('nothing changed');
    expect(treeHash(plan.sandboxPath)).toBe(before);

    expect(onTerminal('y')).toMatch(new RegExp(`${plan.id} rewound to before step 2: 2 files put back, 2 changes rewound, your edits to 1 file undone`));
    expect(existsSync(join(plan.sandboxPath, 'mine.txt'))).toBe(false);
    expect(existsSync(join(plan.sandboxPath, 'NOTES.md'))).toBe(true);
  });

  it('refuses bad input with exit 2 and one line, and changes nothing', LONG, async () => {
    const { base, home, project } = workspace();
    const file = planFile(base, project, 'bad-input', [STEP_1, STEP_3]);
    const fresh = (await agents(['plan', 'create', file], home)).stdout.trim();
    const none = await agents(['plan', 'rewind', fresh, '--to-step', '1'], home);
    expect([none.code, none.stderr.trim()]).toEqual([2, `error: plan ${fresh} has no checkpoint yet; one is recorded as each step starts`]);

    const plan = await ran(home, file);
    const hash = treeHash(plan.sandboxPath);
    for (const [step, message] of [
      ['3', `error: toStep: 3 is out of range: plan ${plan.id} has steps 1 to 2`],
      ['0', 'error: --to-step: must be a step number (1, 2, ...), not "0"'],
      ['two', 'error: --to-step: must be a step number (1, 2, ...), not "two"'],
    ]) {
      const result = await agents(['plan', 'rewind', plan.id, '--to-step', step], home);
      expect([result.code, result.stderr.trim()]).toEqual([2, message]);
    }
    expect(treeHash(plan.sandboxPath)).toBe(hash);
    expect((await agentsJson<Shown>(['plan', 'show', plan.id], home)).lastRewind ?? null).toBeNull();
  });

  it('a rewind killed with SIGKILL at any point leaves the plan as before or as after, and plan show says which', LONG, async () => {
    const { base, home, project } = workspace();
    const beforeStep2 = treeHash((await ran(home, planFile(base, project, 'step-one', [STEP_1]))).sandboxPath);
    const file = planFile(base, project, 'killed', [STEP_1, STEP_2, STEP_3]);
    const rewritten = (sandbox: string) => readdirSync(sandbox).filter((f) => /^f\d\d\.txt$/.test(f) && readFileSync(join(sandbox, f), 'utf8') === 'base\n').length;

    // Killed: before the rewind starts, after its first file, and half way through its files.
    const outcomes: string[] = [];
    for (const killAt of ['start', 'first file', 'half']) {
      const plan = await ran(home, file);
      const before = treeHash(plan.sandboxPath);
      const entries = await diffPaths(home, plan.id);
      // 40 ms between the rewind's file operations, so the kill lands among them.
      const child = startAgents(['plan', 'rewind', plan.id, '--to-step', '2'], home, { AGENTS_TEST_REWIND_PAUSE_MS: '40' });
      const exited = new Promise((resolve) => child.on('close', resolve));
      if (killAt === 'first file') await until(() => rewritten(plan.sandboxPath) >= 1);
      if (killAt === 'half') await until(() => rewritten(plan.sandboxPath) >= 15);
      child.kill('SIGKILL');
      await exited;

      // The next command that opens the data directory finishes a rewind that was journaled.
      const shown = await agentsJson<Shown>(['plan', 'show', plan.id], home);
      const hash = treeHash(plan.sandboxPath);
      if (shown.lastRewind) {
        expect(shown.lastRewind).toMatchObject({ toStep: 2, recovered: true });
        expect(hash).toBe(beforeStep2);
        expect(await diffPaths(home, plan.id)).toEqual(['NOTES.md']);
        expect(shown).toMatchObject({ phase: 'execute', processingState: 'queued' });
        expect((await agents(['plan', 'show', plan.id], home)).stdout).toMatch(/rewound: +to before step 2 by \S+ at \S+ \(completed after an interruption\)/);
        outcomes.push(`${killAt}: after`);
      } else {
        expect(hash).toBe(before);
        expect(await diffPaths(home, plan.id)).toEqual(entries);
        outcomes.push(`${killAt}: before`);
      }
      // Either way the plan is consistent: left as before, it rewinds; then it runs to the end, as the first run ended.
      if (!shown.lastRewind) {
        const rewind = await agents(['plan', 'rewind', plan.id, '--to-step', '2'], home);
        expect(rewind.code, rewind.stderr).toBe(0);
      }
      const rerun = await agents(['plan', 'run', plan.id], home);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(await agentsJson<Shown>(['plan', 'show', plan.id], home)).toMatchObject({ phase: 'apply', processingState: 'queued' });
      expect(treeHash(plan.sandboxPath)).toBe(before);
    }
    // Killed among its files, a rewind was journaled: it is finished, never left half done.
    expect(outcomes.slice(1)).toEqual(['first file: after', 'half: after']);
  });

  it('a rewind from another process while apply writes the project is refused: apply holds the plan, and ends complete', LONG, async () => {
    const { base, home, project } = workspace();
    const plan = await ran(home, planFile(base, project, 'applied-whole', [STEP_1, STEP_2, STEP_3]));
    // Apply writes contents, not a mode change alone (run.sh's chmod stays in the sandbox).
    const contents = (dir: string) => treeListing(dir).filter((line) => !line.startsWith('F run.sh '));
    const expected = contents(plan.sandboxPath);
    // Apply waits, holding the plan, until the gate file exists: the rewind comes at a known moment.
    const gate = join(base, 'gate');
    const apply = startAgents(['plan', 'apply', plan.id], home, { AGENTS_TEST_APPLY_GATE: gate });
    let applyErr = '';
    apply.stderr?.on('data', (d: Buffer) => (applyErr += d.toString()));
    const applied = new Promise<number | null>((resolve) => apply.on('close', resolve));
    const stores = openStores(home);
    try {
      await until(async () => (await stores.leases.get(plan.id))?.pid === apply.pid);
    } finally {
      stores.close();
    }
    const rewind = await agents(['plan', 'rewind', plan.id, '--to-step', '2', '--yes'], home);
    writeFileSync(gate, '');
    expect([rewind.code, rewind.stderr.trim()]).toEqual([2, `error: plan ${plan.id} is Running (applying); wait for the apply to end before rewinding`]);
    expect(await applied, applyErr).toBe(0);
    // Everything the run made is in the project, nothing rewound, and the plan is applied.
    const shown = await agentsJson<Shown>(['plan', 'show', plan.id], home);
    expect(shown).toMatchObject({ phase: 'apply', processingState: 'complete' });
    expect(shown.lastRewind ?? null).toBeNull();
    expect(contents(project)).toEqual(expected);
  });

  it('a rewind that fails part way says so in one line and in plan show; only a rewind again or discard is allowed, and discard ends it', LONG, async () => {
    const { base, home, project } = workspace();
    const plan = await ran(home, planFile(base, project, 'rewind-fails', [STEP_1, STEP_2]));
    rmSync(join(home, 'objects'), { recursive: true });
    const rewind = await agents(['plan', 'rewind', plan.id, '--to-step', '2'], home);
    expect(rewind.code).toBe(1);
    expect(rewind.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^error: plan ${plan.id}: the rewind to before step 2 could not be finished: \\S+ is missing; agents plan rewind ${plan.id} --to-step 2 to try again, or agents plan discard ${plan.id}$`)),
    ]);
    const show = (await agents(['plan', 'show', plan.id], home)).stdout;
    expect(show).toMatch(/\n {2}rewind: {5}unfinished: the rewind to before step 2 could not be finished: \S+ is missing\n/);
    expect(show).toContain(`  next:       agents plan rewind ${plan.id} --to-step 2 to finish it, or agents plan discard ${plan.id}\n`);
    const apply = await agents(['plan', 'apply', plan.id], home);
    expect([apply.code, apply.stderr.trim()]).toEqual([2, `error: plan ${plan.id} has an unfinished rewind; finish it by rewinding to before step 2 again, or discard the plan`]);
    expect(existsSync(join(project, 'NOTES.md'))).toBe(false);

    expect((await agents(['plan', 'discard', plan.id], home)).code).toBe(0);
    const after = await agents(['plan', 'show', plan.id], home);
    expect(after.stdout).not.toContain('unfinished');
    expect(after.stderr).toBe('');
    expect((await agents(['plan', 'checkpoints', plan.id], home)).stdout.trim()).toBe(`plan ${plan.id} was discarded; its checkpoints were dropped with it`);
  });

  describe('an agent plan against the scripted model server', () => {
    const server = new ScriptedModelServer();
    beforeAll(() => server.start());
    afterAll(() => server.close());

    it('drops the conversation after the checkpoint: the step run again is told only of the steps before it', LONG, async () => {
      const { base, home, project } = workspace();
      const env = scriptedModelEnv(server);
      server.respondWith(fileWritingAgent({ 'A.md': 'a\n', 'B.md': 'b\n', 'C.md': 'c\n' }));
      const plan = await ran(home, agentPlanFile(base, project), env);
      expect(plan.usage?.steps.map((s) => s.summary).filter(Boolean)).toEqual(['Wrote A.md and read it back.', 'Wrote B.md and read it back.', 'Wrote C.md and read it back.']);

      const rewind = await agents(['plan', 'rewind', plan.id, '--to-step', '2', '--yes'], home, env);
      expect(rewind.code, rewind.stderr).toBe(0);
      const back = await agentsJson<Shown>(['plan', 'show', plan.id], home);
      expect(back.usage?.steps.map((s) => s.summary).filter(Boolean)).toEqual(['Wrote A.md and read it back.']);
      expect(existsSync(join(plan.sandboxPath, 'A.md'))).toBe(true);
      expect(existsSync(join(plan.sandboxPath, 'B.md'))).toBe(false);
      expect(existsSync(join(plan.sandboxPath, 'C.md'))).toBe(false);

      server.reset();
      server.respondWith(fileWritingAgent({ 'A.md': 'a\n', 'B.md': 'b\n', 'C.md': 'c\n' }));
      const again = await agents(['plan', 'run', plan.id], home, env);
      expect(again.code, again.stderr).toBe(0);
      // Strategize is not run again, and step 1 is not run again.
      expect(server.requests.some(isStrategize)).toBe(false);
      const prompts = server.requests.map((r) => JSON.stringify(r.messages));
      expect(prompts.some((p) => p.includes('Your step (1 of 3)'))).toBe(false);
      const step2 = prompts.find((p) => p.includes('Your step (2 of 3)')) ?? '';
      expect(step2).toContain('Wrote A.md and read it back.');
      expect(step2).not.toContain('Wrote B.md and read it back.');
      expect(step2).not.toContain('Wrote C.md and read it back.');
      expect(readdirSync(plan.sandboxPath).filter((f) => f.endsWith('.md')).sort()).toEqual(['A.md', 'B.md', 'C.md']);
    });
  });
});

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 3000 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(await check()).toBe(true);
}
