import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PlanSchema, StrategyDecisionSchema } from '../../shared/domain';
import { ErrorRecordSchema } from '../../shared/error-records';
import { StreamEventSchema } from '../../shared/events';
import { agents, agentsJson, createPlan, editYaml, sandboxWorkspace } from './cli-harness';

const DiffSchema = z.object({
  planId: z.string(),
  changesetId: z.string().nullable(),
  entries: z.array(
    z.object({
      path: z.string(),
      operation: z.enum(['create', 'modify', 'delete', 'rename']),
      beforeHash: z.string().nullable(),
      afterHash: z.string().nullable(),
      diff: z.string().nullable(),
    }),
  ),
});
const ErrorsSchema = z.object({
  planId: z.string(),
  errors: z.array(ErrorRecordSchema),
  recoveryHints: z.array(z.object({ action: z.string(), message: z.string(), command: z.string() })),
});
type Node = z.infer<typeof StrategyDecisionSchema> & { children: Node[] };
const TreeSchema = z.object({ planId: z.string(), root: z.any() });

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = readFileSync(p, 'base64');
    }
  };
  walk(dir);
  return out;
}

const flatten = (node: Node): Node[] => [node, ...node.children.flatMap(flatten)];

describe('agents CLI: the whole flow on real SQLite', () => {
  let home: string;
  let examples: string;
  let planId: string;
  let projectBefore: Record<string, string>;

  beforeAll(async () => {
    ({ home, examples } = sandboxWorkspace());
    projectBefore = snapshot(join(examples, 'demo-project'));
    planId = await createPlan(join(examples, 'add-license.yaml'), home);
  });

  it('create prints a ULID and another process shows the plan', async () => {
    expect(planId).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const plan = PlanSchema.parse(await agentsJson(['plan', 'show', planId], home));
    expect(plan).toMatchObject({ id: planId, name: 'add-license', phase: 'strategize', processingState: 'queued' });
    const list = await agentsJson<{ plans: unknown[] }>(['plan', 'list'], home);
    expect(list.plans).toHaveLength(1);
  });

  it('run --stream --json prints NDJSON events with a monotonic seq, and stops before apply', async () => {
    const result = await agents(['plan', 'run', planId, '--stream', '--json'], home);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const events = result.stdout.trim().split('\n').map((line) => StreamEventSchema.parse(JSON.parse(line)));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => events[0].seq + i));
    const types = events.map((e) => e.type);
    expect(types).toContain('strategize_complete');
    expect(types.at(-1) === 'runtime_execute_complete' || types.includes('runtime_execute_complete')).toBe(true);
    const plan = PlanSchema.parse(await agentsJson(['plan', 'show', planId], home));
    expect(plan).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(plan.sandboxRefs).toHaveLength(1);
  });

  it('leaves the project byte-for-byte unchanged until apply', () => {
    expect(snapshot(join(examples, 'demo-project'))).toEqual(projectBefore);
  });

  it('tree --json shows every step done', async () => {
    const tree = TreeSchema.parse(await agentsJson(['plan', 'tree', planId], home));
    const nodes = flatten(tree.root as Node);
    nodes.forEach((n) => StrategyDecisionSchema.parse({ ...n, children: undefined }));
    expect(nodes.filter((n) => n.type === 'strategy_choice').map((n) => n.status)).toEqual(Array(6).fill('done'));
  });

  it('diff --json lists every entry with its diff', async () => {
    const diff = DiffSchema.parse(await agentsJson(['plan', 'diff', planId], home));
    expect(diff.entries.map((e) => [e.operation, e.path])).toEqual([
      ['create', 'LICENSE'],
      ['modify', 'README.md'],
      ['modify', 'src/greet.js'],
      ['rename', 'lib/greet.js'],
      ['modify', 'tests/greet.test.js'],
      ['modify', 'README.md'],
    ]);
    for (const entry of diff.entries) expect(entry.diff).toMatch(/^(diff --git|---|Index)|@@|rename/m);
    const human = await agents(['plan', 'diff', planId], home);
    expect(human.stdout).toContain('+MIT licensed: see LICENSE.');
  });

  it('errors --json is empty for a plan that succeeded', async () => {
    const errors = ErrorsSchema.parse(await agentsJson(['plan', 'errors', planId], home));
    expect(errors).toEqual({ planId, errors: [], recoveryHints: [] });
  });

  it('the exported patch applies to a copy of the original project and gives the same tree as apply', async () => {
    const patch = (await agents(['plan', 'diff', planId, '--patch'], home)).stdout;
    const copy = mkdtempSync(join(tmpdir(), 'agents-patch-'));
    cpSync(join(examples, 'demo-project'), copy, { recursive: true });
    writeFileSync(join(copy, '..', `${planId}.patch`), patch);
    execFileSync('git', ['apply', '--check', join(copy, '..', `${planId}.patch`)], { cwd: copy });
    execFileSync('git', ['apply', join(copy, '..', `${planId}.patch`)], { cwd: copy });

    const applied = await agents(['plan', 'apply', planId], home);
    expect(applied.code).toBe(0);
    const project = snapshot(join(examples, 'demo-project'));
    expect(project).toEqual(snapshot(copy));
    expect(existsSync(join(examples, 'demo-project/lib/greet.js'))).toBe(true);
    expect(readFileSync(join(examples, 'demo-project/README.md'), 'utf8')).toContain('MIT licensed');
    const plan = PlanSchema.parse(await agentsJson(['plan', 'show', planId], home));
    expect(plan).toMatchObject({ phase: 'apply', processingState: 'complete' });
  });

  it('refuses to run or apply a plan again, with a clear message', async () => {
    const run = await agents(['plan', 'run', planId], home);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    // One vocabulary: the state the plan is in and what the action needs, never a phase and state pair.
    expect(run.stderr).toMatch(/is Applied; run needs a plan that is Ready to run$/m);
    const apply = await agents(['plan', 'apply', planId], home);
    expect(apply.code).toBe(2);
    expect(apply.stderr.trim()).toBe(`error: plan ${planId} is Applied; apply needs a plan that is Ready to apply or Failed`);
  });
});

