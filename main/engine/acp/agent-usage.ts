import type { PromptResponse, SessionUpdate, Usage } from '@agentclientprotocol/sdk/unstable';
import { type PlanUsage, type StepUsage, usd } from '../../../shared/agent';
import type { StrategyDecision } from '../../../shared/domain';
import { EngineError } from '../errors';
import type { BudgetGate } from '../gates/budget-gate';
import { type Emit, type ModelCallFacts, recordPlanUsage } from '../model/model-agent';
import type { PlanLifecycleService } from '../run/lifecycle';

/** A plan file's budgets for its coding agent (`agent: { acp: NAME, maxOutputTokens, maxCostUsd }`). */
export interface AcpBudgets {
  /** Output tokens one step may use, across its turns and runs. */
  maxOutputTokens?: number;
  /** US dollars the plan may cost, as the agent reports its cost in USD. */
  maxCostUsd?: number;
}

export interface AcpUsageOptions {
  planId: string;
  agentName: string;
  lifecycle: PlanLifecycleService;
  budgets: AcpBudgets;
  /** Asks the operator for more when a budget is passed; absent, the step fails. */
  gate?: BudgetGate;
}

/** The figures one update (or the prompt's response) adds: tokens, and a cost in US dollars. */
export interface UsageFigures {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  costUsd: number;
}

const ZERO: UsageFigures = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, costUsd: 0 };

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.round(value) : 0);

/**
 * The turn's totals from a prompt response: the protocol's `usage` (Claude Code), else the
 * `_meta.quota.token_count` Gemini CLI puts there (0.61.0: input and output tokens of the prompt's model calls).
 */
export function promptUsage(response: PromptResponse): Usage | null {
  if (response.usage) return response.usage;
  const tokens = (response._meta as { quota?: { token_count?: Record<string, unknown> } } | null | undefined)?.quota?.token_count;
  if (!tokens || (typeof tokens.input_tokens !== 'number' && typeof tokens.output_tokens !== 'number')) return null;
  const inputTokens = count(tokens.input_tokens);
  const outputTokens = count(tokens.output_tokens);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
}

/** The tokens a message chunk carries in its `_meta.usage` (Qwen Code reports each model call so). */
export function chunkTokens(update: SessionUpdate): UsageFigures | null {
  if (update.sessionUpdate !== 'agent_message_chunk') return null;
  const usage = (update._meta as { usage?: Record<string, unknown> } | null | undefined)?.usage;
  if (!usage || typeof usage !== 'object') return null;
  if (typeof usage.inputTokens !== 'number' && typeof usage.outputTokens !== 'number') return null;
  return { ...ZERO, inputTokens: count(usage.inputTokens), outputTokens: count(usage.outputTokens), cachedInputTokens: count(usage.cachedReadTokens) };
}

/**
 * Counts what a coding agent reports of its usage, each figure once: tokens on message chunks,
 * a `usage_update`'s cost (a running total for the session, so counted by what it added), and the
 * prompt response's `usage` (the turn's totals, so counted for what the chunks did not already).
 */
export class UsageCounter {
  /** The session's cost total at its last usage_update; a smaller total is a new process's count from zero. */
  private lastCostUsd = 0;
  /** What the current turn's updates counted, so the response's totals add only the rest. */
  private turn: UsageFigures = { ...ZERO };

  /** A new agent process (its session's totals start again). */
  restart(): void {
    this.lastCostUsd = 0;
  }

  startTurn(): void {
    this.turn = { ...ZERO };
  }

  /** The figures one session update adds, or null when it carries none. Only a cost in USD counts. */
  update(update: SessionUpdate): UsageFigures | null {
    const tokens = chunkTokens(update);
    if (tokens) {
      this.add(tokens);
      return tokens;
    }
    if (update.sessionUpdate !== 'usage_update' || !update.cost || update.cost.currency.toUpperCase() !== 'USD') return null;
    const total = update.cost.amount;
    if (!Number.isFinite(total) || total < 0) return null;
    const added = total >= this.lastCostUsd ? total - this.lastCostUsd : total;
    this.lastCostUsd = total;
    if (added === 0) return null;
    const figures = { ...ZERO, costUsd: added };
    this.add(figures);
    return figures;
  }

  /** At the turn's end: what the prompt response's totals add to what its updates counted. */
  response(usage: Usage | null | undefined): UsageFigures {
    if (!usage) return { ...ZERO };
    const rest = (reported: unknown, counted: number) => (typeof reported === 'number' ? Math.max(0, count(reported) - counted) : 0);
    const figures = {
      inputTokens: rest(usage.inputTokens, this.turn.inputTokens),
      outputTokens: rest(usage.outputTokens, this.turn.outputTokens),
      cachedInputTokens: rest(usage.cachedReadTokens, this.turn.cachedInputTokens),
      costUsd: 0,
    };
    this.add(figures);
    return figures;
  }

  private add(figures: UsageFigures): void {
    this.turn = {
      inputTokens: this.turn.inputTokens + figures.inputTokens,
      outputTokens: this.turn.outputTokens + figures.outputTokens,
      cachedInputTokens: this.turn.cachedInputTokens + figures.cachedInputTokens,
      costUsd: this.turn.costUsd + figures.costUsd,
    };
  }
}

