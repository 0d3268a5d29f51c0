import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk/unstable';
import type { StrategyDecision } from '../../shared/domain';
import { newId } from '../../shared/ids';
import { resolveProfile } from '../../shared/profiles';
import { AcpActor, type AcpAgentLaunch } from '../../main/engine/acp/acp-actor';
import { AcpConnection } from '../../main/engine/acp/acp-connection';
import { ApprovalGate } from '../../main/engine/gates/approval-gate';
import { EventPublisher } from '../../main/engine/ports/event-stream';
import { ErrorRecoveryService } from '../../main/engine/run/error-recovery-service';
import { PlanExecutionContext } from '../../main/engine/run/execution-context';
import { PlanLifecycleService } from '../../main/engine/run/lifecycle';
import { PlanExecutor } from '../../main/engine/run/plan-executor';
import type { StepRunner } from '../../main/engine/run/runtime-execute-actor';
import { ToolRegistry, ToolRunner } from '../../main/engine/run/tool-runner';
import { registerBuiltinTools } from '../../main/engine/tools';
import { startUnconfinedAgent } from '../../main/engine/tools/agent-process';
import { openStores } from '../../main/persistence/stores';
import { agentSteps, QWEN_ENTRY } from '../../tests/support/acp-agents';
import { ScriptedModelServer } from '../../tests/support/scripted-model-server';
import { type Benchmark, type BenchResult, median } from '../bench-result';
import { fmtMs, scratchDir } from './util';

const FILES = 10_000;
const CALLS = 20;
const REPS = Number(process.env.BENCH_ACP_TURN_REPS ?? 7);
/** The issue's budgets: what the console adds is under 20% of the agent's turn and under 50 ms a call. */
const SHARE_BUDGET = 0.2;
const PER_CALL_BUDGET_MS = 50;

/** Each turn writes other contents, so every write and command of every turn is a change to capture. */
let turn = 0;

/**
 * A turn's 20 calls, cycling: a new file written (Qwen sends it as fs/write_text_file; it overwrites
 * only files it read), a shell command that rewrites a file (Qwen runs it itself: found only by
 * comparing the sandbox), a read, another new file.
 */
function turnCalls(): Parameters<typeof agentSteps>[0][string] {
  return Array.from({ length: CALLS }, (_, i) => (dir: string) => {
    const pkg = path.join(dir, `pkg${i}`);
    switch (i % 4) {
      case 1:
        return { name: 'run_shell_command', args: { command: `echo turn ${turn} > ${path.join(pkg, 'shell.txt')}`, description: 'stamp', is_background: false } };
      case 2:
        return { name: 'read_file', args: { file_path: path.join(pkg, `file${i}.ts`) } };
      default:
        return { name: 'write_file', args: { file_path: path.join(pkg, `t${turn}-${i}.txt`), content: `turn ${turn}, call ${i}\n` } };
    }
  });
}

/** Calls of a turn that change a file: the writes and the commands. */
const CHANGES_PER_TURN = Array.from({ length: CALLS }, (_, i) => i % 4).filter((k) => k !== 2).length;

function qwenLaunch(server: ScriptedModelServer): AcpAgentLaunch {
  return {
    name: 'qwen',
    command: process.execPath,
    args: [QWEN_ENTRY, '--acp'],
    env: { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'scripted', OPENAI_MODEL: 'qwen3-coder', QWEN_USAGE_STATISTICS_ENABLED: 'false' },
    allowHosts: [],
  };
}

/** The same agent with no console around it: a client that writes and reads as asked, allows every call, and keeps nothing. */
async function bareAgent(launch: AcpAgentLaunch, root: string, home: string): Promise<{ turn(text: string): Promise<void>; close(): Promise<void> }> {
  const request = { file: launch.command, args: launch.args, env: launch.env, sandboxRoot: root, home, readOnlyPaths: [], allowHosts: [], allowNetwork: true };
  const connection = await AcpConnection.start(launch, request, undefined, startUnconfinedAgent);
  const session = await connection.newSession(root);
  // The same asking mode as under the console, so it asks the same permissions.
  await connection.setMode(session, 'default');
  const handlers = {
    permission: async (params: RequestPermissionRequest) => {
      const allow = params.options.find((o) => o.kind === 'allow_once') ?? params.options[0];
      return { outcome: { outcome: 'selected' as const, optionId: allow.optionId } };
    },
    writeTextFile: async (params: { path: string; content: string }) => {
      await mkdir(path.dirname(params.path), { recursive: true });
      await writeFile(params.path, params.content);
    },
    readTextFile: async (params: { path: string }) => ({ content: await readFile(params.path, 'utf8') }),
    update: () => undefined,
  };
  return {
    async turn(text) {
      const stop = await connection.prompt(session.sessionId, text, handlers);
      if (stop !== 'end_turn') throw new Error(`agent turn: the bare agent stopped with ${stop}`);
    },
    close: () => connection.close(),
  };
}

