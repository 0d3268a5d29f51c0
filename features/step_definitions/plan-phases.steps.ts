import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Given, Then, When } from '@cucumber/cucumber';
import { z } from 'zod';
import type { DefinitionOfDone, ExecuteResult, Plan } from '../../shared/domain';
import { resolveProfile } from '../../shared/profiles';
import { PlanError, ValidationError } from '../../shared/errors';
import { isUlid } from '../../shared/ids';
import { PlanExecutionContext } from '../../main/engine/run/execution-context';
import { PlanExecutor } from '../../main/engine/run/plan-executor';
import { InMemoryChangeSetStore, inMemoryLifecycle, inMemoryToolRunner } from '../../main/engine/test-support/in-memory-stores';
import type { StrategizeResult } from '../../main/engine/run/strategize-actor';
import { ToolRegistry } from '../../main/engine/run/tool-runner';
import { registerBuiltinTools } from '../../main/engine/tools';
import type { EngineWorld } from '../support/world';

interface PhaseWorld extends EngineWorld {
  plan: Plan;
  strategized?: StrategizeResult;
  sandbox?: string;
}

function engine(world: PhaseWorld) {
  world.lifecycle ??= inMemoryLifecycle();
  if (!world.toolRunner) {
    const registry = registerBuiltinTools(new ToolRegistry());
    registry.register({
      name: 'boom',
      effect: 'write',
      description: 'always fails (a test tool)',
      schema: z.object({}),
      run: async () => {
        throw new Error('boom exploded');
      },
    });
    world.toolRunner = inMemoryToolRunner(registry);
  }
  return world.lifecycle;
}

async function createPlan(world: PhaseWorld, definitionOfDone: DefinitionOfDone, invariants: string[] = []): Promise<Plan> {
  world.plan = await engine(world).createPlan({ name: 'feature plan', definitionOfDone, invariants, automationProfile: resolveProfile('trusted') });
  world.planId = world.plan.id;
  return world.plan;
}

function executor(world: PhaseWorld, withContext = true): PlanExecutor {
  world.sandbox ??= mkdtempSync(join(tmpdir(), 'agents-feature-'));
  const context = withContext ? new PlanExecutionContext({ planId: world.planId, sandboxRoot: world.sandbox, changesetStore: new InMemoryChangeSetStore() }) : null;
  world.context = context ?? undefined;
  return new PlanExecutor({ lifecycleService: world.lifecycle, toolRunner: world.toolRunner, executionContext: context });
}

async function capture(world: PhaseWorld, action: () => Promise<unknown>): Promise<void> {
  try {
    world.result = await action();
    world.error = undefined;
  } catch (error) {
    world.error = error;
  }
}

const current = (world: PhaseWorld) => world.lifecycle!.getPlan(world.planId);

// ---- strategize ----------------------------------------------------------

Given('a plan whose definition of done is:', async function (this: PhaseWorld, text: string) {
  await createPlan(this, text);
});

Given('a plan with a step {string} that calls file.write on {string}', async function (this: PhaseWorld, step: string, path: string) {
  await createPlan(this, [{ step, tools: [{ tool: 'file.write', args: { path, content: 'MIT' } }] }]);
});

Given('a plan with the invariant {string}', async function (this: PhaseWorld, invariant: string) {
  await createPlan(this, '- Do the thing', [invariant]);
});

When('the plan is strategized', async function (this: PhaseWorld) {
  this.strategized = await executor(this).runStrategize(this.planId, { streamCallback: this.collect });
});

Then('the decision tree has a prompt_definition root', function (this: PhaseWorld) {
  const root = this.strategized!.decisions.find((d) => d.id === this.strategized!.decisionRootId);
  assert.equal(root?.type, 'prompt_definition');
  assert.equal(root?.parentId, null);
});

Then('the root has {int} strategy_choice children in order:', function (this: PhaseWorld, count: number, table: { raw(): string[][] }) {
  const children = this.strategized!.decisions.filter((d) => d.parentId === this.strategized!.decisionRootId);
  assert.equal(children.length, count);
  assert.ok(children.every((d) => d.type === 'strategy_choice'));
  assert.deepEqual(
    children.map((d) => d.description),
    table.raw().map((row) => row[0].trim()),
  );
});