/**
 * A coding agent's usage on the plan, as our own model's is kept (plan.usage, model_usage events,
 * so `plan show`, the console and the trace read it alike), and its budgets: a step's output tokens
 * and the plan's cost pause the run with the budget approval our agent raises.
 */
export class AcpUsageMeter {
  readonly counter = new UsageCounter();
  /** The limits in effect at the last check: passing one mid-turn stops the turn. */
  private limits: { stepTokens: number; costUsd: number } = { stepTokens: Infinity, costUsd: Infinity };
  private usage: PlanUsage | undefined;
  /** A budget was passed during the current turn (and the turn was asked to stop). */
  private passedInTurn = false;

  constructor(private readonly options: AcpUsageOptions) {}

  /** Records figures under the step (a planning turn's under the plan's strategize phase); true when a budget is now passed. */
  async record(decision: Pick<StrategyDecision, 'id'> | 'planning', figures: UsageFigures | null, emit: Emit, turns = 0): Promise<boolean> {
    if (!figures || (turns === 0 && figures.inputTokens + figures.outputTokens + figures.cachedInputTokens + figures.costUsd === 0)) return false;
    const planning = decision === 'planning';
    const delta: StepUsage = {
      decisionId: planning ? null : decision.id,
      phase: planning ? 'strategize' : 'execute',
      inputTokens: figures.inputTokens,
      ...(figures.cachedInputTokens ? { cachedInputTokens: figures.cachedInputTokens } : {}),
      outputTokens: figures.outputTokens,
      ...(figures.costUsd ? { costUsd: figures.costUsd } : {}),
      turns,
      summary: null,
    };
    const call: ModelCallFacts = { provider: 'acp', model: this.options.agentName };
    this.usage = await recordPlanUsage(this.options.lifecycle, this.options.planId, delta, emit, call);
    const passed = !planning && turns === 0 && this.passed(decision.id, this.usage);
    this.passedInTurn ||= passed;
    return passed;
  }

  startTurn(): void {
    this.counter.startTurn();
    this.passedInTurn = false;
  }

  /**
   * After a turn stopped because a budget was passed in it: the operator is asked (check). A turn
   * that ended by itself all the same finished its step; the next step's check asks then.
   */
  async afterTurn(decision: Pick<StrategyDecision, 'id' | 'description'>, stopReason: string, atCall: number): Promise<void> {
    if (this.passedInTurn && stopReason === 'cancelled') await this.check(decision, atCall);
  }

  private passed(decisionId: string, usage: PlanUsage | undefined): boolean {
    const step = usage?.steps.find((s) => s.decisionId === decisionId && s.phase === 'execute');
    return (step?.outputTokens ?? 0) >= this.limits.stepTokens || (usage?.costUsd ?? 0) >= this.limits.costUsd;
  }

  /**
   * Before a step's turn, and when a figure passed a budget mid-turn: a budget that is used up is
   * extended by the operator's answer, or the step stops (ApprovalPending while asked; `budget`
   * when refused, or under full-auto). `atCall` keys the ask: the step resumes there once answered.
   */
  async check(decision: Pick<StrategyDecision, 'id' | 'description'>, atCall: number): Promise<void> {
    const { budgets, gate, lifecycle, planId } = this.options;
    // No budgets, nothing to read: the limits stay unbounded.
    if (budgets.maxOutputTokens === undefined && budgets.maxCostUsd === undefined) return;
    const usage = (await lifecycle.getPlan(planId)).usage;
    const what = `step "${decision.description}"`;
    let stepTokens = Infinity;
    if (budgets.maxOutputTokens !== undefined) {
      const used = usage?.steps.find((s) => s.decisionId === decision.id && s.phase === 'execute')?.outputTokens ?? 0;
      stepTokens = budgets.maxOutputTokens + ((await gate?.grantedFor(decision.id, 'outputTokens')) ?? 0);
      while (used >= stepTokens) {
        const max = stepTokens;
        const exhausted = () => new EngineError(`${what} used ${used} of its ${max} output tokens`, 'budget', { outputTokens: used, maxOutputTokens: max, agent: this.options.agentName });
        if (!gate) throw exhausted();
        stepTokens += await gate.extend(decision, { limit: 'outputTokens', used, max, more: budgets.maxOutputTokens }, atCall, exhausted);
      }
    }
    let costUsd = Infinity;
    if (budgets.maxCostUsd !== undefined) {
      const spent = usage?.costUsd ?? 0;
      costUsd = budgets.maxCostUsd + ((await gate?.grantedUsd()) ?? 0);
      if (spent >= costUsd) {
        const max = costUsd;
        const exhausted = () => new EngineError(`the plan has cost ${usd(spent)} of its ${usd(max)}, as agent ${this.options.agentName} reports`, 'budget', { costUsd: spent, maxCostUsd: max, agent: this.options.agentName });
        if (!gate) throw exhausted();
        // An approved ask raises grantedUsd; the gate only returns here for one it could not use.
        await gate.extend(decision, { limit: 'costUsd', used: spent, max, more: budgets.maxCostUsd }, atCall, exhausted);
        costUsd = budgets.maxCostUsd + (await gate.grantedUsd());
      }
    }
    this.limits = { stepTokens, costUsd };
  }
}
