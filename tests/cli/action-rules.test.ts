// One table over every operator action and every state a test reaches: the rule the action table
// declares (shared/actions.ts) and what the engine does agree. An action the rule refuses is
// refused by the CLI (exit 2 and the rule's reason as its one line) and by the router (the rule's
// code and reason); one the rule allows is not refused for its state. The states are made once on
// real SQLite in one data directory, which the CLI's processes and the in-process router share.
// plans.get and `plan show --json` list the same answers (README, "agents plan show --json").
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionId } from '../../shared/action-ids';
import { ACTION_IDS, actionList, allowed } from '../../shared/actions';
import type { PlanFacts } from '../../shared/action-rules';
import type { Channel } from '../../shared/contract';
import type { Plan } from '../../shared/domain';
import { type App, openApp } from '../../main/app/open-app';
import { planFacts } from '../../main/engine/gates/action-guard';
import { createRouter, type Router } from '../../main/host/router';
import { fileWritingAgent, isStrategize } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents } from './cli-harness';

const LONG = { timeout: 600_000 };

/** How the CLI takes each action it has: the words after `agents plan`, with what the command requires. */
const CLI: Partial<Record<ActionId, (id: string, files: { step: string; plan: string }) => string[]>> = {
  run: (id) => ['run', id],
  retry: (id) => ['retry', id],
  reset: (id) => ['reset', id],
  apply: (id) => ['apply', id],
  discard: (id) => ['discard', id],
  approve: (id) => ['approve', id],
  reject: (id) => ['reject', id, '--reason', 'not this one'],
  skip: (id) => ['skip', id],
  edit_step: (id, f) => ['edit-step', id, '--step', '1', '--file', f.step],
  set_profile: (id) => ['profile', id, 'trusted'],
  replan: (id, f) => ['replan', id, '--file', f.plan],
  correct: (id) => ['correct', id],
  verify: (id) => ['verify', id],
  show_errors: (id) => ['errors', id],
  rewind: (id) => ['rewind', id, '--to-step', '1', '--yes'],
  fork: (id) => ['fork', id, '--at-step', '1'],
  compare: (id) => ['compare', id, id],
};

/** How the console takes each action it has: the contract's channel and request. */
const ROUTER: Partial<Record<ActionId, (planId: string) => [Channel, Record<string, unknown>]>> = {
  run: (planId) => ['plans.run', { planId }],
  step: (planId) => ['plans.step', { planId }],
  continue: (planId) => ['plans.continue', { planId }],
  pause: (planId) => ['plans.pause', { planId }],
  retry: (planId) => ['plans.retry', { planId }],
  reset: (planId) => ['plans.reset', { planId }],
  // Confirmed: a plan whose checks failed is then allowed, as its listed action says (its refusal unconfirmed is checked below).
  apply: (planId) => ['plans.apply', { planId, acceptFailedChecks: true }],
  discard: (planId) => ['plans.discard', { planId }],
  approve: (planId) => ['plans.approve', { planId }],
  reject: (planId) => ['plans.reject', { planId, reason: 'not this one' }],
  skip: (planId) => ['plans.skip', { planId }],
  set_profile: (planId) => ['plans.setProfile', { planId, profile: 'trusted' }],
  correct: (planId) => ['plans.correct', { planId }],
  verify: (planId) => ['plans.verify', { planId }],
  show_errors: (planId) => ['plans.errors', { planId }],
  rewind: (planId) => ['plans.rewind', { planId, toStep: 1 }],
  fork: (planId) => ['plans.fork', { planId, atStep: 1 }],
  compare: (planId) => ['plans.compare', { planId, with: planId }],
};

/** The codes of a refusal by state; anything else (a missing argument, say) is not the rule's. */
const REFUSALS = new Set(['wrong_state', 'wrong_phase', 'not_running', 'no_project', 'not_agent', 'invalid_transition']);

/** A model server that holds every request until released, then refuses it (401): a run stays in strategize until then. */
class HoldingServer {
  private readonly held: ServerResponse[] = [];
  private released = false;
  private readonly server = createServer((req, res) => {
    req.resume();
    if (this.released) this.refuse(res);
    else this.held.push(res);
  });
  baseUrl = '';
  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }
  get waiting(): number {
    return this.held.length;
  }
  release(): void {
    this.released = true;
    for (const res of this.held.splice(0)) this.refuse(res);
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
  private refuse(res: ServerResponse): void {
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'held, then refused', type: 'auth_error' } }));
  }
}

const scripted = new ScriptedModelServer();
const holding = new HoldingServer();
let base: string;
let home: string;
let project: string;
let files: { step: string; plan: string };
let app: App;
/** Makes agent plans whose model is the holding server (the model is recorded on the plan when it is made). */
let heldApp: App;
let router: Router;

