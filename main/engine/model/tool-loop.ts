import type { ModelMessage } from 'ai';
import { z } from 'zod';
import { type AgentSpec, type BudgetAsk, usd } from '../../../shared/agent';
import { parseOrThrow } from '../../../shared/errors';
import { EngineError } from '../errors';
import { estimateTokens, type FoldReport, fitContext } from './context-window';
import { type ModelToolCall, ModelToolCallSchema, type ToolResult, ToolResultSchema, type TurnResult, withToolResults } from './model-turn';

/** The loop's state; `message` checks each message of the conversation. */
function toolLoopStateSchema(message: z.ZodType<ModelMessage>) {
  return z.object({
    messages: z.array(message),
    /** The last turn's calls not yet answered; the first one is the call being answered. */
    pending: z.array(ModelToolCallSchema),
    /** The answers to the last turn's calls so far. */
    results: z.array(ToolResultSchema),
    /** How many calls went to a tool: an approval is bound to the call's index. */
    callIndex: z.number().int().nonnegative(),
    /** What the loop spent of its budget: turns (an invalid call costs one too) and output tokens. */
    turns: z.number().int().nonnegative(),
    outputTokens: z.number().int().nonnegative(),
    /** What the operator added to the step's budgets when it ran out (absent in sessions saved before). */
    extraTurns: z.number().int().nonnegative().default(0),
    extraOutputTokens: z.number().int().nonnegative().default(0),
    /** Whether the last turn called a tool at all. */
    madeCalls: z.boolean(),
  });
}

/** Where a tool loop stands between two model calls: a step saves it on the plan while one of its calls waits for approval. */
export type ToolLoopState = z.infer<ReturnType<typeof toolLoopStateSchema>>;

export function newToolLoopState(prompt: string): ToolLoopState {
  return { messages: [{ role: 'user', content: prompt }], pending: [], results: [], callIndex: 0, turns: 0, outputTokens: 0, extraTurns: 0, extraOutputTokens: 0, madeCalls: true };
}

/** A saved state read back, its messages checked by the SDK's own schema (loaded on first use, as the SDK is). */
export async function parseToolLoopState(value: unknown, what: string): Promise<ToolLoopState> {
  const { modelMessageSchema } = await import('ai');
  return parseOrThrow(toolLoopStateSchema(modelMessageSchema), value, what);
}

/**
 * Asked when a budget ran out: returns how much more the loop may use, or throws (`exhausted()` is
 * the failure to throw when no more is given).
 */
export type BudgetExtension = (ask: BudgetAsk, atTurn: number, exhausted: () => EngineError) => Promise<number>;

/** The fewest output tokens a turn is sent with: below it (or a quarter of a smaller budget) the step asks for more instead. */
export const MIN_TURN_OUTPUT_TOKENS = 1_024;

/** The plan's cost so far and the extra the operator allowed, in US dollars, for a plan with `maxCostUsd`. */
export interface CostMeter {
  spentUsd(): Promise<number>;
  grantedUsd(): Promise<number>;
}

/**
 * Turns and output tokens one loop may use, counted in its state (an invalid call costs a turn
 * too), and the plan's cost when a meter is given.
 */
export class Budget {
  constructor(
    private readonly spec: AgentSpec,
    private readonly what: string,
    private readonly spent: Pick<ToolLoopState, 'turns' | 'outputTokens' | 'extraTurns' | 'extraOutputTokens'>,
    /** Absent: a budget that runs out fails the loop at once. */
    private readonly extend?: BudgetExtension,
    private readonly cost?: CostMeter,
  ) {}

  private get maxTurns(): number {
    return this.spec.maxTurnsPerStep + this.spent.extraTurns;
  }

  private get maxTokens(): number {
    return this.spec.maxOutputTokens + this.spent.extraOutputTokens;
  }

  get remainingTokens(): number {
    return this.maxTokens - this.spent.outputTokens;
  }

  /** A turn with fewer output tokens than this would likely be cut off mid-call. */
  private get minTurnTokens(): number {
    return Math.min(MIN_TURN_OUTPUT_TOKENS, Math.ceil(this.spec.maxOutputTokens / 4));
  }

  spend(turns: number, outputTokens = 0): void {
    this.spent.turns += turns;
    this.spent.outputTokens += outputTokens;
  }