/**
 * What the console adds to a real coding agent's turn (Qwen Code 0.24.4, tests/agents) of 20 tool
 * calls on a 10,000-file project: the turn run by AcpActor in PlanExecutor as a run wires it (SQLite
 * stores, the approval gate under `trusted`, the tool runner recording each call, the sandbox's
 * changes captured after each call), against the same agent's turn with a bare client in the same
 * folder. Both agents start unconfined (confinement is `agent start`'s line), against the same
 * scripted model; the turns alternate, each pair's difference is one figure, the medians are printed.
 */
export const acpTurnBenchmark: Benchmark = {
  name: 'agent turn',
  async run(): Promise<BenchResult[]> {
    const name = `agent turn: capture and approvals, ${CALLS} calls on ${FILES.toLocaleString('en')} files`;
    if (!existsSync(QWEN_ENTRY)) {
      return [{ name, figure: 'not run: Qwen Code is not installed (npm install --prefix tests/agents)', budget: `< ${SHARE_BUDGET * 100}% of the turn`, pass: false, details: {} }];
    }
    const scratch = scratchDir('acp-turn');
    const server = await new ScriptedModelServer().start();
    server.respondWith(agentSteps({ bench: turnCalls() }));
    const stores = openStores(path.join(scratch.dir, 'data'));
    let actor: AcpActor | null = null;
    let bare: Awaited<ReturnType<typeof bareAgent>> | null = null;
    try {
      const root = path.join(scratch.dir, 'project');
      for (let i = 0; i < FILES; i += 1) {
        const dir = path.join(root, `pkg${i % 100}`);
        if (i < 100) mkdirSync(dir, { recursive: true });
        writeFileSync(path.join(dir, `file${i}.ts`), `export const value${i} = ${i};\n`);
      }
      const events = new EventPublisher(stores.events);
      const lifecycle = new PlanLifecycleService(stores.plans, events);
      const profile = resolveProfile('trusted');
      const plan = await lifecycle.createPlan({ name: 'agent turn bench', definitionOfDone: 'bench turns', automationProfile: profile });
      await lifecycle.beginPhase(plan.id, 'strategize');
      const now = new Date().toISOString();
      const rootDecision: StrategyDecision = { id: newId(), planId: plan.id, parentId: null, type: 'prompt_definition', order: 0, description: 'bench', rationale: '', toolCalls: [], status: 'done', createdAt: now, updatedAt: now };
      // A warm-up turn (the agents start, Qwen Code reads the project once), then the measured ones.
      const steps = Array.from({ length: REPS + 1 }, (_, order): StrategyDecision => ({
        id: newId(), planId: plan.id, parentId: rootDecision.id, type: 'strategy_choice', order, description: `bench turn ${order}`, rationale: '', toolCalls: [], status: 'pending', createdAt: now, updatedAt: now,
      }));
      await lifecycle.saveDecisions([rootDecision, ...steps]);
      await lifecycle.completePhase(plan.id, { decisionRootId: rootDecision.id });

      const registry = registerBuiltinTools(new ToolRegistry());
      const launch = qwenLaunch(server);
      actor = new AcpActor({
        planId: plan.id,
        agent: launch,
        sandboxRoot: root,
        home: path.join(scratch.dir, 'home-console'),
        lifecycle,
        registry,
        allowNetwork: true,
        allowUnconfined: true,
        start: (request) => startUnconfinedAgent(request),
      });
      bare = await bareAgent(launch, root, path.join(scratch.dir, 'home-bare'));
      const subjectMs: number[] = [];
      const bareMs: number[] = [];
      const consoleSteps = actor.stepRunner(plan);
      const bareTurn = async (index: number) => {
        turn += 1;
        const started = performance.now();
        await bare!.turn(`Your step (1 of 1): bench turn ${index}\n\nThe project is the folder ${root} (your working folder). Do only this step; when it is done, end your turn with a one-line summary.`);
        const ms = performance.now() - started;
        // The bare turn did the work too.
        const written = readFileSync(path.join(root, 'pkg1', 'shell.txt'), 'utf8');
        if (written !== `turn ${turn}\n` || !existsSync(path.join(root, 'pkg0', `t${turn}-0.txt`))) throw new Error(`agent turn: the bare agent's turn wrote "${written.trim()}"`);
        return ms;
      };
      const timed: StepRunner = {
        async run(decision, context) {
          const index = steps.findIndex((s) => s.id === decision.id);
          const subject = async () => {
            turn += 1;
            const started = performance.now();
            await consoleSteps.run(decision, context);
            return performance.now() - started;
          };
          // Which goes first alternates, so a neighbour's load or a warm cache hits both alike.
          if (index % 2 === 0) {
            const s = await subject();
            const b = await bareTurn(index);
            if (index > 0) {
              subjectMs.push(s);
              bareMs.push(b);
            }
          } else {
            const b = await bareTurn(index);
            const s = await subject();
            subjectMs.push(s);
            bareMs.push(b);
          }
        },
      };
      const executor = new PlanExecutor({
        lifecycleService: lifecycle,
        toolRunner: new ToolRunner(registry, stores.invocations),
        executionContext: new PlanExecutionContext({ planId: plan.id, decisionRootId: rootDecision.id, sandboxRoot: root, automationProfile: profile.name, changesetStore: stores.changesets }),
        errorRecoveryService: new ErrorRecoveryService(stores.errors, lifecycle),
        stepRunner: timed,
      });
      const result = await executor.runExecute(plan.id, { gate: new ApprovalGate(stores.approvals, events, plan.id, profile, root) });

      // Every change of every console turn was captured, and each under the call that made it.
      const changesetId = 'changesetId' in result ? result.changesetId : null;
      const entries = changesetId ? await stores.changesets.listEntryMeta(changesetId, { offset: 0, limit: 10_000 }) : [];
      const expected = (REPS + 1) * CHANGES_PER_TURN;
      const invocations = new Map((await stores.invocations.listForPlan(plan.id)).map((i) => [i.id, i.tool]));
      const shellEntries = entries.filter((e) => e.path.endsWith('shell.txt'));
      if (entries.length !== expected || shellEntries.some((e) => invocations.get(e.invocationId ?? '') !== 'qwen.run_shell_command') || entries.some((e) => e.path.endsWith('.txt') && !e.path.endsWith('shell.txt') && invocations.get(e.invocationId ?? '') !== 'file.write')) {
        throw new Error(`agent turn: ${entries.length} changes captured (expected ${expected}), or not under the calls that made them: ${entries.map((e) => `${e.path} ${invocations.get(e.invocationId ?? "")}`).join(", ")}`);
      }

      const overheads = subjectMs.map((s, i) => s - bareMs[i]);
      const shares = overheads.map((o, i) => o / bareMs[i]);
      const share = median(shares);
      const perCall = median(overheads) / CALLS;
      return [
        {
          name,
          figure: `${share >= 0 ? '+' : ''}${(share * 100).toFixed(1)}% of the turn, ${perCall >= 0 ? '+' : ''}${perCall.toFixed(1)} ms a call (${fmtMs(median(subjectMs))} ms vs ${fmtMs(median(bareMs))} ms bare, median of ${shares.length})`,
          budget: `< ${SHARE_BUDGET * 100}%, < ${PER_CALL_BUDGET_MS} ms a call`,
          pass: share < SHARE_BUDGET && perCall < PER_CALL_BUDGET_MS,
          details: {
            shareMedian: Number(share.toFixed(4)),
            shareMin: Number(Math.min(...shares).toFixed(4)),
            shareMax: Number(Math.max(...shares).toFixed(4)),
            perCallMedianMs: Number(perCall.toFixed(2)),
            subjectMedianMs: Number(median(subjectMs).toFixed(1)),
            baselineMedianMs: Number(median(bareMs).toFixed(1)),
            changesCaptured: entries.length,
            repetitions: shares.length,
          },
        },
      ];
    } finally {
      await actor?.close();
      await bare?.close();
      stores.close();
      await server.close();
      scratch.cleanup();
    }
  },
};