const until = async (check: () => boolean | Promise<boolean>) => {
  for (let i = 0; i < 1000 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await check()).toBe(true);
};

let made = 0;

/** A plan file; each plan writes text of its own, so every plan changes the project whatever was applied before. */
function planFile(name: string, options: { failAt?: number; approve?: string[]; agent?: boolean; profile?: string; failingCheck?: boolean } = {}): string {
  made += 1;
  const steps = options.agent
    ? ['definitionOfDone: |', '  - NOTES.md exists']
    : [
        'definitionOfDone:',
        ...[1, 2].map((i) =>
          i === options.failAt
            ? `  - step: Step ${i} edits a heading that is not there\n    tools:\n      - tool: file.edit\n        args: { path: README.md, find: "## Missing", replace: "x" }`
            : `  - step: Step ${i}\n    tools:\n      - tool: file.write\n        args: { path: "out/${i}.txt", content: "${made}-${i}" }`,
        ),
      ];
  const profile = options.approve ? `{ base: trusted, approve: [${options.approve.join(', ')}] }` : (options.profile ?? 'trusted');
  const verify = options.failingCheck ? ['verify: [{ name: tests pass, run: "exit 1" }]'] : [];
  return [`name: ${name}`, `project: ${JSON.stringify(project)}`, `automationProfile: ${profile}`, ...(options.agent ? ['agent: true'] : []), ...verify, ...steps, ''].join('\n');
}

const create = async (via: App, name: string, options: Parameters<typeof planFile>[1] = {}): Promise<Plan> => await via.service.createFromContent({ content: planFile(name, options) }, base);

const fail = async (): Promise<Plan> => {
  const plan = await create(app, 'failed', { failAt: 2 });
  return app.service.run(plan.id);
};
const readyToApply = async (): Promise<Plan> => app.service.run((await create(app, 'ready-to-apply')).id);

/** Every state a test reaches, made fresh on each call: an action that changes the state gets one of its own. */
const STATES: Record<string, () => Promise<Plan>> = {
  'ready to run (scripted, before strategize)': async () => create(app, 'ready'),
  'running (agent, strategizing)': async () => {
    const plan = await create(heldApp, 'running', { agent: true });
    const before = holding.waiting;
    void app.service.run(plan.id).catch(() => undefined);
    await until(() => holding.waiting > before);
    return app.service.get(plan.id);
  },
  'waiting for approval': async () => app.service.run((await create(app, 'waiting', { approve: ['file.write'] })).id),
  'failed in execute (scripted)': fail,
  'failed, its sandbox folder gone': async () => {
    const plan = await fail();
    rmSync(plan.sandboxRefs[0], { recursive: true, force: true });
    return plan;
  },
  'failed in execute (agent)': async () => {
    const plan = await create(app, 'agent-failed', { agent: true, profile: 'full-auto' });
    return app.service.run(plan.id);
  },
  interrupted: async () => {
    const plan = await create(app, 'interrupted');
    await app.service.lifecycle.beginPhase(plan.id, 'strategize');
    return app.service.interrupt(plan.id);
  },
  'ready to apply': readyToApply,
  'checks failed': async () => app.service.run((await create(app, 'checks-failed', { failingCheck: true })).id),
  'partly applied': async () => {
    const plan = await readyToApply();
    await app.service.apply(plan.id, { paths: ['out/1.txt'] });
    return app.service.get(plan.id);
  },
  applied: async () => {
    const plan = await readyToApply();
    await app.service.apply(plan.id);
    return app.service.get(plan.id);
  },
  discarded: async () => app.service.discard((await readyToApply()).id),
};

