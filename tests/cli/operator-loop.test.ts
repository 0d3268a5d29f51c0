import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../shared/domain';
import { agents, agentsJson, BIN, createPlan, ROOT, sandboxWorkspace, startAgents } from './cli-harness';

/** A plan of `steps` steps, each writing a file and then running `sleep`: long enough to stop midway. */
function slowPlan(dir: string, steps: number, sleep: string): string {
  const lines = Array.from({ length: steps }, (_, i) =>
    [
      `  - step: Write part ${i + 1}`,
      '    tools:',
      `      - { tool: file.write, args: { path: "parts/part-${i + 1}.txt", content: "part ${i + 1}\\n" } }`,
      `      - { tool: shell.run, args: { command: "sleep ${sleep}" } }`,
    ].join('\n'),
  );
  const file = join(dir, `slow-${steps}.yaml`);
  writeFileSync(file, ['name: slow', 'project: ./demo-project', 'definitionOfDone:', ...lines].join('\n') + '\n');
  return file;
}

/** Starts `plan run --stream`, sends SIGINT `signals` times once `trigger` appears on stdout, and collects the outcome. */
function runAndInterrupt(planId: string, home: string, trigger: RegExp, signals: number, onTrigger: () => void = () => undefined) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = startAgents(['plan', 'run', planId, '--stream'], home);
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!sent && trigger.test(stdout)) {
        sent = true;
        onTrigger();
        for (let i = 0; i < signals; i++) setTimeout(() => child.kill('SIGINT'), 50 * i);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const temporaries = (root: string) =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.startsWith('.agents-') && e.name.endsWith('.tmp'))
    .map((e) => e.name);

const stepLines = (stdout: string) => [...stdout.matchAll(/^step (\d+) of (\d+): (.*)$/gm)].map((m) => `${m[1]}/${m[2]} ${m[3]}`);

describe('Ctrl-C during agents plan run', () => {
  it('stops before the next step: the plan is Interrupted, the resume command is printed, and it resumes to completion with the same step numbers', async () => {
    const { home, examples } = sandboxWorkspace();
    const id = await createPlan(slowPlan(examples, 5, '0.3'), home);
    const stopped = await runAndInterrupt(id, home, /^step 2 of 5: /m, 1);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('stopping before the next step');
    const resume = /resume with: (agents plan retry \S+)/.exec(stopped.stderr)?.[1];
    expect(resume).toBe(`agents plan retry ${id}`);
    expect(stepLines(stopped.stdout)[0]).toBe('1/5 Write part 1');

    const shown = await agents(['plan', 'show', id], home);
    expect(shown.stdout).toMatch(/^ {2}status: {5}Interrupted$/m);
    const plan = PlanSchema.parse(await agentsJson(['plan', 'show', id], home));
    expect(plan.errorDetails.category).toBe('interrupted');
    expect(temporaries(plan.sandboxRefs[0])).toEqual([]);

    // The printed command, as the operator would type it.
    const resumed = await agents([...(resume as string).split(' ').slice(1), '--stream'], home);
    expect(resumed.code).toBe(0);
    const steps = stepLines(resumed.stdout);
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.every((s) => /^\d\/5 /.test(s))).toBe(true);
    expect(steps.at(-1)).toBe('5/5 Write part 5');
    expect(Number(steps[0].split('/')[0])).toBeGreaterThan(1);
    const done = PlanSchema.parse(await agentsJson(['plan', 'show', id], home));
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued' });
    const diff = await agentsJson<{ entries: { path: string }[] }>(['plan', 'diff', id], home);
    expect(new Set(diff.entries.map((e) => e.path))).toEqual(new Set([1, 2, 3, 4, 5].map((n) => `parts/part-${n}.txt`)));
  }, 120_000);

  it('a second Ctrl-C stops it inside a long step, and no temporary file of a cut-off write stays in the sandbox', async () => {
    const { home, examples } = sandboxWorkspace();
    const id = await createPlan(slowPlan(examples, 2, '30'), home);
    let sandbox = '';
    // A write cut off by the stop leaves a file of this shape; the stop must clear it.
    const plant = () => {
      sandbox = PlanSchema.parse(JSON.parse(spawnSync(process.execPath, [BIN, 'plan', 'show', id, '--json'], { env: { ...process.env, AGENTS_HOME: home }, encoding: 'utf8' }).stdout)).sandboxRefs[0];
      writeFileSync(join(sandbox, 'parts', '.agents-0123456789abcdef.tmp'), 'half a file');
    };
    const started = Date.now();
    const stopped = await runAndInterrupt(id, home, /^shell\.run \$ sleep 30$/m, 2, plant);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain(`resume with: agents plan retry ${id}`);
    expect(existsSync(join(sandbox, 'parts/part-1.txt'))).toBe(true);
    expect(temporaries(sandbox)).toEqual([]);
    expect((await agents(['plan', 'show', id], home)).stdout).toMatch(/status: {5}Interrupted/);
  }, 120_000);
});