describe('agents CLI: bad input', () => {
  const { home, examples } = sandboxWorkspace();
  const write = (name: string, text: string) => {
    const file = join(examples, name);
    writeFileSync(file, text);
    return file;
  };

  it.each([
    ['a missing name', 'definitionOfDone: "- a"\n', /name/],
    ['an empty definition of done', 'name: x\ndefinitionOfDone: []\n', /definitionOfDone/],
    ['a tool call without a tool', 'name: x\ndefinitionOfDone:\n  - step: s\n    tools: [{ args: {} }]\n', /definitionOfDone\.0/],
    ['an unknown profile', 'name: x\nautomationProfile: reckless\ndefinitionOfDone: "- a"\n', /automationProfile/],
    ['an unknown field', 'name: x\ncolour: red\ndefinitionOfDone: "- a"\n', /colour|unrecognized/i],
    ['a project that does not exist', 'name: x\nproject: ./nope\ndefinitionOfDone: "- a"\n', /project: not a directory/],
    ['invalid YAML', 'name: [unclosed\n', /not valid YAML/],
    ['a list instead of a mapping', '- a\n- b\n', /plan-file/],
  ])('rejects %s with one line, exit 2, and stores nothing', async (_case, text, pattern) => {
    const result = await agents(['plan', 'create', write(`bad-${Math.random()}.yaml`, text)], home);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(pattern);
    expect((await agentsJson<{ plans: unknown[] }>(['plan', 'list'], home)).plans).toEqual([]);
  });

  it('names a missing plan file', async () => {
    const result = await agents(['plan', 'create', 'no-such-plan.yaml'], home);
    expect(result).toMatchObject({ code: 2 });
    expect(result.stderr).toMatch(/no such file: no-such-plan\.yaml/);
  });

  it.each([['show'], ['tree'], ['diff'], ['errors'], ['run'], ['retry'], ['reset'], ['apply'], ['discard']])(
    '%s with an unknown id exits 2 naming planId',
    async (command) => {
      const result = await agents(['plan', command, '01ARZ3NDEKTSV4RRFFQ69G5FAV'], home);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/planId: no plan with id/);
    },
  );

  it('exits 2 on an unknown command or a missing argument', async () => {
    expect((await agents(['plan', 'frobnicate'], home)).code).toBe(2);
    expect((await agents(['plan', 'show'], home)).code).toBe(2);
  });

  it('prints help at every level', async () => {
    const top = await agents(['--help'], home);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/plan/);
    expect(top.stdout).toMatch(/serve/);
    const plan = await agents(['plan', '--help'], home);
    expect(plan.stdout).toMatch(/create \[options\] <plan-file>/);
    const run = await agents(['plan', 'run', '--help'], home);
    expect(run.stdout).toMatch(/--stream/);
  });
});