/** What each state's plan is, as the rules read it; `here` is the router's process, which runs the running plan. */
const FACTS: Record<keyof typeof STATES, Omit<PlanFacts, 'id' | 'projectPath' | 'errorDetails' | 'missingSandbox'> & { sandboxGone?: true }> = {
  'ready to run (scripted, before strategize)': { phase: 'strategize', processingState: 'queued', waitingFor: null, agent: false, running: false, runHere: false, pendingApproval: false, failedStep: false, steps: 0, hasTree: false, partlyApplied: false, checkpoints: 0 },
  'running (agent, strategizing)': { phase: 'strategize', processingState: 'processing', waitingFor: null, agent: true, running: true, runHere: true, pendingApproval: false, failedStep: false, steps: 0, hasTree: false, partlyApplied: false, checkpoints: 0 },
  'waiting for approval': { phase: 'execute', processingState: 'paused', waitingFor: 'approval', agent: false, running: false, runHere: false, pendingApproval: true, failedStep: false, steps: 2, hasTree: true, partlyApplied: false, checkpoints: 1 },
  'failed in execute (scripted)': { phase: 'execute', processingState: 'errored', waitingFor: null, agent: false, running: false, runHere: false, pendingApproval: false, failedStep: true, steps: 2, hasTree: true, partlyApplied: false, checkpoints: 2 },
  'failed, its sandbox folder gone': { phase: 'execute', processingState: 'errored', waitingFor: null, agent: false, running: false, runHere: false, pendingApproval: false, failedStep: true, steps: 2, hasTree: true, partlyApplied: false, checkpoints: 2, sandboxGone: true },
  'failed in execute (agent)': { phase: 'execute', processingState: 'errored', waitingFor: null, agent: true, running: false, runHere: false, pendingApproval: false, failedStep: true, steps: 1, hasTree: true, partlyApplied: false, checkpoints: 1 },
  interrupted: { phase: 'strategize', processingState: 'errored', waitingFor: null, agent: false, running: false, runHere: false, pendingApproval: false, failedStep: false, steps: 0, hasTree: false, partlyApplied: false, checkpoints: 0 },
  'checks failed': { phase: 'apply', processingState: 'errored', waitingFor: null, agent: false, running: false, runHere: false, pendingApproval: false, failedStep: false, steps: 2, hasTree: true, partlyApplied: false, checkpoints: 2 },
  'ready to apply': { phase: 'apply', processingState: 'queued', waitingFor: null, agent: false, running: false, runHere: false, pendingApproval: false, failedStep: false, steps: 2, hasTree: true, partlyApplied: false, checkpoints: 2 },
  'partly applied': { phase: 'apply', processingState: 'queued', waitingFor: null, agent: false, running: false, runHere: false, pendingApproval: false, failedStep: false, steps: 2, hasTree: true, partlyApplied: true, checkpoints: 2 },
  applied: { phase: 'apply', processingState: 'complete', waitingFor: null, agent: false, running: false, runHere: false, pendingApproval: false, failedStep: false, steps: 2, hasTree: true, partlyApplied: true, checkpoints: 0 },
  discarded: { phase: 'apply', processingState: 'cancelled', waitingFor: null, agent: false, running: false, runHere: false, pendingApproval: false, failedStep: false, steps: 2, hasTree: true, partlyApplied: false, checkpoints: 0, sandboxGone: true },
};

/** The facts of `plan` in `state` as seen from the router's process (`here`) or from another (the CLI's). */
const factsOf = (state: keyof typeof STATES, plan: Plan, here: boolean): PlanFacts => {
  const { sandboxGone, ...known } = FACTS[state];
  const missingSandbox = sandboxGone ? plan.sandboxRefs[0] : null;
  return { ...known, id: plan.id, projectPath: plan.projectPath, gitProject: false, errorDetails: plan.errorDetails, checks: plan.checks ?? null, runHere: here && known.runHere, missingSandbox, rewindPending: null };
};

/** Runs `tasks` a few at a time: each CLI check is a process of its own. */
async function inParallel<T>(tasks: (() => Promise<T>)[], width = 4): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]();
      }
    }),
  );
  return results;
}

