import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RequestPermissionRequest, RequestPermissionResponse, SessionNotification, StopReason, ToolCallUpdate } from '@agentclientprotocol/sdk/unstable';
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import { z } from 'zod';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { DeltaBatcher } from '../run/delta-batcher';
import { ApprovalPending, EngineError, errorCategoryOf, ToolCallError } from '../errors';
import type { InvariantRules } from '../gates/invariants';
import type { PlanLifecycleService } from '../run/lifecycle';
import { type CorrectionContext, executePrompt } from '../model/prompts';
import { type ReviewFeedback, reviewFeedbackText } from '../model/review-feedback';
import type { StepContext, StepRunner } from '../run/runtime-execute-actor';
import type { ToolRegistry } from '../run/tool-runner';
import { AcpConnection, type AcpHandlers, agentFailure, DEFAULT_ACP_TURN_TIMEOUT_MS } from './acp-connection';
import { type AgentProcess, type AgentProcessRequest, startAgentProcess } from './agent-process';
import { SandboxWatch } from './sandbox-watch';
import { type AcpBudgets, AcpUsageMeter } from './agent-usage';
import type { BudgetGate } from '../gates/budget-gate';
import { StepSubtasks } from './acp-subtasks';
import { pickOption, readSandboxText, sandboxRelativeOrRefuse } from './client-side';
import { type AgentCall, gateCall, outputOf, READ_ONLY_KINDS, toolNameOf } from './agent-calls';

/** The agent a run starts: what a plan records, with this machine's environment for it. */
export interface AcpAgentLaunch {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  allowHosts: string[];
}

export interface AcpActorOptions {
  planId: string;
  agent: AcpAgentLaunch;
  sandboxRoot: string;
  /** The agent's own HOME for this plan: its settings, sessions and caches. */
  home: string;
  lifecycle: PlanLifecycleService;
  /** The run's own registry: each of the agent's tools is added as `NAME.TOOL`, so its calls are recorded like ours. */
  registry: ToolRegistry;
  allowNetwork: boolean;
  /** Where the system cannot confine the agent, start it all the same (the profile's allowUnconfinedShell). */
  allowUnconfined: boolean;
  rules?: InvariantRules;
  reviewFeedback?: () => Promise<ReviewFeedback>;
  /** Why the step's last attempt failed (a rejection with its reason, the agent killed), for a step run again without a correction. */
  earlierFailure?: (decisionId: string) => Promise<string | null>;
  turnTimeoutMs?: number;
  startTimeoutMs?: number;
  /** Told what `initialize` reported once the agent started, so the plan records it. */
  onStarted?: (version: string | null) => Promise<void>;
  /** The plan file's budgets, and who is asked for more when one is passed (agent-usage.ts). */
  budgets?: AcpBudgets;
  budgetGate?: BudgetGate;
  /** Starts the agent's process (confined, where the system can). */
  start?: (request: AgentProcessRequest, allowUnconfined: boolean) => Promise<AgentProcess>;
}

/** The file in the agent's home for the plan that names the plan's session, for session/load. */
const SESSION_FILE = '.cleveragents-acp-session';

/** The modes in which the agents ask before they act (TOOLCHAIN.md): Claude Code and Qwen Code start in `auto`. */
const ASKING_MODES = ['default', 'read-only'];

const STOP_FAILURES: Partial<Record<StopReason, string>> = {
  refusal: 'refused to carry out the step',
  max_tokens: 'ran out of output tokens',
  max_turn_requests: 'used up its model requests for the turn',
};

/** A refused or waiting call's error stops the turn: the agent is told to cancel, and the step ends with it. */
class TurnStop {
  error: unknown = null;
}

/**
 * A coding agent (Claude Code, Qwen Code, ...) as a plan's executor over the Agent Client Protocol:
 * one agent process and session per run, one prompt turn per step. Its file writes through the
 * client go through the tool runner as file.write; what it writes by itself is found by comparing
 * the sandbox after each of its tool calls; every permission it asks goes through the approval gate.
 */
export class AcpActor {
  private connection: AcpConnection | null = null;
  private sessionId: string | null = null;
  private readonly watch: SandboxWatch;
  private readonly usage: AcpUsageMeter;

  constructor(private readonly options: AcpActorOptions) {
    this.watch = new SandboxWatch(options.sandboxRoot);
    this.usage = new AcpUsageMeter({ planId: options.planId, agentName: options.agent.name, lifecycle: options.lifecycle, budgets: options.budgets ?? {}, gate: options.budgetGate });
  }

