import assert from 'node:assert/strict';
import { Given, Then, When } from '@cucumber/cucumber';
import { PlanError, ValidationError } from '../../shared/errors';
import { isUlid, newId } from '../../shared/ids';
import { PlanExecutionContext } from '../../main/engine/run/execution-context';
import { PlanExecutor } from '../../main/engine/run/plan-executor';
import { InMemoryChangeSetStore } from '../../main/engine/run/in-memory-changeset-store';
import { InMemoryEventLog, inMemoryLifecycle, inMemoryToolRunner } from '../../main/engine/test-support/in-memory-stores';
import { EventPublisher } from '../../main/engine/ports/event-stream';
import { createRuntimeExecuteResult, RuntimeExecuteActor } from '../../main/engine/run/runtime-execute-actor';
import { ToolRegistry } from '../../main/engine/run/tool-runner';
import { type EngineWorld, sampleEntry, stubDecision } from '../support/world';

const testEvents = () => new EventPublisher(new InMemoryEventLog());

async function attempt(world: EngineWorld, action: () => unknown): Promise<void> {
  try {
    world.result = await action();
    world.error = undefined;
  } catch (error) {
    world.error = error;
  }
}

// ---- background ----------------------------------------------------------

Given('a fresh in-memory changeset store', function (this: EngineWorld) {
  this.store = new InMemoryChangeSetStore();
});

Given('a valid plan ID', function (this: EngineWorld) {
  this.planId = newId();
});

// ---- context creation ------------------------------------------------------

When('I create a PlanExecutionContext with a valid plan_id', function (this: EngineWorld) {
  this.context = new PlanExecutionContext({ planId: this.planId });
});

Then('the context plan_id should match the provided value', function (this: EngineWorld) {
  assert.equal(this.context?.planId, this.planId);
});

When('I create a PlanExecutionContext with all optional fields', function (this: EngineWorld) {
  this.options = { decisionRootId: newId(), sandboxRoot: '/tmp/sandbox', automationProfile: 'trusted' };
  this.context = new PlanExecutionContext({
    planId: this.planId,
    decisionRootId: this.options.decisionRootId as string,
    sandboxRoot: '/tmp/sandbox',
    automationProfile: 'trusted',
    projectResources: { repo: { path: '/code' } },
    resourceBindings: { repo: { name: 'repo', kind: 'directory', path: '/code' } },
    changesetStore: this.store,
  });
});

Then('the context should have the correct decision_root_id', function (this: EngineWorld) {
  assert.equal(this.context?.decisionRootId, this.options.decisionRootId);
});

Then('the context should have the correct sandbox_root', function (this: EngineWorld) {
  assert.equal(this.context?.sandboxRoot, '/tmp/sandbox');
});

Then('the context should have the correct automation_profile', function (this: EngineWorld) {
  assert.equal(this.context?.automationProfile, 'trusted');
});

When('I attempt to create a PlanExecutionContext with empty plan_id', async function (this: EngineWorld) {
  await attempt(this, () => new PlanExecutionContext({ planId: '' }));
});

When('I attempt to create a PlanExecutionContext with None plan_id', async function (this: EngineWorld) {
  await attempt(this, () => new PlanExecutionContext({ planId: null }));
});

Then('the plan execution context should raise a ValidationError containing {string}', function (this: EngineWorld, text: string) {
  assert.ok(this.error instanceof ValidationError, `expected a ValidationError, got ${String(this.error)}`);
  // The seed names fields in snake_case; the engine names them as the contract does, in camelCase.
  const camel = text.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  assert.match(this.error.message, new RegExp(camel));
});

Then('the plan execution context should raise a ValidationError', function (this: EngineWorld) {
  assert.ok(this.error instanceof ValidationError, `expected a ValidationError, got ${String(this.error)}`);
});

When('I create a PlanExecutionContext without specifying a changeset store', function (this: EngineWorld) {
  this.context = new PlanExecutionContext({ planId: this.planId });
});