Then('every decision id is a ULID', function (this: PhaseWorld) {
  assert.ok(this.strategized!.decisions.every((d) => isUlid(d.id)));
});

Then('the plan is queued in phase execute with the decision root recorded', async function (this: PhaseWorld) {
  const plan = await current(this);
  assert.equal(plan.phase, 'execute');
  assert.equal(plan.processingState, 'queued');
  assert.equal(plan.decisionRootId, this.strategized!.decisionRootId);
});

Then('the decision {string} plans a file.write call with path {string}', function (this: PhaseWorld, step: string, path: string) {
  const decision = this.strategized!.decisions.find((d) => d.description === step);
  assert.deepEqual(decision?.toolCalls, [{ tool: 'file.write', args: { path, content: 'MIT' } }]);
});

Then('no tool was invoked and no changeset exists', async function (this: PhaseWorld) {
  assert.equal((await this.toolRunner!.log.listForPlan(this.planId)).length, 0);
  assert.equal((await this.context!.changesetStore.getForPlan(this.planId)).length, 0);
  assert.equal((await current(this)).changesetId, null);
});

Then('the invariant records include an accepted action invariant {string}', function (this: PhaseWorld, invariant: string) {
  assert.deepEqual(this.strategized!.invariantRecords, [{ scope: 'action', invariant, status: 'accepted', enforcement: 'stub' }]);
});

// ---- guards and errors ---------------------------------------------------

Given('a queued plan that has not been strategized', async function (this: PhaseWorld) {
  await createPlan(this, '- One step');
});

Given('a plan that has been strategized', async function (this: PhaseWorld) {
  await createPlan(this, '- One step');
  await executor(this).runStrategize(this.planId);
});

Given('a strategized plan whose step calls the failing tool {string}', async function (this: PhaseWorld, tool: string) {
  await createPlan(this, [{ step: 'Explode', tools: [{ tool, args: {} }] }]);
  await executor(this).runStrategize(this.planId);
});

Given('a strategized plan whose step writes {string} in a sandbox', async function (this: PhaseWorld, path: string) {
  await createPlan(this, [{ step: 'Write it', tools: [{ tool: 'file.write', args: { path, content: 'hello\n' } }] }]);
  await executor(this).runStrategize(this.planId);
});

Given("the plan's error details already hold {string} = {string}", async function (this: PhaseWorld, key: string, value: string) {
  await this.lifecycle!.update(this.planId, { errorDetails: { [key]: value } });
});

When('I try to run execute on it', async function (this: PhaseWorld) {
  await capture(this, () => executor(this).runExecute(this.planId));
});

When('I run execute on it', async function (this: PhaseWorld) {
  await capture(this, () => executor(this).runExecute(this.planId, { streamCallback: this.collect }));
});

When('I run execute on it without an execution context', async function (this: PhaseWorld) {
  this.events = [];
  await capture(this, () => executor(this, false).runExecute(this.planId, { streamCallback: this.collect }));
});

When('I try to run strategize on it', async function (this: PhaseWorld) {
  await capture(this, () => executor(this).runStrategize(this.planId));
});

When('I try to run strategize on plan {string}', async function (this: PhaseWorld, planId: string) {
  engine(this);
  this.planId = planId;
  await capture(this, () => executor(this).runStrategize(planId));
});

Then('a PlanError is raised mentioning {string}', function (this: PhaseWorld, text: string) {
  assert.ok(this.error instanceof PlanError, `expected a PlanError, got ${String(this.error)}`);
  assert.ok(this.error.message.includes(text), this.error.message);
});

Then('a ValidationError is raised mentioning {string}', function (this: PhaseWorld, text: string) {
  assert.ok(this.error instanceof ValidationError, `expected a ValidationError, got ${String(this.error)}`);
  assert.ok(this.error.message.includes(text), this.error.message);
});