  /** Before a turn: each budget that is used up (or too low for a turn) is extended, or fails the loop. */
  async check(): Promise<void> {
    if (this.spent.turns >= this.maxTurns) {
      const exhausted = () =>
        new EngineError(`${this.what} used its ${this.maxTurns} turns without finishing`, 'budget', { turns: this.spent.turns, maxTurnsPerStep: this.maxTurns });
      if (!this.extend) throw exhausted();
      this.spent.extraTurns += await this.extend({ limit: 'turns', used: this.spent.turns, max: this.maxTurns, more: this.spec.maxTurnsPerStep }, this.spent.turns, exhausted);
    }
    if (this.remainingTokens < this.minTurnTokens) {
      const left = this.remainingTokens;
      const exhausted = () =>
        new EngineError(
          left > 0
            ? `${this.what} has ${left} of its ${this.maxTokens} output tokens left, too few for a turn`
            : `${this.what} used its ${this.maxTokens} output tokens without finishing`,
          'budget',
          { outputTokens: this.spent.outputTokens, maxOutputTokens: this.maxTokens },
        );
      if (!this.extend) throw exhausted();
      this.spent.extraOutputTokens += await this.extend(
        { limit: 'outputTokens', used: this.spent.outputTokens, max: this.maxTokens, more: this.spec.maxOutputTokens },
        this.spent.turns,
        exhausted,
      );
    }
    const maxCost = this.spec.maxCostUsd;
    if (this.cost && maxCost !== undefined) {
      const spent = await this.cost.spentUsd();
      const max = maxCost + (await this.cost.grantedUsd());
      if (spent >= max) {
        const exhausted = () => new EngineError(`the plan has cost ${usd(spent)} of its ${usd(max)}`, 'budget', { costUsd: spent, maxCostUsd: max });
        if (!this.extend) throw exhausted();
        // The grant is counted by the meter from then on.
        await this.extend({ limit: 'costUsd', used: spent, max, more: maxCost }, this.spent.turns, exhausted);
      }
    }
  }
}

/** The answer to a call: its text for the model, and whether it reports a failure. */
export type ToolAnswer = Pick<ToolResult, 'text' | 'isError'>;

/** What a phase (strategize, a step of execute) brings to the tool loop. */
export interface ToolLoopHandlers<T> {
  /** The tool whose call ends the loop: propose_plan, finish_step. */
  finishTool: string;
  /**
   * Reads a call of the finishing tool, an invalid one included: the loop's value, or what is wrong
   * with the call (null: nothing to hold against the turn), each with its answer if the model is to get one.
   */
  finish(call: ModelToolCall): { value: T; answer?: ToolAnswer } | { problem: string | null; answer?: ToolAnswer };
  /** Answers a valid call of one of the phase's other tools, the loop's `index`th; throwing ends the loop. */
  answer(call: ModelToolCall, index: number): Promise<ToolAnswer>;
  /**
   * After a turn that did not finish, given what was wrong with its finishing call and whether it
   * called a tool at all: the note the model gets with the answers, if any. Throwing ends the loop.
   */
  next(turn: { problem: string | null; madeCalls: boolean }): string | null;
  /** Before each model call. */
  beforeTurn?(): void;
}

/**
 * The model's turns until it calls the phase's finishing tool: each turn's calls are answered in
 * order, and the answers go back with the next turn. `state` is updated in place, so a phase that
 * stops inside `answer` (a call waiting for approval) can save it and go on from it later.
 */
export async function runToolLoop<T>(args: {
  state: ToolLoopState;
  budget: Budget;
  handlers: ToolLoopHandlers<T>;
  /** The window every request must fit in, what the system prompt and tools take of it, and who hears of a fold. */
  context?: { limitTokens: number; fixedTokens: number; onFold(report: FoldReport & { contextTokens: number }): Promise<unknown> | void };
  /** One model call over the conversation so far. */
  turn(messages: ModelMessage[], maxOutputTokens: number): Promise<TurnResult>;
}): Promise<T> {
  const { state, budget, handlers, context } = args;
  for (;;) {
    if (state.pending.length === 0) {
      await budget.check();
      handlers.beforeTurn?.();
      let maxOutputTokens = budget.remainingTokens;
      if (context) {
        // The answer needs room in the window too: up to a quarter of it is kept free for the output.
        const reserve = Math.min(maxOutputTokens, Math.floor(context.limitTokens / 4));
        const fit = fitContext(state.messages, context.limitTokens - reserve, context.fixedTokens);
        if (fit) {
          state.messages = fit.messages;
          await context.onFold({ ...fit.report, contextTokens: context.limitTokens });
        }
        const used = fit?.report.afterTokens ?? context.fixedTokens + estimateTokens(state.messages);
        maxOutputTokens = Math.min(maxOutputTokens, Math.max(reserve, context.limitTokens - used));
      }
      const turn = await args.turn(state.messages, maxOutputTokens);
      budget.spend(1, turn.outputTokens);
      state.messages = [...state.messages, ...turn.messages];
      state.pending = turn.toolCalls;
      state.results = [];
      state.madeCalls = turn.toolCalls.length > 0;
    }
    let finished: { value: T } | null = null;
    let problem: string | null = null;
    while (state.pending.length > 0) {
      const call = state.pending[0];
      if (call.name === handlers.finishTool) {
        const outcome = handlers.finish(call);
        if ('value' in outcome) finished = outcome;
        else problem = outcome.problem ?? problem;
        if (outcome.answer) state.results.push({ id: call.id, name: call.name, ...outcome.answer });
      } else if (call.invalid) {
        // The SDK already answered it with the error; it costs a turn.
        budget.spend(1);
      } else {
        state.results.push({ id: call.id, name: call.name, ...(await handlers.answer(call, state.callIndex)) });
        state.callIndex += 1;
      }
      state.pending = state.pending.slice(1);
    }
    if (finished) return finished.value;
    const note = handlers.next({ problem, madeCalls: state.madeCalls });
    state.messages = withToolResults(state.messages, state.results);
    state.results = [];
    if (note !== null) state.messages = [...state.messages, { role: 'user', content: note }];
  }
}