Then('the context changeset_store should be an InMemoryChangeSetStore', function (this: EngineWorld) {
  // The context's own fallback, not a store the scenario passed in.
  assert.ok(this.context?.changesetStore instanceof InMemoryChangeSetStore);
  assert.notEqual(this.context?.changesetStore, this.store);
});

When('I create a PlanExecutionContext with a custom changeset store', function (this: EngineWorld) {
  this.context = new PlanExecutionContext({ planId: this.planId, changesetStore: this.store });
});

Then('the context changeset_store should be the provided store', function (this: EngineWorld) {
  assert.equal(this.context?.changesetStore, this.store);
});

Then('the context project_resources should be an empty dict', function (this: EngineWorld) {
  assert.deepEqual(this.context?.projectResources, {});
});

Then('the context resource_bindings should be an empty dict', function (this: EngineWorld) {
  assert.deepEqual(this.context?.resourceBindings, {});
});

// ---- changesets ------------------------------------------------------------

Given('a PlanExecutionContext', function (this: EngineWorld) {
  this.context = new PlanExecutionContext({ planId: this.planId, changesetStore: this.store });
});

Given('a PlanExecutionContext with sandbox_root {string}', function (this: EngineWorld, sandboxRoot: string) {
  this.context = new PlanExecutionContext({ planId: this.planId, sandboxRoot, changesetStore: this.store });
});

Given('a PlanExecutionContext with a known changeset store', function (this: EngineWorld) {
  this.context = new PlanExecutionContext({ planId: this.planId, changesetStore: this.store });
});

Given('a PlanExecutionContext with an active changeset', async function (this: EngineWorld) {
  this.context = new PlanExecutionContext({ planId: this.planId, changesetStore: this.store });
  this.changesetId = await this.context.startChangeset();
});

Given('a PlanExecutionContext without an active changeset', function (this: EngineWorld) {
  this.context = new PlanExecutionContext({ planId: this.planId, changesetStore: this.store });
});

Given('a PlanExecutionContext with an active changeset and one recorded entry', async function (this: EngineWorld) {
  this.context = new PlanExecutionContext({ planId: this.planId, decisionRootId: newId(), changesetStore: this.store });
  this.changesetId = await this.context.startChangeset();
  const entry = sampleEntry();
  await this.context.recordChange(entry);
  this.recorded.push(entry);
});

When('I call start_changeset', async function (this: EngineWorld) {
  this.changesetId = await this.context!.startChangeset();
});

Then('the returned changeset_id should be a valid ULID string', function (this: EngineWorld) {
  assert.ok(isUlid(this.changesetId), `not a ULID: ${this.changesetId}`);
});

Then('the active_changeset_ids should contain the new ID', function (this: EngineWorld) {
  assert.ok(this.context!.activeChangesetIds.includes(this.changesetId!));
});

When('I record a ChangeEntry into the context', async function (this: EngineWorld) {
  const entry = sampleEntry();
  await this.context!.recordChange(entry);
  this.recorded.push(entry);
});

Then('the changeset should contain the recorded entry', async function (this: EngineWorld) {
  const changeset = await this.context!.getChangeset(this.changesetId!);
  assert.deepEqual(changeset?.entries, this.recorded);
});

When('I attempt to record a ChangeEntry', async function (this: EngineWorld) {
  await attempt(this, () => this.context!.recordChange(sampleEntry()));
});

Then('a PlanError should be raised about no active changeset', function (this: EngineWorld) {
  assert.ok(this.error instanceof PlanError, `expected a PlanError, got ${String(this.error)}`);
  assert.match(this.error.message, /no active changeset/);
});

When('I record three ChangeEntry instances', async function (this: EngineWorld) {
  for (let i = 0; i < 3; i += 1) {
    const entry = sampleEntry();
    await this.context!.recordChange(entry);
    this.recorded.push(entry);
  }
});

Then('the changeset should contain exactly three entries', async function (this: EngineWorld) {
  assert.equal((await this.context!.getChangeset(this.changesetId!))?.entries.length, 3);
});

