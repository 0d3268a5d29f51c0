import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { After, Given, Then, When } from '@cucumber/cucumber';
import type { Plan } from '../../shared/domain';
import { type App, openApp } from '../../main/app/open-app';
import { nextCommand } from '../../main/cli/next-steps';
import { type ChatRequest, type Responder, ScriptedModelServer, transcript } from '../../tests/support/scripted-model-server';
import { fileWritingAgent, isStrategize, stepOf, toolResults } from '../../tests/support/scripted-agent';
import type { EngineWorld } from '../support/world';

/** What one agent scenario holds: a model server, a project, an app over a fresh data directory. */
interface AgentScenario {
  server: ScriptedModelServer;
  base: string;
  project: string;
  env: Record<string, string>;
  app?: App;
  planId?: string;
  plan?: Plan;
  delays: number[];
  responder?: Responder;
  createError?: unknown;
}

type World = EngineWorld & { agent: AgentScenario };

async function app(world: World): Promise<App> {
  world.agent.app ??= await openApp({
    dataDir: join(world.agent.base, 'home'),
    env: world.agent.env,
    recovery: { baseDelayMs: 1 },
    // Retries wait on a fake clock: the delay asked for is recorded, not slept.
    sleep: async (ms) => {
      world.agent.delays.push(ms);
    },
  });
  return world.agent.app;
}

/** full-auto, with trusted's retry limit, unless a scenario says otherwise: the proposed tree does not wait. */
async function createAgentPlan(world: World, definition: string, agent = 'true', profile = '{ base: full-auto, autoRetryTransient: 3 }'): Promise<void> {
  const yaml = `name: agent-plan\ndescription: An agent plan\nproject: ${world.agent.project}\nautomationProfile: ${profile}\nagent: ${agent}\ndefinitionOfDone: ${JSON.stringify(definition)}\n`;
  world.agent.planId = (await (await app(world)).service.createFromContent({ content: yaml }, world.agent.base)).id;
}

const requests = (world: World) => world.agent.server.requests;
const plan = async (world: World) => (await app(world)).service.get(world.agent.planId ?? '');

After({ tags: '@agent' }, async function (this: World) {
  this.agent?.app?.close();
  await this.agent?.server.close();
});

Given('a scripted model server on 127.0.0.1', async function (this: World) {
  const server = await new ScriptedModelServer().start();
  const base = mkdtempSync(join(tmpdir(), 'agents-feature-'));
  this.agent = {
    server,
    base,
    project: join(base, 'project'),
    env: { AGENTS_MODEL: 'openai-compatible:scripted-model', AGENTS_BASE_URL: server.baseUrl, AGENTS_MODEL_TIMEOUT_MS: '1500' },
    delays: [],
  };
});

Given('a project with a README', function (this: World) {
  mkdirSync(this.agent.project, { recursive: true });
  writeFileSync(join(this.agent.project, 'README.md'), '# Demo\n');
});

Given('an agent plan whose definition of done is {string}', async function (this: World, definition: string) {
  await createAgentPlan(this, definition);
});

Given('an agent plan with at most {int} turns per step whose definition of done is {string}', async function (this: World, turns: number, definition: string) {
  await createAgentPlan(this, definition, `{ maxTurnsPerStep: ${turns} }`);
});

Given('an agent plan under the {string} profile with at most {int} turns per step', async function (this: World, profile: string, turns: number) {
  await createAgentPlan(this, 'a greeting file exists', `{ maxTurnsPerStep: ${turns} }`, profile);
});

Given('a price of {int} per million output tokens', async function (this: World, perMTok: number) {
  (await app(this)).service.updateSettings({ price: { inputPerMTok: 0, outputPerMTok: perMTok } });
});

Given('an agent plan under the {string} profile that may cost ${float}', async function (this: World, profile: string, usd: number) {
  await createAgentPlan(this, 'a greeting file exists', `{ maxCostUsd: ${usd} }`, profile);
});