describe('a reader that stops early', () => {
  it('`agents plan diff ID | head -1` prints one line and agents exits 0 without a stack trace', async () => {
    const { home, examples } = sandboxWorkspace();
    // A diff far larger than a pipe's buffer, so agents is still writing when head leaves.
    const content = Array.from({ length: 40_000 }, (_, i) => `line ${i} of a long file`).join('\\n');
    const file = join(examples, 'long.yaml');
    writeFileSync(file, `name: long\nproject: ./demo-project\ndefinitionOfDone:\n  - step: Write a long file\n    tools:\n      - { tool: file.write, args: { path: long.txt, content: "${content}" } }\n`);
    const id = await createPlan(file, home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(0);
    for (const args of ['plan diff', 'plan diff --json', 'plan show', 'plan list']) {
      const shell = spawnSync('bash', ['-c', `node "${BIN}" ${args.replace('diff', `diff ${id}`).replace('show', `show ${id}`)} | head -1; echo "agents exited \${PIPESTATUS[0]}" >&2`], {
        cwd: ROOT,
        env: { ...process.env, AGENTS_HOME: home },
        encoding: 'utf8',
      });
      expect(shell.stdout.split('\n').filter(Boolean)).toHaveLength(1);
      expect(shell.stderr, args).toBe('agents exited 0\n');
    }
  }, 120_000);
});

describe('plan diff --json streams', () => {
  /** `plan diff --json` on a changeset of `files` files of about 1 MB each, in a process whose heap is limited to `heapMiB`. */
  async function diffUnderHeapLimit(files: number, heapMiB: number): Promise<{ bytes: number }> {
    const { home, examples } = sandboxWorkspace();
    const file = join(examples, `big-${files}.yaml`);
    const command = `for i in $(seq 1 ${files}); do head -c 750000 /dev/urandom | base64 -w 100 > big-$i.txt; done`;
    writeFileSync(file, `name: big\nproject: ./demo-project\ndefinitionOfDone:\n  - step: Write big files\n    tools:\n      - { tool: shell.run, args: { command: "${command}" } }\n`);
    const id = await createPlan(file, home);
    const run = await agents(['plan', 'run', id], home);
    expect(run.code, run.stderr).toBe(0);
    const child = spawn(process.execPath, [`--max-old-space-size=${heapMiB}`, BIN, 'plan', 'diff', id, '--json'], { cwd: ROOT, env: { ...process.env, AGENTS_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      // Only the head and the tail are kept: enough to check the document's shape.
      text = text.length < 200 ? text + chunk.toString() : text.slice(0, 200) + chunk.toString().slice(-200);
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, 'the process ran out of heap').toBe(0);
    expect(text.startsWith('{\n  "planId": ')).toBe(true);
    expect(text.trimEnd().endsWith('}')).toBe(true);
    return { bytes };
  }

  it('with a peak memory that does not grow with the changeset', async () => {
    // A document built whole would need more heap than the limit; a streamed one holds one entry at a time.
    const heapMiB = 32;
    const { bytes } = await diffUnderHeapLimit(24, heapMiB);
    expect(bytes).toBeGreaterThan(heapMiB * 1024 * 1024 * 1.4);
  }, 240_000);
});

describe('one vocabulary', () => {
  it('plan list says the status and tells plans of one name apart; plan show --json has the sandbox; apply counts in words', async () => {
    const { home, examples } = sandboxWorkspace();
    const first = await createPlan(join(examples, 'add-license.yaml'), home);
    const second = await createPlan(join(examples, 'add-license.yaml'), home);
    const run = await agents(['plan', 'run', first, '--stream'], home);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('add-license: Ready to apply');
    expect(run.stdout).toMatch(/^step 2 of \d+: Mention the licence in the README$/m);
    expect(run.stdout).toMatch(/^changed README\.md \(\+\d+ −\d+\)$/m);
    expect(run.stdout).toMatch(/^created LICENSE \(\+\d+ −0\)$/m);
    expect(run.stdout).not.toMatch(/queued|processing|\bapply queued\b/);
    expect(run.stdout).toMatch(/^\d+ tool calls in /m);

    const list = await agents(['plan', 'list'], home);
    const rows = list.stdout.split('\n');
    expect(rows[0]).toMatch(/^ID +STATUS +AGE +NAME$/);
    const row = (id: string) => rows.find((r) => r.startsWith(id)) ?? '';
    expect(row(first)).toMatch(new RegExp(`Ready to apply .*add-license \\(created .*, …${first.slice(-6)}\\)$`));
    expect(row(second)).toMatch(new RegExp(`Ready to run .*add-license \\(created .*, …${second.slice(-6)}\\)$`));

    const ready = await agentsJson<{ plans: { id: string }[] }>(['plan', 'list', '--state', 'ready_to_apply'], home);
    expect(ready.plans.map((p) => p.id)).toEqual([first]);

    const shown = await agentsJson<{ sandboxPath: string; sandboxRefs: string[] }>(['plan', 'show', first], home);
    expect(shown.sandboxPath).toBe(shown.sandboxRefs[0]);
    expect(existsSync(join(shown.sandboxPath, 'LICENSE'))).toBe(true);

    const part = await agents(['plan', 'apply', first, '--path', 'LICENSE'], home);
    expect(part.stdout).toMatch(/^applied 1 file, skipped 3\n3 files remain: /);
    await agents(['plan', 'apply', first], home);
    const again = await agents(['plan', 'apply', first], home);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(`error: plan ${first} is Applied; apply needs a plan that is Ready to apply or Failed`);
  }, 120_000);
});