When('I call get_changeset with the active changeset_id', async function (this: EngineWorld) {
  this.result = await this.context!.getChangeset(this.changesetId!);
});

When('I call get_changeset with a nonexistent ID', async function (this: EngineWorld) {
  this.result = await this.context!.getChangeset(newId());
});

Then('the returned changeset should not be None', function (this: EngineWorld) {
  assert.notEqual(this.result, undefined);
});

Then('the changeset plan_id should match', function (this: EngineWorld) {
  assert.equal((this.result as { planId: string }).planId, this.planId);
});

Then('the returned changeset should be None', function (this: EngineWorld) {
  assert.equal(this.result, undefined);
});

// ---- summarize -------------------------------------------------------------

When('I call summarize on the context', async function (this: EngineWorld) {
  this.result = await this.context!.summarize();
});

Then('the summary should contain plan_id', function (this: EngineWorld) {
  assert.equal((this.result as Record<string, unknown>).planId, this.planId);
});

Then('the summary should contain resource_binding_count of {int}', function (this: EngineWorld, count: number) {
  assert.equal((this.result as Record<string, unknown>).resourceBindingCount, count);
});

Then('the summary resource_binding_count should be {int}', function (this: EngineWorld, count: number) {
  assert.equal((this.result as Record<string, unknown>).resourceBindingCount, count);
});

Then('the summary should contain decision_root_id', function (this: EngineWorld) {
  const summary = this.result as Record<string, unknown>;
  assert.ok('decisionRootId' in summary);
  assert.equal(summary.decisionRootId, this.context!.decisionRootId);
});

// ---- RuntimeExecuteResult ---------------------------------------------------

const validResult = () => ({
  changesetId: newId(),
  toolCallCount: 2,
  sandboxRefs: ['/tmp/sandbox'],
  decisionIdsProcessed: [newId()],
  executionDurationMs: 1.5,
});

When('I create a RuntimeExecuteResult with valid fields', function (this: EngineWorld) {
  this.options = validResult();
  this.result = createRuntimeExecuteResult(this.options);
});

Then('the runtime execute result should have a correct changeset_id', function (this: EngineWorld) {
  assert.equal((this.result as { changesetId: string }).changesetId, this.options.changesetId);
});

Then('the runtime execute result tool_call_count should be non-negative', function (this: EngineWorld) {
  assert.ok((this.result as { toolCallCount: number }).toolCallCount >= 0);
});

When('I attempt to create a RuntimeExecuteResult with negative tool_call_count', async function (this: EngineWorld) {
  await attempt(this, () => createRuntimeExecuteResult({ ...validResult(), toolCallCount: -1 }));
});

When('I attempt to create a RuntimeExecuteResult with empty changeset_id', async function (this: EngineWorld) {
  await attempt(this, () => createRuntimeExecuteResult({ ...validResult(), changesetId: '' }));
});

Then('the runtime result should fail validation', function (this: EngineWorld) {
  assert.ok(this.error instanceof ValidationError, `expected a ValidationError, got ${String(this.error)}`);
});

// ---- RuntimeExecuteActor ---------------------------------------------------

Given('a ToolRunner with an empty registry', function (this: EngineWorld) {
  this.toolRunner = inMemoryToolRunner(new ToolRegistry());
  assert.equal(this.toolRunner.discover().length, 0);
});

Given('a RuntimeExecuteActor', function (this: EngineWorld) {
  this.actor = new RuntimeExecuteActor({ toolRunner: this.toolRunner, executionContext: this.context, events: testEvents() });
});

Given('a stream callback collector', function (this: EngineWorld) {
  this.events = [];
});

When('I execute with a list of two stub decisions', async function (this: EngineWorld) {
  this.decisions = [stubDecision(this.planId, 1), stubDecision(this.planId, 2)];
  this.result = await this.actor!.execute(this.decisions);
});

When('I execute with one stub decision and the stream callback', async function (this: EngineWorld) {
  this.decisions = [stubDecision(this.planId, 1)];
  this.result = await this.actor!.execute(this.decisions, this.collect);
});