describe('agents CLI: failure, automatic retry and manual recovery', () => {
  const { home, examples } = sandboxWorkspace();

  it('retries a transient failure twice and completes, showing it in errors, events and tree', async () => {
    const id = await createPlan(join(examples, 'flaky-network.yaml'), home);
    const run = await agents(['plan', 'run', id, '--stream', '--json'], home);
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split('\n').map((l) => StreamEventSchema.parse(JSON.parse(l)));
    const retries = events.filter((e) => e.type === 'retry_scheduled');
    expect(retries.map((e) => e.data.attempt)).toEqual([2, 3]);
    expect(retries.every((e) => typeof e.data.delayMs === 'number' && (e.data.delayMs as number) > 0)).toBe(true);
    // The run's count is every call it made: three attempts of the sync, and the clean-up.
    const complete = events.find((e) => e.type === 'runtime_execute_complete');
    expect(complete?.data).toMatchObject({ toolCallCount: 4 });
    const errors = ErrorsSchema.parse(await agentsJson(['plan', 'errors', id], home));
    expect(errors.errors.map((e) => [e.category, e.outcome])).toEqual([
      ['transient', 'retried'],
      ['transient', 'retried'],
    ]);
    const tree = TreeSchema.parse(await agentsJson(['plan', 'tree', id], home));
    const recovery = flatten(tree.root as Node).filter((n) => n.type === 'error_recovery');
    expect(recovery).toHaveLength(2);
    const ran = z.array(z.object({ tool: z.string(), confinement: z.string().nullable() })).parse((await agentsJson(['plan', 'tree', id], home) as { invocations: unknown }).invocations);
    expect(ran.filter((i) => i.tool === 'shell.run').map((i) => i.confinement)).toEqual(['bwrap-nobody', 'bwrap-nobody', 'bwrap-nobody']);
    const text = await agents(['plan', 'tree', id], home);
    expect(text.stdout).toContain('Sync settings (the service is busy for the first two calls)  (shell.run)  [shell: confined by bwrap as nobody]');
  });

  it('with autoRetryTransient 0 the same plan ends errored after one attempt', async () => {
    const file = join(examples, 'flaky-no-retry.yaml');
    cpSync(join(examples, 'flaky-network.yaml'), file);
    editYaml(file, (t) => t.replace('autoRetryTransient: 3', 'autoRetryTransient: 0'));
    const id = await createPlan(file, home);
    const run = await agents(['plan', 'run', id], home);
    expect(run.code).toBe(1);
    const errors = ErrorsSchema.parse(await agentsJson(['plan', 'errors', id], home));
    expect(errors.errors).toHaveLength(1);
    expect(errors.errors[0]).toMatchObject({ category: 'transient', attempt: 1, outcome: 'gave_up' });
  });

  it('a permanent failure ends errored with category, hint and command; retry after the fix completes without re-running earlier steps', async () => {
    const file = join(examples, 'counted-docs.yaml');
    cpSync(join(examples, 'broken-docs.yaml'), file);
    // A counter in the first step proves it runs exactly once.
    editYaml(file, (t) =>
      t.replace(
        '  - step: Write the configuration notes\n    tools:\n',
        '  - step: Write the configuration notes\n    tools:\n      - tool: shell.run\n        args: { command: "echo ran >> .step1-count" }\n',
      ),
    );
    const id = await createPlan(file, home);
    const run = await agents(['plan', 'run', id], home);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/next: agents plan retry/);
    const plan = PlanSchema.parse(await agentsJson(['plan', 'show', id], home));
    expect(plan.processingState).toBe('errored');
    expect(plan.errorDetails).toMatchObject({ category: 'tool', retriable: false, recoveryAction: 'retry', recoveryCommand: `agents plan retry ${id}` });
    expect(String(plan.errorDetails.hint)).toMatch(/Fix the cause/);
    const errors = ErrorsSchema.parse(await agentsJson(['plan', 'errors', id], home));
    expect(errors.recoveryHints[0].command).toBe(`agents plan retry ${id}`);

    // Fix the cause in the sandbox, then retry.
    const sandbox = plan.sandboxRefs[0];
    writeFileSync(join(sandbox, 'README.md'), `${readFileSync(join(sandbox, 'README.md'), 'utf8')}\n## Configuration\n`);
    const retry = await agents(['plan', 'retry', id], home);
    expect(retry.code).toBe(0);
    expect(PlanSchema.parse(await agentsJson(['plan', 'show', id], home))).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(readFileSync(join(sandbox, '.step1-count'), 'utf8')).toBe('ran\n');
    const tree = TreeSchema.parse(await agentsJson(['plan', 'tree', id], home));
    const recovery = flatten(tree.root as Node).filter((n) => n.type === 'error_recovery');
    expect(recovery.map((n) => [n.description, n.status])).toEqual([
      ['Gave up', 'failed'],
      ['Retried by the operator', 'done'],
    ]);
  });

  it('reset moves an errored plan back to queued; discard removes the sandbox and cancels', async () => {
    const id = await createPlan(join(examples, 'broken-docs.yaml'), home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(1);
    const reset = await agentsJson<{ processingState: string; phase: string }>(['plan', 'reset', id], home);
    expect(reset).toMatchObject({ processingState: 'queued', phase: 'execute' });
    expect((await agents(['plan', 'reset', id], home)).code).toBe(2);
    const { sandboxRefs } = PlanSchema.parse(await agentsJson(['plan', 'show', id], home));
    const discarded = await agentsJson<{ processingState: string }>(['plan', 'discard', id], home);
    expect(discarded.processingState).toBe('cancelled');
    expect(existsSync(sandboxRefs[0])).toBe(false);
  });

  it('apply reports a conflict when the project changed, and writes nothing', async () => {
    const id = await createPlan(join(examples, 'add-license.yaml'), home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(0);
    const project = join(examples, 'demo-project');
    writeFileSync(join(project, 'README.md'), '# Demo\n\nEdited by hand.\n');
    const before = snapshot(project);
    const apply = await agents(['plan', 'apply', id, '--json'], home);
    expect(apply.code).toBe(1);
    const result = JSON.parse(apply.stdout) as { conflicts: { path: string }[]; applied: string[] };
    expect(result.conflicts.map((c) => c.path)).toEqual(['README.md']);
    expect(result.applied).toEqual([]);
    expect(snapshot(project)).toEqual(before);
  });
});

describe('agents CLI: applying a changeset in parts', () => {
  const { home, examples } = sandboxWorkspace();

  it('apply --path and --hunks write only what they name; diff shows what is applied and what remains; a second apply finishes', async () => {
    const project = join(examples, 'demo-project');
    writeFileSync(join(project, 'README.md'), `${readFileSync(join(project, 'README.md'), 'utf8')}${Array.from({ length: 10 }, (_, i) => `\nline ${i}`).join('')}\n`);
    const file = join(examples, 'two-hunks.yaml');
    writeFileSync(
      file,
      [
        'name: two-hunks',
        'project: ./demo-project',
        'definitionOfDone:',
        '  - step: Retitle the README and add a licence',
        '    tools:',
        '      - { tool: file.edit, args: { path: README.md, find: "# Demo", replace: "# Demo project" } }',
        '      - { tool: file.edit, args: { path: README.md, find: "line 9", replace: "the end" } }',
        '      - { tool: file.write, args: { path: LICENSE, content: "MIT\\n" } }',
        '',
      ].join('\n'),
    );
    const id = await createPlan(file, home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(0);
    const diff = await agents(['plan', 'diff', id], home);
    expect(diff.stdout).toContain('2 files changed: 0 applied, 2 remaining');
    expect(diff.stdout).toMatch(/hunk 2 of 2: remaining/);

    const bad = await agents(['plan', 'apply', id, '--hunks', 'README.md'], home);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--hunks/);

    const first = await agents(['plan', 'apply', id, '--hunks', 'README.md:2'], home);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^applied 1 file, skipped 1\n2 files remain: /);
    const readme = readFileSync(join(project, 'README.md'), 'utf8');
    expect(readme).toContain('the end');
    expect(readme).not.toContain('# Demo project');
    expect(existsSync(join(project, 'LICENSE'))).toBe(false);
    expect((await agents(['plan', 'diff', id], home)).stdout).toMatch(/README\.md {2}\[partly applied\][\s\S]*hunk 1 of 2: remaining[\s\S]*hunk 2 of 2: applied/);
    expect(PlanSchema.parse(await agentsJson(['plan', 'show', id], home))).toMatchObject({ phase: 'apply', processingState: 'queued' });

    expect((await agents(['plan', 'apply', id, '--path', 'LICENSE'], home)).code).toBe(0);
    expect(readFileSync(join(project, 'LICENSE'), 'utf8')).toBe('MIT\n');
    expect((await agents(['plan', 'apply', id], home)).code).toBe(0);
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toMatch(/^# Demo project[\s\S]*the end/);
    expect(PlanSchema.parse(await agentsJson(['plan', 'show', id], home))).toMatchObject({ phase: 'apply', processingState: 'complete' });
  }, 90_000);
});