  /** What `initialize` reported, once the agent started: `qwen-code 0.24.4`. */
  get version(): string | null {
    return this.connection?.version ?? null;
  }

  /** The agent started and a session open, once per run; an agent that died (killed mid-step) is started again. */
  private async session(): Promise<{ connection: AcpConnection; sessionId: string }> {
    if (this.connection && this.sessionId && !this.connection.exited) return { connection: this.connection, sessionId: this.sessionId };
    await this.connection?.close();
    this.connection = null;
    const { agent, sandboxRoot, home, allowNetwork } = this.options;
    const request: AgentProcessRequest = { file: agent.command, args: agent.args, env: agent.env, sandboxRoot, home, readOnlyPaths: [], allowHosts: agent.allowHosts, allowNetwork };
    const connection = await AcpConnection.start({ ...agent, planId: this.options.planId }, request, this.options.startTimeoutMs, (r) => (this.options.start ?? startAgentProcess)(r, this.options.allowUnconfined));
    try {
      // The plan's session resumed where the agent offers it (after a restart, an approval, a retry), else a new one.
      const kept = connection.canLoadSession ? await this.keptSession() : null;
      const session = (kept ? await connection.loadSession(kept, sandboxRoot) : null) ?? (await connection.newSession(sandboxRoot));
      if (session.sessionId !== kept) await this.keepSession(session.sessionId);
      for (const mode of ASKING_MODES) if (await connection.setMode(session, mode)) break;
      this.connection = connection;
      this.sessionId = session.sessionId;
      this.usage.counter.restart();
      await this.options.onStarted?.(connection.version);
      return { connection, sessionId: session.sessionId };
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  /** Where the plan's session id is kept: in the agent's home for the plan, beside the sessions the agent keeps there. */
  private get sessionFile(): string {
    return path.join(this.options.home, SESSION_FILE);
  }

  private async keptSession(): Promise<string | null> {
    try {
      return (await readFile(this.sessionFile, 'utf8')).trim() || null;
    } catch {
      return null;
    }
  }

  private async keepSession(sessionId: string): Promise<void> {
    await writeFile(this.sessionFile, `${sessionId}\n`, { mode: 0o600 });
  }

  stepRunner(plan: Plan, corrections: ReadonlyMap<string, CorrectionContext> = new Map()): StepRunner {
    return { run: (decision, context) => this.runStep(plan, decision, context, corrections) };
  }

  private async runStep(plan: Plan, decision: StrategyDecision, context: StepContext, corrections: ReadonlyMap<string, CorrectionContext>): Promise<void> {
    const { lifecycle } = this.options;
    // A budget used up pauses the step before its agent starts (atCall: where the answer resumes it).
    await this.usage.check(decision, Math.max(context.firstCall, 1));
    const { connection, sessionId } = await this.session();
    this.usage.startTurn();
    await this.watch.baseline();
    const stop = new TurnStop();
    const calls = new Map<string, AgentCall>();
    // Permission requests are the step's calls 1, 2, ...: a step resumed at call k (its answered approval) asks again from k.
    let permissions = Math.max(context.firstCall, 1);
    let records: Promise<void> = Promise.resolve();
    const subtasks = new StepSubtasks(lifecycle, decision.id, context.emit);
    const batcher = new DeltaBatcher((text) => context.emit('model_output', { decisionId: decision.id, phase: 'execute', text }));
    const halt = (error: unknown) => {
      stop.error ??= error;
      void connection.cancel(sessionId);
    };

    /** Records a call once it completed or failed, with what the sandbox changed since the last record. */
    const settle = (call: AgentCall) => {
      if (call.settled) return records;
      call.settled = true;
      records = records.then(() => this.record(call, context, decision, halt)).catch(halt);
      return records;
    };

    const track = (update: ToolCallUpdate & { name?: unknown; sessionUpdate: string }) => {
      const known = calls.get(update.toolCallId);
      const kind = update.kind ?? known?.kind ?? null;
      const call: AgentCall = known ?? { id: update.toolCallId, title: '', kind, tool: toolNameOf(update, kind), rawInput: {}, status: 'pending', output: '', settled: false };
      if (update.title) call.title = update.title;
      call.kind = kind;
      if (update.rawInput && typeof update.rawInput === 'object' && Object.keys(update.rawInput).length > 0) call.rawInput = update.rawInput as Record<string, unknown>;
      if (update.status) call.status = update.status;
      const output = outputOf(update);
      if (output) call.output = output;
      if (!known) {
        calls.set(call.id, call);
        context.emit('tool_call_started', { decisionId: decision.id, tool: `${this.options.agent.name}.${call.tool}`, args: { title: call.title, kind: call.kind } });
      }
      return call;
    };

    const handlers: AcpHandlers = {
      update: async ({ update }: SessionNotification) => {
        // Tokens and cost as the agent reports them; a budget passed mid-turn stops the turn and asks.
        if (await this.usage.record(decision, this.usage.counter.update(update), context.emit)) void connection.cancel(sessionId);
        switch (update.sessionUpdate) {
          case 'agent_message_chunk': {
            if (update.content.type === 'text') batcher.push(update.content.text);
            return;
          }
          case 'plan':
            return subtasks.record(update);
          case 'tool_call':
          case 'tool_call_update': {
            const call = track(update);
            if (call.status === 'completed' || call.status === 'failed') await settle(call);
            return;
          }
          default:
            // Thoughts, commands, modes and the agent's own notices are not the plan's record.
            return;
        }
      },
      permission: (params) => this.permission(params, track, context, decision, () => permissions++, halt),
      writeTextFile: async (params) => {
        const rel = sandboxRelativeOrRefuse(this.options.sandboxRoot, params.path);
        // Whatever it did before this write is its own; the write is the tool runner's.
        await records;
        try {
          await context.runCall({ tool: 'file.write', args: { path: rel, content: params.content } }, permissions, { approved: true });
        } catch (error) {
          if (errorCategoryOf(error) === 'invariant' || (error instanceof ToolCallError && error.invocation.error?.category === 'invariant')) halt(error);
          throw RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
        } finally {
          await this.watch.baseline();
        }
      },
      readTextFile: (params) => readSandboxText(this.options.sandboxRoot, params, connection.info.agentInfo?.name),
    };

    const review = this.options.reviewFeedback ? reviewFeedbackText(await this.options.reviewFeedback()) : '';
    const current = await lifecycle.getPlan(plan.id);
    const steps = (await lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'strategy_choice' && d.status !== 'skipped');
    const resumed = context.firstCall > 0 ? '\n\nThis step stopped while a tool call of yours waited for the operator, who has answered. The sandbox keeps what you did; go on from where the step stood, asking again for the call you were about to make.' : '';
    const text =
      executePrompt({ plan: current, decision, index: context.index, total: context.total, earlier: [], steps, correction: await this.correction(decision, corrections), review }) +
      resumed +
      `\n\nThe project is the folder ${this.options.sandboxRoot} (your working folder). Do only this step; when it is done, end your turn with a one-line summary.`;
    await context.flush();
    let stopReason: StopReason;
    try {
      stopReason = await connection.prompt(sessionId, text, handlers, this.options.turnTimeoutMs ?? DEFAULT_ACP_TURN_TIMEOUT_MS);
    } catch (error) {
      await batcher.flush();
      // A hung agent, or one that broke the protocol, is not asked again: the next step starts it afresh.
      await this.end();
      throw stop.error ?? error;
    }
    await batcher.flush();
    await this.usage.record(decision, this.usage.counter.response(connection.lastUsage), context.emit, 1);
    for (const call of calls.values()) if (!call.settled && stop.error === null) await settle(call);
    await records;
    if (!stop.error) await this.usage.afterTurn(decision, stopReason, permissions).catch((error: unknown) => (stop.error = error));
    if (stop.error) {
      // A call that waits for the operator ends the agent: the answer continues the step in a new one.
      if (stop.error instanceof ApprovalPending) await this.end();
      throw stop.error;
    }
    // What the turn changed that no call claimed is recorded under the turn.
    await this.record({ id: 'turn', title: 'changes made outside a tool call', kind: 'other', tool: 'turn', rawInput: {}, status: 'completed', output: '', settled: true }, context, decision, (error) => {
      stop.error ??= error;
    }, true);
    if (stop.error) throw stop.error;
    const failed = STOP_FAILURES[stopReason];
    if (failed) throw new EngineError(`agent ${this.options.agent.name} ${failed} (stop reason ${stopReason})`, stopReason === 'refusal' ? 'rejected' : 'budget', { agent: this.options.agent.name, stopReason });
    if (stopReason === 'cancelled') throw new EngineError(`agent ${this.options.agent.name} cancelled its turn`, 'interrupted', { agent: this.options.agent.name });
  }

  /** The operator's correction of the step, else why its last attempt failed: a retried step is told, as a corrected one is. */
  private async correction(decision: StrategyDecision, corrections: ReadonlyMap<string, CorrectionContext>): Promise<CorrectionContext | undefined> {
    const given = corrections.get(decision.id);
    if (given) return given;
    const failure = await this.options.earlierFailure?.(decision.id);
    return failure ? { failure, note: null } : undefined;
  }

  /** One settled call recorded through the tool runner as `NAME.TOOL`, with the sandbox's changes since the last record. */
  private async record(call: AgentCall, context: StepContext, decision: StrategyDecision, halt: (error: unknown) => void, onlyIfChanged = false): Promise<void> {
    // A call that only reads changes nothing: the sandbox is not walked for it (what changed anyway is found at the next call or the turn's end).
    const changes = READ_ONLY_KINDS.includes(call.kind ?? 'other') ? [] : await this.watch.changes();
    if (onlyIfChanged && changes.length === 0) return;
    const name = `${this.options.agent.name}.${call.tool}`;
    if (!this.options.registry.get(name)) {
      this.options.registry.register({
        name,
        description: `${this.options.agent.name}'s own tool ${call.tool}`,
        effect: 'exec',
        schema: z.record(z.string(), z.unknown()),
        run: async (_args, tool) => {
          const settling = this.settling;
          this.settling = null;
          for (const change of settling?.changes ?? []) tool.recordChange(change);
          if (settling?.call.status === 'failed') throw new EngineError(`${settling.call.title || settling.call.tool}: ${settling.call.output || 'failed'}`, 'tool');
          return settling ? { title: settling.call.title, kind: settling.call.kind, output: settling.call.output } : null;
        },
      });
    }
    this.settling = { call, changes };
    try {
      await context.runCall({ tool: name, args: { ...call.rawInput } }, 0, { approved: true });
    } catch (error) {
      const category = error instanceof ToolCallError ? error.invocation.error?.category : errorCategoryOf(error);
      // The agent's own failure is the agent's to handle; a protected path it changed fails the step.
      if (category !== 'tool') halt(error);
    } finally {
      this.settling = null;
    }
    void decision;
  }

  private settling: { call: AgentCall; changes: Awaited<ReturnType<SandboxWatch['changes']>> } | null = null;

  /** A permission request through the approval gate, answered with the option that means what the gate decided. */
  private async permission(
    params: RequestPermissionRequest,
    track: (update: ToolCallUpdate & { sessionUpdate: string }) => AgentCall,
    context: StepContext,
    decision: StrategyDecision,
    nextIndex: () => number,
    halt: (error: unknown) => void,
  ): Promise<RequestPermissionResponse> {
    const call = track({ ...params.toolCall, sessionUpdate: 'tool_call_update' });
    const allow = pickOption(params.options, ['allow_once', 'allow_always']);
    const allowAlways = pickOption(params.options, ['allow_always']);
    const reject = pickOption(params.options, ['reject_once', 'reject_always']);
    if (!allow || !reject) {
      const kinds = params.options.map((o) => `${o.optionId} (${o.kind})`).join(', ');
      halt(agentFailure(this.options.agent, `asked permission for "${call.title}" with options that cannot be mapped onto approve and reject: ${kinds || 'none'}`, 'tool'));
      return { outcome: { outcome: 'cancelled' } };
    }
    const { spec, effect } = gateCall(this.options.agent.name, this.options.sandboxRoot, call, params.toolCall);
    const agent = this.options.agent.name;
    // A profile names the agent's tools as NAME.TOOL or NAME.KIND (`claude.Bash`, `claude.execute`).
    const aliases = [`${agent}.${call.tool}`, ...(call.kind ? [`${agent}.${call.kind}`] : [])].filter((alias) => alias !== spec.tool);
    try {
      await this.options.rules?.checkCall(spec.tool, spec.args, effect);
      const scope = await context.ask(spec, nextIndex(), effect, aliases);
      // Approve all: the agent's allow-always option, so it stops asking for that kind in this session.
      const chosen = scope === 'all' ? (allowAlways ?? allow) : allow;
      return { outcome: { outcome: 'selected', optionId: chosen.optionId } };
    } catch (error) {
      halt(error);
      if (error instanceof ApprovalPending) return { outcome: { outcome: 'cancelled' } };
      return { outcome: { outcome: 'selected', optionId: reject.optionId } };
    } finally {
      void decision;
    }
  }

  /** Ends the agent's process group; the next step starts it again. */
  private async end(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    this.sessionId = null;
    await connection?.close();
  }

  /** Ends what the run started: the agent's whole process group. */
  async close(): Promise<void> {
    await this.end();
    await this.watch.dispose();
  }
}