Then('the pending approval asks for ${float} more for the plan, which has cost ${float}', async function (this: World, more: number, cost: number) {
  const pending = (await (await app(this)).service.approvals(this.agent.planId ?? '')).pending;
  assert.equal(pending?.kind, 'budget');
  assert.deepEqual(pending?.args, { limit: 'costUsd', used: cost, max: more, more });
  assert.equal(pending?.rationale, `The plan has cost $${cost.toFixed(2)} of its $${more.toFixed(2)}; allow $${more.toFixed(2)} more?`);
});

Given('an agent plan under the {string} profile whose definition of done is {string}', async function (this: World, profile: string, definition: string) {
  await createAgentPlan(this, definition, 'true', profile);
});

Given('a model that writes {string} with {string}, or {string} once told to', function (this: World, path: string, content: string, other: string) {
  const first = fileWritingAgent({ [path]: content });
  const second = fileWritingAgent({ [other]: '# Demo\nhello\n' });
  this.agent.server.respondWith((request, index) => (transcript(request).includes('rejected your previous proposal') ? second : first)(request, index));
});

Given('a model that runs {string} and then finishes', function (this: World, command: string) {
  const good = fileWritingAgent({ 'out.txt': 'hello\n' });
  this.agent.server.respondWith((request, index) => {
    if (isStrategize(request)) return good(request, index);
    if (toolResults(request) === 0) return { text: 'Running the command.', toolCalls: [{ name: 'shell_run', args: { command } }] };
    return { toolCalls: [{ name: 'finish_step', args: { summary: `Ran ${command}` } }] };
  });
});

Given('an agent plan with at most {int} output tokens per step whose definition of done is {string}', async function (this: World, tokens: number, definition: string) {
  await createAgentPlan(this, definition, `{ maxOutputTokens: ${tokens} }`);
});

Given('the project protects {string}', function (this: World, glob: string) {
  mkdirSync(join(this.agent.project, '.agents'), { recursive: true });
  writeFileSync(join(this.agent.project, '.agents', 'invariants.yaml'), `protect: [${JSON.stringify(glob)}]\n`);
});

Given('a model that calls {word} with {}', function (this: World, tool: string, args: string) {
  const good = fileWritingAgent({ 'NOTES.md': 'hello' });
  this.agent.server.respondWith((request, index) => (isStrategize(request) ? good(request, index) : { toolCalls: [{ name: tool, args: JSON.parse(args) }] }));
});

Given('a model that writes {string} with {string} and {string} with {string}', function (this: World, a: string, ac: string, b: string, bc: string) {
  this.agent.server.respondWith(fileWritingAgent({ [a]: ac, [b]: bc }));
});

Given('a model that fails {string}, and proposes {string} when asked for new steps', function (this: World, _step: string, path: string) {
  const first = listingModel('NOTES.md');
  const second = fileWritingAgent({ [path]: 'hello' });
  this.agent.server.respondWith((request, index) => {
    const replanned = isStrategize(request) ? transcript(request).includes('asked for new steps') : stepOf(request) === `Write ${path}`;
    return (replanned ? second : first)(request, index);
  });
});

Given('a model that writes {string} with {string}', function (this: World, path: string, content: string) {
  this.agent.server.respondWith(fileWritingAgent({ [path]: content }));
});

