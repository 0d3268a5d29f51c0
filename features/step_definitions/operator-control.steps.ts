import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Given, setDefaultTimeout, Then, When } from '@cucumber/cucumber';
import type { Approval } from '../../shared/approvals';
import { type Plan, PlanSchema } from '../../shared/domain';
import { StreamEventSchema } from '../../shared/events';
import { agents, type CliResult, startAgents } from '../../tests/cli/cli-harness';
import type { EngineWorld } from '../support/world';

// Each step starts the CLI as a new process, some several times: on a busy machine that takes seconds.
setDefaultTimeout(60_000);

/** What the operator-control scenarios keep between steps: a data directory, a project, a plan. */
interface Operator {
  dir: string;
  home: string;
  project: string;
  planFile: string;
  planId: string;
  last: CliResult;
  held: string[];
}

interface TreeNode {
  type: string;
  description: string;
  rationale: string;
  children: TreeNode[];
}

const op = (world: EngineWorld): Operator => (world as unknown as { operator: Operator }).operator;

async function cli(world: EngineWorld, ...args: string[]): Promise<CliResult> {
  const result = await agents(args, op(world).home);
  op(world).last = result;
  return result;
}

async function json<T>(world: EngineWorld, ...args: string[]): Promise<T> {
  const result = await agents([...args, '--json'], op(world).home);
  assert.equal(result.code, 0, `agents ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

const showPlan = async (world: EngineWorld): Promise<Plan> => PlanSchema.parse(await json(world, 'plan', 'show', op(world).planId));

const shell = (command: string) => `      - { tool: shell.run, args: { command: ${JSON.stringify(command)} } }`;
const count = (label: string) => shell(`echo ${label} >> counter.txt`);

/** Writes the plan file and creates the plan from it. */
async function createPlan(world: EngineWorld, profile: string, steps: string[][]): Promise<void> {
  const o = op(world);
  const body = steps.flatMap((calls, i) => [`  - step: Step ${i + 1}`, '    tools:', ...calls]);
  writeFileSync(o.planFile, ['name: operator-control', 'project: ./project', `automationProfile: ${profile}`, 'definitionOfDone:', ...body, ''].join('\n'));
  const created = await cli(world, 'plan', 'create', o.planFile);
  assert.equal(created.code, 0, created.stderr);
  o.planId = created.stdout.trim();
}

function sandbox(plan: Plan): string {
  assert.ok(plan.sandboxRefs[0], 'the plan has a sandbox');
  return plan.sandboxRefs[0];
}

function walk(node: TreeNode | null, visit: (n: TreeNode) => void): void {
  if (!node) return;
  visit(node);
  for (const child of node.children) walk(child, visit);
}

async function treeNodes(world: EngineWorld, type: string): Promise<TreeNode[]> {
  const { root } = await json<{ root: TreeNode | null }>(world, 'plan', 'tree', op(world).planId);
  const found: TreeNode[] = [];
  walk(root, (n) => n.type === type && found.push(n));
  return found;
}

Given('an empty data directory and a project', function (this: EngineWorld) {
  const dir = mkdtempSync(join(tmpdir(), 'agents-operator-'));
  const project = join(dir, 'project');
  mkdirSync(join(project, 'docs'), { recursive: true });
  writeFileSync(join(project, 'docs/guide.md'), '# Guide\n');
  writeFileSync(join(project, 'old.txt'), 'old\n');
  writeFileSync(join(project, 'notes.txt'), 'notes\n');
  const operator: Operator = { dir, home: join(dir, 'home'), project, planFile: join(dir, 'plan.yaml'), planId: '', last: { code: -1, stdout: '', stderr: '' }, held: [] };
  (this as unknown as { operator: Operator }).operator = operator;
});

Given(/^a plan under the (?:"([^"]+)" profile|profile "([^"]+)") that writes, deletes and renames a file and runs a shell command$/, async function (this: EngineWorld, name?: string, inline?: string) {
  await createPlan(this, name ?? (inline as string), [
    ['      - { tool: file.write, args: { path: new.txt, content: "new\\n" } }'],
    ['      - { tool: file.delete, args: { path: old.txt } }'],
    ['      - { tool: file.rename, args: { from: notes.txt, to: renamed.txt } }'],
    [count('1')],
  ]);
});

Given('a {string} plan of three steps that each count their run with a shell command', async function (this: EngineWorld, profile: string) {
  await createPlan(this, profile, [[count('1')], [count('2')], [count('3')]]);
});

Given('a {string} plan of three steps whose second step fails', async function (this: EngineWorld, profile: string) {
  await createPlan(this, profile, [[count('1')], [shell('test -f ready.txt && echo 2 >> counter.txt')], [count('3')]]);
});

Given('the project\'s invariants protect {string} and deny the command {string}', function (this: EngineWorld, glob: string, command: string) {
  const { project } = op(this);
  mkdirSync(join(project, '.agents'), { recursive: true });
  writeFileSync(join(project, '.agents/invariants.yaml'), `protect: [${JSON.stringify(glob)}]\ndenyCommands: [${JSON.stringify(command)}]\nnotes: ["Keep secrets out of the sandbox"]\n`);
});

Given('a {string} plan whose first step writes {string}', async function (this: EngineWorld, profile: string, file: string) {
  await createPlan(this, profile, [[`      - { tool: file.write, args: { path: ${JSON.stringify(file)}, content: "x" } }`], [count('2')]]);
});

Given('a {string} plan whose first step runs {string}', async function (this: EngineWorld, profile: string, command: string) {
  await createPlan(this, profile, [[shell(command)], [count('2')]]);
});

When('I run the plan', async function (this: EngineWorld) {
  await cli(this, 'plan', 'run', op(this).planId);
});

When('I run the plan, approving each call it waits for', async function (this: EngineWorld) {
  const o = op(this);
  let result = await cli(this, 'plan', 'run', o.planId);
  for (let guard = 0; result.code === 3 && guard < 20; guard++) {
    const { pending } = await json<{ pending: Approval | null }>(this, 'plan', 'approvals', o.planId);
    assert.ok(pending, 'a plan that exits 3 has a pending approval');
    o.held.push(pending.tool ?? pending.kind);
    result = await cli(this, 'plan', 'approve', o.planId);
  }
  assert.equal(result.code, 0, result.stderr);
});

When('I run the plan and kill its process with SIGKILL as soon as it asks for approval', async function (this: EngineWorld) {
  const child = startAgents(['plan', 'run', op(this).planId, '--stream', '--json'], op(this).home);
  let buffer = '';
  const asked = await new Promise<boolean>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (StreamEventSchema.parse(JSON.parse(line)).type === 'approval_requested') {
          child.kill('SIGKILL');
          resolve(true);
        }
      }
    });
    child.on('close', () => resolve(false));
  });
  assert.ok(asked, 'the run asked for approval before it ended');
  await new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.on('close', resolve)));
});

When('I approve the waiting call', async function (this: EngineWorld) {
  await cli(this, 'plan', 'approve', op(this).planId);
});

When('I approve every {string} call', async function (this: EngineWorld, tool: string) {
  const { pending } = await json<{ pending: Approval | null }>(this, 'plan', 'approvals', op(this).planId);
  assert.equal(pending?.tool, tool);
  await cli(this, 'plan', 'approve', op(this).planId, '--all');
});

When('I reject the waiting call because {string}', async function (this: EngineWorld, reason: string) {
  await cli(this, 'plan', 'reject', op(this).planId, '--reason', reason);
});

When('I skip the failed step', async function (this: EngineWorld) {
  const result = await cli(this, 'plan', 'skip', op(this).planId);
  assert.equal(result.code, 0, result.stderr);
});

When('I replace the calls of step {int} with a shell command that counts {string}', async function (this: EngineWorld, step: number, label: string) {
  const file = join(op(this).dir, 'step.yaml');
  writeFileSync(file, [`step: Count ${label} instead`, 'tools:', count(label).trimStart().replace(/^- /, '  - '), ''].join('\n'));
  const result = await cli(this, 'plan', 'edit-step', op(this).planId, '--step', String(step), '--file', file);
  assert.equal(result.code, 0, result.stderr);
});

When('I change the profile to {string}', async function (this: EngineWorld, profile: string) {
  const result = await cli(this, 'plan', 'profile', op(this).planId, profile);
  assert.equal(result.code, 0, result.stderr);
});

When('I replan with a plan file whose steps count {string} and {string}', async function (this: EngineWorld, a: string, b: string) {
  const file = join(op(this).dir, 'replan.yaml');
  writeFileSync(file, ['name: the rest, done differently', 'definitionOfDone:', `  - step: Count ${a}`, '    tools:', count(a), `  - step: Count ${b}`, '    tools:', count(b), ''].join('\n'));
  const result = await cli(this, 'plan', 'replan', op(this).planId, '--file', file);
  assert.equal(result.code, 0, result.stderr);
});

When('I create {string} in the plan\'s sandbox', async function (this: EngineWorld, file: string) {
  writeFileSync(join(sandbox(await showPlan(this)), file), 'ready\n');
});

When('I retry the plan', async function (this: EngineWorld) {
  await cli(this, 'plan', 'retry', op(this).planId);
});

Then('the calls that waited for approval were {string}', function (this: EngineWorld, held: string) {
  assert.deepEqual(op(this).held, held === 'none' ? [] : held.split(', '));
});

Then('the plan is ready to apply', async function (this: EngineWorld) {
  const plan = await showPlan(this);
  assert.deepEqual([plan.phase, plan.processingState], ['apply', 'queued']);
});

Then('the run exits with status {int}', function (this: EngineWorld, code: number) {
  assert.equal(op(this).last.code, code, op(this).last.stderr);
});

Then('the run exits with status {int} and the plan waits for approval of {string}', async function (this: EngineWorld, code: number, tool: string) {
  assert.equal(op(this).last.code, code, op(this).last.stderr);
  const plan = await showPlan(this);
  assert.deepEqual([plan.processingState, plan.waitingFor], ['paused', 'approval']);
  const { pending } = await json<{ pending: Approval | null }>(this, 'plan', 'approvals', op(this).planId);
  assert.equal(pending?.tool, tool);
});

Then('the plan is paused and waits for approval of {string}', async function (this: EngineWorld, tool: string) {
  const plan = await showPlan(this);
  assert.deepEqual([plan.processingState, plan.waitingFor], ['paused', 'approval']);
  const { pending } = await json<{ pending: Approval | null }>(this, 'plan', 'approvals', op(this).planId);
  assert.equal(pending?.tool, tool);
});

Then('the counter file reads {string}', async function (this: EngineWorld, expected: string) {
  const file = join(sandbox(await showPlan(this)), 'counter.txt');
  const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
  assert.equal(lines.join(' '), expected);
});

Then('the decision tree holds {int} approval decisions by the operating system user', async function (this: EngineWorld, count: number) {
  const approvals = await treeNodes(this, 'approval');
  assert.equal(approvals.length, count);
  for (const node of approvals) assert.match(node.rationale, new RegExp(`^approved by ${userInfo().username} on ${hostname()} at `));
});

Then('the decision tree records a rejection with the reason {string}', async function (this: EngineWorld, reason: string) {
  const approvals = await treeNodes(this, 'approval');
  assert.ok(
    approvals.some((n) => n.description.startsWith('Rejected shell.run') && n.rationale.endsWith(`: ${reason}`)),
    JSON.stringify(approvals),
  );
});

Then('the plan\'s error has category {string}', async function (this: EngineWorld, category: string) {
  const plan = await showPlan(this);
  assert.equal(plan.processingState, 'errored');
  assert.equal(plan.errorDetails.category, category);
});

Then('the plan\'s hint names the rule {string}', async function (this: EngineWorld, rule: string) {
  const plan = await showPlan(this);
  assert.match(String(plan.errorDetails.hint), new RegExp(`Rule: protect "${rule.replace(/[*]/g, '\\*')}"`));
});

Then('the sandbox has no file {string}', async function (this: EngineWorld, file: string) {
  assert.equal(existsSync(join(sandbox(await showPlan(this)), file)), false);
});

Then('the sandbox still has {string}', async function (this: EngineWorld, file: string) {
  assert.equal(existsSync(join(sandbox(await showPlan(this)), file)), true);
});

Then('the plan\'s changeset has {string} and nothing under {string}', async function (this: EngineWorld, file: string, folder: string) {
  const { entries } = await json<{ entries: { path: string }[] }>(this, 'plan', 'diff', op(this).planId);
  const paths = entries.map((e) => e.path);
  assert.ok(paths.includes(file), paths.join(', '));
  assert.ok(!paths.some((p) => p.startsWith(folder)), paths.join(', '));
});

Then('the plan shows its error', async function (this: EngineWorld) {
  const shown = await cli(this, 'plan', 'show', op(this).planId);
  assert.match(shown.stdout, /^ {2}error: /m);
  assert.match(shown.stdout, /^ {2}next: /m);
});

Then('the plan\'s current error is cleared', async function (this: EngineWorld) {
  const plan = await showPlan(this);
  assert.equal(plan.errorMessage, null);
  assert.equal(plan.errorDetails.category, undefined);
  const shown = await cli(this, 'plan', 'show', op(this).planId);
  assert.doesNotMatch(shown.stdout, /error:|next: {2}agents plan retry/);
});

Then('the plan\'s error history still holds the failure', async function (this: EngineWorld) {
  const plan = await showPlan(this);
  assert.ok(Array.isArray(plan.errorDetails.history) && plan.errorDetails.history.length > 0);
  const { errors } = await json<{ errors: { category: string }[] }>(this, 'plan', 'errors', op(this).planId);
  assert.deepEqual(errors.map((e) => e.category), ['tool']);
});