beforeAll(async () => {
  await scripted.start();
  await holding.start();
  // Strategize proposes one step; the step's model call is refused (auth): the agent plan fails in execute.
  const agent = fileWritingAgent({ 'NOTES.md': 'notes\n' });
  scripted.respondWith((request, index) => (isStrategize(request) ? agent(request, index) : { status: 401 }));
  base = mkdtempSync(join(tmpdir(), 'agents-rules-'));
  home = join(base, 'home');
  project = join(base, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  files = { step: join(base, 'step.yaml'), plan: join(base, 'plan.yaml') };
  writeFileSync(files.step, 'step: Write a note\ntools:\n  - tool: file.write\n    args: { path: note.txt, content: "n" }\n');
  writeFileSync(files.plan, planFile('replanned'));
  const env = { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_API_KEY: '' };
  app = await openApp({ dataDir: home, env: { ...env, AGENTS_BASE_URL: scripted.baseUrl }, sleep: () => Promise.resolve() });
  heldApp = await openApp({ dataDir: home, env: { ...env, AGENTS_BASE_URL: holding.baseUrl } });
  router = createRouter(app.service, { dataDir: home, baseDir: base, projectRoots: [base], log: () => undefined });
});

afterAll(async () => {
  holding.release();
  // A run started in step mode waits at its next step: let every run go on to its end.
  const running = async () => (await app.service.list()).filter((p) => app.service.isRunning(p.id));
  for (let i = 0; i < 500 && (await running()).length > 0; i++) {
    for (const p of await running()) app.service.controller(p.id).continue();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await app?.service.idle();
  app?.close();
  heldApp?.close();
  await scripted.close();
  await holding.close();
  rmSync(base, { recursive: true, force: true });
}, 60_000);

describe('every action in every state: the declared rule and the engine agree', () => {
  it('refuses what the rule refuses, in the CLI and the router, with the rule\'s reason; allows what it allows', LONG, async () => {
    const cliChecks: (() => Promise<void>)[] = [];
    let refusedByCli = 0;
    let allowedChecks = 0;
    for (const [state, make] of Object.entries(STATES)) {
      const plan = await make();
      const name = `${state}: `;
      // The facts the engine reads are the ones this table states for the state.
      const here = await planFacts(await app.service.get(plan.id), { steps: (id) => app.service.lifecycle.stepCounts(id), approvals: app.service.stores.approvals, leases: app.service.stores.leases, runningHere: (id) => app.service.isRunning(id), checkpoints: async (id) => (await app.service.checkpoints(id)).length, partlyApplied: async (id) => (await app.service.stores.applied.list(id)).length > 0 });
      expect({ state, ...here }).toEqual({ state, ...factsOf(state, await app.service.get(plan.id), true) });

      // plans.get and plan show --json list the actions as the rules answer them, for each side.
      const got = await router.handle('plans.get', { planId: plan.id });
      expect({ state, actions: got.ok ? (got.data as { actions: unknown }).actions : got }).toEqual({ state, actions: actionList(factsOf(state, plan, true)) });
      cliChecks.push(async () => {
        const shown = await agents(['plan', 'show', plan.id, '--json'], home);
        expect({ state, actions: (JSON.parse(shown.stdout) as { actions: unknown }).actions }).toEqual({ state, actions: actionList(factsOf(state, plan, false)) });
      });

      for (const action of ACTION_IDS) {
        const rule = allowed(action, factsOf(state, plan, true));
        const channel = ROUTER[action];
        if (!rule.allowed && channel) {
          const reply = await router.handle(...channel(plan.id));
          expect({ check: `${name}router ${action}`, reply }).toEqual({ check: `${name}router ${action}`, reply: { ok: false, error: { code: rule.code, message: rule.reason } } });
        }
        // The CLI is another process: a run of this one is "being run by another process" to it.
        const cliRule = allowed(action, factsOf(state, plan, false));
        const words = CLI[action];
        if (!cliRule.allowed && words) {
          refusedByCli++;
          cliChecks.push(async () => {
            const result = await agents(['plan', ...words(plan.id, files)], home, { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: scripted.baseUrl, AGENTS_API_KEY: '' });
            // Run on a plan that waits for an answer exits 3, as a run that stops for one does (README, exit
            // status), and says how to answer on a second line.
            const waits = action === 'run' && plan.waitingFor === 'approval';
            expect({ check: `${name}agents plan ${words(plan.id, files).join(' ')}`, code: result.code, stderr: result.stderr.split('\n')[0] }).toEqual({
              check: `${name}agents plan ${words(plan.id, files).join(' ')}`,
              code: waits ? 3 : 2,
              stderr: `error: ${cliRule.reason}`,
            });
            expect(result.stderr.split('\n')).toHaveLength(waits ? 3 : 2);
          });
        }
      }

      // An allowed action changes the state: each gets a plan of its own in the same state.
      for (const action of ACTION_IDS) {
        const channel = ROUTER[action];
        if (!channel || !allowed(action, factsOf(state, plan, true)).allowed) continue;
        allowedChecks++;
        const fresh = action === 'show_errors' ? plan : await make();
        const reply = await router.handle(...channel(fresh.id));
        const refused = !reply.ok && REFUSALS.has(reply.error.code);
        expect({ check: `${name}router ${action} is not refused`, refused: refused ? reply : false }).toEqual({ check: `${name}router ${action} is not refused`, refused: false });
      }
    }
    // Unconfirmed, apply after a failed check is refused with the rule's reason, by the router and the CLI alike.
    const stopped = await STATES['checks failed']();
    const reason = `plan ${stopped.id}: check "tests pass" failed; apply with --accept-failed-checks to apply anyway`;
    expect(await router.handle('plans.apply', { planId: stopped.id })).toEqual({ ok: false, error: { code: 'wrong_state', message: reason } });
    cliChecks.push(async () => {
      const result = await agents(['plan', 'apply', stopped.id], home);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: `error: ${reason}\n` });
    });
    await inParallel(cliChecks);
    // The table covers something in each direction.
    expect(refusedByCli).toBeGreaterThan(80);
    expect(allowedChecks).toBeGreaterThan(25);
  });
});