Given('a model that first proposes {int} invalid trees, then writes {string} with {string}', function (this: World, count: number, path: string, content: string) {
  const good = fileWritingAgent({ [path]: content });
  let invalid = 0;
  this.agent.server.respondWith((request, index) => {
    if (isStrategize(request) && invalid < count) {
      invalid += 1;
      // A step without its acceptance check, then no call at all: both are invalid output.
      return invalid % 2 === 1
        ? { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Write it', rationale: 'asked for' }] } }] }
        : { text: 'I think we should write a file.' };
    }
    return good(request, index);
  });
});

Given('a model that only proposes invalid trees', function (this: World) {
  this.agent.server.respondWith(() => ({ toolCalls: [{ name: 'propose_plan', args: { steps: [] } }] }));
});

function listingModel(path: string, unlessNote?: string): Responder {
  const good = fileWritingAgent({ [path]: 'hello' });
  return (request, index) => {
    if (isStrategize(request) || (unlessNote && transcript(request).includes(unlessNote))) return good(request, index);
    return { text: 'Let me look around some more.', toolCalls: [{ name: 'file_list', args: {} }], usage: { input: 50, output: 40 } };
  };
}

Given('a model that proposes {string} and then only lists files', function (this: World, step: string) {
  this.agent.server.respondWith(listingModel(step.replace('Write ', '')));
});

Given('a model that proposes {string} and then only lists files, unless told a note', function (this: World, step: string) {
  this.agent.server.respondWith(listingModel(step.replace('Write ', ''), 'operator\'s note'));
});

Given('a model that proposes {string}, lists files {int} times, then writes it with {string}', function (this: World, step: string, listings: number, content: string) {
  const path = step.replace('Write ', '');
  const good = fileWritingAgent({ [path]: content });
  this.agent.server.respondWith((request, index) => {
    if (isStrategize(request)) return good(request, index);
    const results = toolResults(request);
    if (results < listings) return { toolCalls: [{ name: 'file_list', args: {} }] };
    if (results === listings) return { toolCalls: [{ name: 'file_write', args: { path, content } }] };
    return { toolCalls: [{ name: 'finish_step', args: { summary: `Wrote ${path}.` } }] };
  });
});

Then('the pending approval asks for {int} more turns for the step {string}', async function (this: World, more: number, step: string) {
  const pending = (await (await app(this)).service.approvals(this.agent.planId ?? '')).pending;
  assert.equal(pending?.kind, 'budget');
  assert.deepEqual(pending?.args, { limit: 'turns', used: 3, max: 3, more });
  assert.equal(pending?.description, step);
  assert.ok(pending?.rationale.includes(`used its 3 turns; allow ${more} more?`), pending?.rationale);
});

Then("the step's conversation went on: its last request carries all {int} tool results", function (this: World, results: number) {
  const steps = requests(this).filter((r) => !isStrategize(r));
  assert.equal(toolResults(steps.at(-1)!), results);
  // One conversation: every request of the step starts with the same prompt, and none started afresh after the pause.
  assert.ok(steps.every((r) => toolResults(r) > 0 || r === steps[0]), steps.map(toolResults).join(','));
});

Given('a model that tries to write {string}', function (this: World, outside: string) {
  const good = fileWritingAgent({ 'NOTES.md': 'hello' });
  this.agent.server.respondWith((request, index) =>
    isStrategize(request) ? good(request, index) : { toolCalls: [{ name: 'file_write', args: { path: outside, content: 'escaped' } }] },
  );
});

Given('a model that first reads the missing {string}, then writes {string} with {string}', function (this: World, missing: string, path: string, content: string) {
  const good = fileWritingAgent({ [path]: content });
  this.agent.server.respondWith((request, index) => {
    if (isStrategize(request)) return good(request, index);
    if (toolResults(request) === 0) return { toolCalls: [{ name: 'file_read', args: { path: missing } }] };
    // Without the failed read, the good model sees its usual conversation.
    const firstTool = request.messages.findIndex((m) => m.role === 'tool');
    return good({ ...request, messages: request.messages.filter((_, i) => i !== firstTool) }, index);
  });
});

Given('the model server first answers {int} with Retry-After {int}', function (this: World, status: number, seconds: number) {
  this.agent.server.enqueue({ status, headers: { 'retry-after': String(seconds) } });
});

Given('the model server first answers {int}', function (this: World, status: number) {
  this.agent.server.enqueue({ status, errorBody: { error: { message: `scripted ${status}` } } });
});

Given('the model server first answers with a stream that stalls', function (this: World) {
  this.agent.server.enqueue({ text: 'thinking very slowly', chunkSize: 2, chunkDelayMs: 2_000 });
});

Given('the model server first answers unknown model', function (this: World) {
  this.agent.server.knownModels = ['another-model'];
});

Given('the model server is not listening', async function (this: World) {
  await this.agent.server.close();
});

Given('no model is configured', function (this: World) {
  this.agent.env = {};
});

When('I create an agent plan', async function (this: World) {
  try {
    await createAgentPlan(this, 'NOTES.md says hello');
  } catch (error) {
    this.agent.createError = error;
  }
});

When('the plan runs', async function (this: World) {
  this.agent.plan = await (await app(this)).service.run(this.agent.planId ?? '');
});

When('I ask the agent to correct the step with the note {string}', async function (this: World, note: string) {
  this.agent.plan = await (await app(this)).service.correct(this.agent.planId ?? '', { by: 'tester', reason: note });
});

When('I replan the plan by the model', async function (this: World) {
  this.agent.plan = await (await app(this)).service.replan(this.agent.planId ?? '', { by: 'tester' });
});

When('I approve the pending approval', async function (this: World) {
  this.agent.plan = await (await app(this)).service.approve(this.agent.planId ?? '', { by: 'tester' });
});

When('I reject the pending approval with the reason {string}', async function (this: World, reason: string) {
  this.agent.plan = await (await app(this)).service.reject(this.agent.planId ?? '', { by: 'tester', reason });
});

Then('the plan is paused, waiting for approval', async function (this: World) {
  const p = await plan(this);
  assert.equal(`${p.processingState} ${p.waitingFor}`, 'paused approval', `${p.phase} ${p.processingState}: ${p.errorMessage}`);
});

Then('the pending approval is of kind plan and lists the step {string}', async function (this: World, step: string) {
  const pending = (await (await app(this)).service.approvals(this.agent.planId ?? '')).pending;
  assert.equal(pending?.kind, 'plan');
  assert.ok(pending?.rationale.includes(step), pending?.rationale);
  assert.equal(pending?.decisionId, (await plan(this)).decisionRootId);
});

Then('the pending approval is for shell.run {string}', async function (this: World, command: string) {
  const pending = (await (await app(this)).service.approvals(this.agent.planId ?? '')).pending;
  assert.equal(pending?.kind, 'tool');
  assert.equal(pending?.tool, 'shell.run');
  assert.equal(pending?.args.command, command);
});

Then('nothing was executed yet', async function (this: World) {
  assert.deepEqual((await (await app(this)).service.invocations(this.agent.planId ?? '')).filter((i) => i.decisionId !== null), []);
  assert.ok(requests(this).every(isStrategize));
});

Then('the tree records the approval of the plan', async function (this: World) {
  const decisions = await (await app(this)).service.decisions(this.agent.planId ?? '');
  const rootId = (await plan(this)).decisionRootId;
  assert.ok(decisions.some((d) => d.type === 'approval' && d.parentId === rootId && /Approved the plan/.test(d.description)));
});

Then("the model's last strategize prompt carries the reason {string}", function (this: World, reason: string) {
  const last = requests(this).filter(isStrategize).at(-1);
  assert.ok(last && transcript(last).includes(`Their reason: ${reason}`));
});

Then('the step {string} is skipped', async function (this: World, description: string) {
  const step = (await (await app(this)).service.decisions(this.agent.planId ?? '')).find((d) => d.description === description);
  assert.equal(step?.status, 'skipped');
});

Then("the model was given the step's prompt once", function (this: World) {
  const prompts = requests(this).filter((r) => !isStrategize(r) && toolResults(r) === 0);
  assert.equal(prompts.length, 1);
});

Then('the decision tree has the step {string} with its rationale and acceptance check', async function (this: World, description: string) {
  const steps = (await (await app(this)).service.decisions(this.agent.planId ?? '')).filter((d) => d.type === 'strategy_choice');
  assert.deepEqual(steps.map((s) => s.description), [description]);
  assert.match(steps[0].rationale, /definition of done asks for/);
  assert.match(steps[0].rationale, /Acceptance: /);
  assert.deepEqual(steps[0].toolCalls.map((c) => c.tool), ['file.write']);
});

Then('during strategize the model called only read-only tools', async function (this: World) {
  const invocations = await (await app(this)).service.invocations(this.agent.planId ?? '');
  const strategize = invocations.filter((i) => i.decisionId === null);
  assert.ok(strategize.length > 0, 'strategize read the project');
  assert.deepEqual([...new Set(strategize.map((i) => i.tool))], ['file.list']);
});

Then('the model was offered the tools file_read, file_list, file_search and propose_plan to strategize', function (this: World) {
  const first = requests(this)[0];
  assert.deepEqual(first.tools?.map((t) => t.function.name).sort(), ['file_list', 'file_read', 'file_search', 'propose_plan']);
});

Then('the model was offered the 8 sandbox tools and finish_step to execute', function (this: World) {
  const execute = requests(this).find((r) => !isStrategize(r));
  assert.deepEqual(execute?.tools?.map((t) => t.function.name).sort(), [
    'file_delete', 'file_edit', 'file_list', 'file_read', 'file_rename', 'file_search', 'file_write', 'finish_step', 'shell_run',
  ]);
});

Then('the plan waits in phase apply', async function (this: World) {
  const p = await plan(this);
  assert.equal(`${p.phase} ${p.processingState}`, 'apply queued', `plan is ${p.phase} ${p.processingState}: ${p.errorMessage}`);
});

Then('the changeset creates {string} with {string}', async function (this: World, path: string, content: string) {
  const entries = await (await app(this)).service.changeEntries(this.agent.planId ?? '');
  const entry = entries.find((e) => e.path === path);
  assert.equal(entry?.operation, 'create');
  // A "\n" in the feature text is a newline.
  assert.equal(entry?.afterText, content.replace(/\\n/g, '\n'));
});

Then('the tool invocations of the step were file.write then file.read', async function (this: World) {
  const invocations = (await (await app(this)).service.invocations(this.agent.planId ?? '')).filter((i) => i.decisionId !== null);
  assert.deepEqual(invocations.map((i) => i.tool), ['file.write', 'file.read']);
});

Then('the events include model_output and model_usage', async function (this: World) {
  const events = (await (await app(this)).service.eventsAfter(this.agent.planId ?? '')).events;
  const output = events.filter((e) => e.type === 'model_output');
  assert.ok(output.some((e) => e.data.phase === 'strategize') && output.some((e) => e.data.phase === 'execute'));
  assert.ok(output.map((e) => String(e.data.text)).join('').includes('I will write NOTES.md now.'));
  assert.ok(events.some((e) => e.type === 'model_usage' && typeof e.data.planOutputTokens === 'number'));
});

Then("the plan's usage counts the tokens of strategize and of the step", async function (this: World) {
  const usage = (await plan(this)).usage;
  assert.ok(usage);
  // The scripted model reports 120 + 200 in for strategize, 150 + 180 + 200 for the step.
  assert.deepEqual(usage.steps.map((s) => [s.phase, s.inputTokens, s.turns]), [
    ['strategize', 320, 2],
    ['execute', 530, 3],
  ]);
  assert.equal(usage.inputTokens, 850);
  assert.equal(usage.outputTokens, 80 + 65);
});

Then("the step's summary is {string}", async function (this: World, summary: string) {
  assert.equal((await plan(this)).usage?.steps.find((s) => s.phase === 'execute')?.summary, summary);
});

Then('the model was told why its proposal was invalid {int} times', function (this: World, count: number) {
  const told = requests(this).filter((r) => isStrategize(r) && /Invalid input|not valid|did not call|without calling propose_plan/i.test(String(JSON.stringify(r.messages.at(-1)))));
  assert.equal(told.length, count);
});

Then('the plan is errored with category {string}', async function (this: World, category: string) {
  const p = await plan(this);
  assert.equal(p.processingState, 'errored');
  assert.equal(p.errorDetails.category, category, `error: ${p.errorMessage}`);
});

Then('the model was asked {int} times', function (this: World, count: number) {
  assert.equal(requests(this).length, count);
});

Then('the next command is {string}', async function (this: World, command: string) {
  const shown = await plan(this);
  // The engine stores the next step as an action; the CLI shows it as this command.
  assert.match(String(nextCommand(shown.id, shown.errorDetails.next)), new RegExp(`^${command}`));
});

Then("the model's last prompt for the step names the failure and the note {string}", function (this: World, note: string) {
  const last = requests(this).at(-1);
  assert.ok(last);
  const text = transcript(last);
  assert.match(text, /An earlier attempt at this step failed: .*turns/);
  assert.ok(text.includes(`The operator's note: ${note}`));
});

Then('the step has an error_recovery decision with action correct', async function (this: World) {
  const decisions = await (await app(this)).service.decisions(this.agent.planId ?? '');
  const step = decisions.find((d) => d.type === 'strategy_choice');
  const recovery = decisions.filter((d) => d.type === 'error_recovery' && d.parentId === step?.id);
  assert.ok(recovery.some((d) => d.rationale.startsWith(`correct by tester on ${hostname()}: `)), JSON.stringify(recovery.map((d) => d.rationale)));
  assert.equal(step?.status, 'done');
});

Then('no file {string} exists beside the sandbox', async function (this: World, name: string) {
  const sandbox = (await plan(this)).sandboxRefs[0];
  assert.equal(existsSync(join(dirname(sandbox), name)), false);
});

Then("the model's prompt for {string} says {string}", function (this: World, step: string, text: string) {
  const prompt = requests(this).find((r) => !isStrategize(r) && transcript(r).includes(`): ${step}`));
  assert.ok(prompt, `no request for ${step}`);
  assert.ok(transcript(prompt).includes(text), transcript(prompt));
});

Then('the model was told that {string} does not exist', function (this: World, path: string) {
  const told = requests(this).some((r) => r.messages.some((m) => m.role === 'tool' && /Error: file\.read: .*does not exist/.test(JSON.stringify(m.content)) && JSON.stringify(m.content).includes(path)));
  assert.ok(told, transcript(requests(this).at(-1) as ChatRequest));
});

Then("the plan's error names {string}", async function (this: World, text: string) {
  assert.ok((await plan(this)).errorMessage?.includes(text), (await plan(this)).errorMessage ?? '');
});

Then('one automatic retry was scheduled after at least {int} ms', function (this: World, delay: number) {
  assert.equal(this.agent.delays.length, 1, `delays: ${JSON.stringify(this.agent.delays)}`);
  assert.ok(this.agent.delays[0] >= delay, `waited ${this.agent.delays[0]} ms`);
});

Then('{int} automatic retries were scheduled', function (this: World, count: number) {
  assert.equal(this.agent.delays.length, count);
});

Then('no automatic retry was scheduled', function (this: World) {
  assert.deepEqual(this.agent.delays, []);
});

Then("the plan's hint mentions {string}", async function (this: World, text: string) {
  assert.ok(String((await plan(this)).errorDetails.hint).includes(text), String((await plan(this)).errorDetails.hint));
});

Then('it is refused with a message naming {string}', function (this: World, setting: string) {
  const error = this.agent.createError;
  assert.ok(error instanceof Error, 'create was refused');
  assert.ok(error.message.includes(setting), error.message);
  assert.equal(error.message.split('\n').length, 1);
  assert.equal(readFileSync(join(this.agent.project, 'README.md'), 'utf8'), '# Demo\n');
});