Then('the plan is still queued in phase strategize', async function (this: PhaseWorld) {
  const plan = await current(this);
  assert.equal(plan.phase, 'strategize');
  assert.equal(plan.processingState, 'queued');
});

Then('the plan is errored with message containing {string}', async function (this: PhaseWorld, text: string) {
  const plan = await current(this);
  assert.equal(plan.processingState, 'errored');
  assert.ok(plan.errorMessage?.includes(text), plan.errorMessage ?? '(no message)');
});

Then('the error details include exceptionType, traceback and mode {string}', async function (this: PhaseWorld, mode: string) {
  const details = (await current(this)).errorDetails;
  assert.equal(typeof details.exceptionType, 'string');
  assert.match(String(details.traceback), /boom exploded/);
  assert.equal(details.mode, mode);
});

Then('the error details still hold {string} = {string}', async function (this: PhaseWorld, key: string, value: string) {
  assert.equal((await current(this)).errorDetails[key], value);
});

Then('the failed decision has status failed', async function (this: PhaseWorld) {
  const step = (await this.lifecycle!.listDecisions(this.planId)).find((d) => d.type === 'strategy_choice');
  assert.equal(step?.status, 'failed');
});

Then('the plan is queued in phase apply', async function (this: PhaseWorld) {
  const plan = await current(this);
  assert.equal(plan.phase, 'apply');
  assert.equal(plan.processingState, 'queued');
});

Then('the plan records the changeset id, the sandbox ref and a tool call count of {int}', async function (this: PhaseWorld, count: number) {
  const plan = await current(this);
  assert.ok(isUlid(plan.changesetId));
  assert.deepEqual(plan.sandboxRefs, [this.sandbox]);
  assert.equal(plan.errorDetails.toolCallCount, count);
  assert.equal(plan.errorDetails.sandboxRefCount, 1);
});

Then('the changeset holds a create entry for {string}', async function (this: PhaseWorld, path: string) {
  const changeset = await this.context!.getChangeset((await current(this)).changesetId!);
  assert.deepEqual(
    changeset?.entries.map((e) => [e.operation, e.path]),
    [['create', path]],
  );
});

When('I run strategize and execute with a stream callback on a fresh plan of the same steps', async function (this: PhaseWorld) {
  this.sandbox = undefined;
  await createPlan(this, [{ step: 'Write it', tools: [{ tool: 'file.write', args: { path: 'hello.txt', content: 'hello\n' } }] }]);
  this.events = [];
  const run = executor(this);
  await run.runStrategize(this.planId, { streamCallback: this.collect });
  await run.runExecute(this.planId, { streamCallback: this.collect });
});

const seedTypes = (world: PhaseWorld) => world.events.map((e) => e.type).filter((t) => /^(strategize|execute|runtime_execute)_/.test(t));

Then('the events start with strategize_started, strategize_decisions, strategize_complete', function (this: PhaseWorld) {
  assert.deepEqual(seedTypes(this).slice(0, 3), ['strategize_started', 'strategize_decisions', 'strategize_complete']);
});

Then('then runtime_execute_started, runtime_execute_step and end with runtime_execute_complete', function (this: PhaseWorld) {
  assert.deepEqual(seedTypes(this).slice(3), ['runtime_execute_started', 'runtime_execute_step', 'runtime_execute_complete']);
});

Then('every event carries the plan id and a seq one above the previous', function (this: PhaseWorld) {
  assert.ok(this.events.length > 6);
  this.events.forEach((event, i) => {
    assert.equal(event.planId, this.planId);
    if (i > 0) assert.equal(event.seq, this.events[i - 1].seq + 1);
  });
});

Then('the stream shows execute_started, execute_step and execute_complete', function (this: PhaseWorld) {
  assert.deepEqual(seedTypes(this), ['execute_started', 'execute_step', 'execute_complete']);
});

Then('the result changeset holds a create entry for {string}', function (this: PhaseWorld, path: string) {
  const result = this.result as ExecuteResult;
  assert.deepEqual(
    result.changeset.entries.map((e) => [e.operation, e.path]),
    [['create', path]],
  );
});