When('I execute with one stub decision', async function (this: EngineWorld) {
  this.decisions = [stubDecision(this.planId, 1)];
  this.result = await this.actor!.execute(this.decisions);
});

Then('the runtime execute result should be a RuntimeExecuteResult', function (this: EngineWorld) {
  assert.doesNotThrow(() => createRuntimeExecuteResult(this.result));
});

Then('the runtime execute result changeset_id should be a valid ULID', function (this: EngineWorld) {
  assert.ok(isUlid((this.result as { changesetId: string }).changesetId));
});

Then('the runtime execute result decision_ids_processed should have two entries', function (this: EngineWorld) {
  assert.deepEqual((this.result as { decisionIdsProcessed: string[] }).decisionIdsProcessed, this.decisions.map((d) => d.id));
});

Then('the callback should have received {word} event', function (this: EngineWorld, type: string) {
  const event = this.events.find((e) => e.type === type);
  assert.ok(event, `no ${type} event among ${this.events.map((e) => e.type).join(', ')}`);
  assert.equal(event.planId, this.planId);
});

Then('the runtime execute result sandbox_refs should contain {string}', function (this: EngineWorld, ref: string) {
  assert.ok((this.result as { sandboxRefs: string[] }).sandboxRefs.includes(ref));
});

When('I attempt to create a RuntimeExecuteActor with None tool_runner', async function (this: EngineWorld) {
  await attempt(this, () => new RuntimeExecuteActor({ toolRunner: null, executionContext: this.context, events: testEvents() }));
});

When('I attempt to create a RuntimeExecuteActor with None execution_context', async function (this: EngineWorld) {
  await attempt(this, () => new RuntimeExecuteActor({ toolRunner: this.toolRunner, executionContext: null, events: testEvents() }));
});

// ---- PlanExecutor ------------------------------------------------------------

Given('a mock lifecycle service', function (this: EngineWorld) {
  // The seed's mock is our real service over the in-memory repository.
  this.lifecycle = inMemoryLifecycle();
});

When('I create a PlanExecutor with a mock tool_calling_runtime', function (this: EngineWorld) {
  this.executor = new PlanExecutor({ lifecycleService: this.lifecycle, toolRunner: this.toolRunner, executionContext: this.context });
});

When('I create a PlanExecutor without execution_context', function (this: EngineWorld) {
  this.executor = new PlanExecutor({ lifecycleService: this.lifecycle });
});

Given('a PlanExecutor without execution_context', function (this: EngineWorld) {
  this.executor = new PlanExecutor({ lifecycleService: this.lifecycle });
});

When('I create a PlanExecutor with the execution_context', function (this: EngineWorld) {
  this.executor = new PlanExecutor({ lifecycleService: this.lifecycle, executionContext: this.context });
});

Then('has_runtime should be True', function (this: EngineWorld) {
  assert.equal(this.executor!.hasRuntime, true);
});

Then('has_runtime should be False', function (this: EngineWorld) {
  assert.equal(this.executor!.hasRuntime, false);
});

Then('changeset_store should be the same object as the context store', function (this: EngineWorld) {
  assert.equal(this.executor!.changesetStore, this.store);
  assert.equal(this.executor!.changesetStore, this.context!.changesetStore);
});

Then('changeset_store should be None', function (this: EngineWorld) {
  assert.equal(this.executor!.changesetStore, null);
});

Then('execution_context property should return the context', function (this: EngineWorld) {
  assert.equal(this.executor!.executionContext, this.context);
});

When('I attempt to create a PlanExecutor with None lifecycle_service', async function (this: EngineWorld) {
  await attempt(this, () => new PlanExecutor({ lifecycleService: null }));
});

When('I attempt to run execute with an empty plan_id', async function (this: EngineWorld) {
  try {
    await this.executor!.runExecute('');
    this.error = undefined;
  } catch (error) {
    this.error = error;
  }
});
