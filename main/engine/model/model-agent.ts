import { normalizeCheck } from '../../../shared/checks';
import type { LanguageModel, ToolSet } from 'ai';
import { addUsage, type AgentSpec, contextTokensOf, costOf, type PlanUsage, type Price, type StepUsage } from '../../../shared/agent';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import type { EventData, StreamEventType } from '../../../shared/events';
import { newId } from '../../../shared/ids';
import type { BudgetGate } from '../gates/budget-gate';
import { ApprovalPending, EngineError, errorCategoryOf, ToolCallError } from '../errors';
import type { PlanLifecycleService } from '../run/lifecycle';
import type { StepRunner } from '../run/runtime-execute-actor';
import { acceptedInvariants, rootDecision, type StrategizeResult } from '../run/strategize-actor';
import type { ToolRunner } from '../run/tool-runner';
import { FINISH_STEP, finishStepTool, modelToolName, modelToolSet, PROPOSE_PLAN, type ProposedPlan, proposedPlanSchema, proposePlanTool, resultText } from './model-tools';
import { estimateTokens, estimateToolTokens } from './context-window';
import { DeltaBatcher, type ModelToolCall, runTurn, type TurnResult } from './model-turn';
import { instructionsSection, type ProjectInstructions, projectInstructions, stepFolder } from './instructions';
import { type CorrectionContext, EXECUTE_SYSTEM, executePrompt, STRATEGIZE_SYSTEM, strategizePrompt } from './prompts';
import type { ModelConfig } from './provider';
import { type ReviewFeedback, reviewFeedbackText } from './review-feedback';
import { Budget, newToolLoopState, parseToolLoopState, runToolLoop, type ToolLoopHandlers, type ToolLoopState } from './tool-loop';

/** How often an invalid proposal goes back to the model before strategize fails with `model_output`. */
export const MAX_OUTPUT_CORRECTIONS = 3;
/** Characters of one tool result the model sees. */
export const RESULT_LIMIT = 8_000;
/** Read calls strategize may make. */
export const MAX_STRATEGIZE_READS = 40;

/** Emits one of the plan's events, typed by shared/events.ts. */
export type Emit = <T extends StreamEventType>(type: T, data: EventData<T>) => void | Promise<unknown>;

export interface ModelAgentOptions {
  model: LanguageModel;
  config: ModelConfig;
  spec: AgentSpec;
  toolRunner: ToolRunner;
  lifecycle: PlanLifecycleService;
  sandboxRoot: string | null;
  /** Before each step: adds the tools the plan brings (its MCP servers' tools) to the registry; throwing fails the step (ApprovalPending: it waits, for a sign-in). */
  prepareTools?: (step: StrategyDecision) => Promise<void>;
  /** Asks the operator for more when a step runs out of turns or output tokens; absent, the step fails. */
  budgetGate?: BudgetGate;
  /** The price in effect (the settings'), which the plan's `maxCostUsd` is checked at. */
  price?: Price | null;
  /** The operator's review so far (declined hunks, hand edits), read as each step starts: every step's prompt tells of it. */
  reviewFeedback?: () => Promise<ReviewFeedback>;
}

/** A rejected proposal and the operator's reason, for the next proposal. */
export interface Rejection {
  reason: string;
  previous: string;
}

/** Only failures the model can act on go back to it; the rest fail the step, as a scripted call would. */
function backToModel(error: unknown): boolean {
  const category = errorCategoryOf(error) ?? (error instanceof ToolCallError && error.invocation.error?.category);
  return category === 'validation' || category === 'tool';
}

/**
 * A model that strategizes and executes a plan: the model-driven strategize and execute actors,
 * chosen per plan. Every tool call goes through the ToolRunner.
 */
export class ModelAgent {
  constructor(private readonly options: ModelAgentOptions) {}

  /**
   * Runs one phase's tool loop over `tools` and its finishing tool: each model call's text streamed
   * out in batches, its tokens recorded on the plan.
   */
  private loop<T>(
    args: { planId: string; decisionId: string | null; phase: 'strategize' | 'execute'; system: string; tools: ToolSet; state: ToolLoopState; budget: Budget; emit: Emit },
    handlers: ToolLoopHandlers<T>,
  ): Promise<T> {
    const { planId, decisionId, phase, emit } = args;
    const batcher = new DeltaBatcher((text) => emit('model_output', { decisionId, phase, text }));
    const { spec, config } = this.options;
    return runToolLoop({
      state: args.state,
      budget: args.budget,
      handlers,
      context: {
        limitTokens: contextTokensOf({ contextTokens: spec.contextTokens, model: `${config.provider}:${config.model}` }),
        fixedTokens: estimateTokens(args.system) + estimateToolTokens(args.tools),
        onFold: (report) => emit('context_folded', { decisionId, phase, ...report }),
      },
      turn: async (messages, maxOutputTokens) => {
        let turn: TurnResult;
        const startedAt = new Date().toISOString();
        try {
          turn = await runTurn({ ...this.options, system: args.system, messages, tools: args.tools, maxOutputTokens, onText: (delta) => batcher.push(delta) });
        } catch (error) {
          await batcher.flush();
          await this.failedCall(planId, decisionId, phase, emit, { provider: config.provider, model: config.model, startedAt }, error);
          throw error;
        } finally {
          await batcher.flush();
        }
        const cached = turn.cachedInputTokens ? { cachedInputTokens: turn.cachedInputTokens } : {};
        const call = { provider: config.provider, model: config.model, startedAt, ...(turn.responseModel ? { responseModel: turn.responseModel } : {}), ...(turn.finishReason ? { finishReason: turn.finishReason } : {}) };
        await this.recordUsage(planId, { decisionId, phase, inputTokens: turn.inputTokens, ...cached, outputTokens: turn.outputTokens, turns: 1, summary: null }, emit, call);
        return turn;
      },
    });
  }

  /** Adds tokens to the plan's usage, persists it, and says so in a model_usage event. */
  private recordUsage(planId: string, delta: StepUsage, emit: Emit | null, call?: ModelCallFacts): Promise<PlanUsage> {
    return recordPlanUsage(this.options.lifecycle, planId, delta, emit, call);
  }

  /**
   * Says a model call failed, in a model_usage event with no tokens (its trace span fails with the
   * error's category). The usage is read, not written; saying it must not hide the call's error.
   */
  private async failedCall(planId: string, decisionId: string | null, phase: 'strategize' | 'execute', emit: Emit, call: ModelCallFacts, error: unknown): Promise<void> {
    if (error instanceof Error && error.name === 'AbortError') return;
    try {
      const usage = (await this.options.lifecycle.getPlan(planId)).usage;
      const step = usage?.steps.find((s) => s.decisionId === decisionId && s.phase === phase);
      const type = errorCategoryOf(error) ?? (error instanceof Error ? error.name : '_OTHER');
      await emit('model_usage', {
        decisionId,
        phase,
        inputTokens: 0,
        outputTokens: 0,
        stepInputTokens: step?.inputTokens ?? 0,
        stepOutputTokens: step?.outputTokens ?? 0,
        planInputTokens: usage?.inputTokens ?? 0,
        planOutputTokens: usage?.outputTokens ?? 0,
        ...call,
        error: { type, message: (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 500) },
      });
    } catch {
      // The call's own error is the one the run reports.
    }
  }

  /** The proposal as decisions: a root for the definition of done, and one step per proposed step. */
  private async toDecisions(plan: Plan, proposal: ProposedPlan): Promise<{ rootId: string; decisions: StrategyDecision[] }> {
    const now = new Date().toISOString();
    // A new proposal (after a rejection, or replan) goes under the tree's root, after the steps it replaces.
    const existing = plan.decisionRootId ? (await this.options.lifecycle.listDecisions(plan.id)).filter((d) => d.parentId === plan.decisionRootId) : [];
    const first = existing.length > 0 ? Math.max(...existing.map((d) => d.order)) + 1 : 1;
    const rootId = plan.decisionRootId ?? newId();
    const root = rootDecision(plan, `Proposed by ${this.options.config.provider}:${this.options.config.model} from the definition of done`, rootId, now);
    const steps = proposal.steps.map<StrategyDecision>((step, index) => ({
      id: newId(),
      planId: plan.id,
      parentId: rootId,
      type: 'strategy_choice',
      order: first + index,
      description: step.description,
      rationale: `${step.rationale}\nAcceptance: ${step.acceptance}`,
      ...(step.check ? { check: normalizeCheck({ name: step.check, run: step.check }, 'step') } : {}),
      toolCalls: (step.toolCalls ?? []).map((c) => ({ tool: this.sandboxToolName(c.tool) ?? c.tool, args: c.args })),
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    }));
    return { rootId, decisions: plan.decisionRootId ? steps : [root, ...steps] };
  }

  /** `file.write` or the model's `file_write` -> `file.write`; undefined for an unknown tool. */
  private sandboxToolName(name: string): string | undefined {
    return this.options.toolRunner.registry.names().find((tool) => tool === name || modelToolName(tool) === name);
  }

  /** Checks what zod cannot: the tools a step proposes must exist. */
  private proposalProblem(proposal: ProposedPlan): string | null {
    for (const [i, step] of proposal.steps.entries()) {
      for (const call of step.toolCalls ?? []) {
        if (!this.sandboxToolName(call.tool)) return `steps[${i}].toolCalls: unknown tool "${call.tool}"; the tools are ${this.options.toolRunner.registry.names().join(', ')}`;
      }
    }
    return null;
  }

  /** Read-only strategize: the model reads the project, then proposes the tree through propose_plan. */
  async strategize(plan: Plan, projectInvariants: readonly string[], emit: Emit, rejection?: Rejection): Promise<StrategizeResult> {
    const { registry } = this.options.toolRunner;
    const read = modelToolSet(registry, registry.names('read'));
    // A replan by the model is told of the review, as a correction and every step are.
    const prompt = [strategizePrompt(plan, projectInvariants, rejection, await this.reviewText()), instructionsSection(await this.instructions(''))];
    const state = newToolLoopState(prompt.filter(Boolean).join('\n\n'));
    const budget = new Budget(this.options.spec, 'strategize', state);
    let invalidProposals = 0;
    const proposal = await this.loop<ProposedPlan>(
      { planId: plan.id, decisionId: null, phase: 'strategize', system: STRATEGIZE_SYSTEM, tools: { ...read.tools, [PROPOSE_PLAN]: proposePlanTool() }, state, budget, emit },
      {
        finishTool: PROPOSE_PLAN,
        finish: (call) => {
          if (call.invalid) return { problem: call.error ?? 'the proposal does not match the schema' };
          const parsed = proposedPlanSchema().safeParse(call.input);
          const problem = parsed.success ? this.proposalProblem(parsed.data) : parsed.error.message;
          if (parsed.success && problem === null) return { value: parsed.data };
          return { problem, answer: { text: `Invalid proposal: ${problem}. Call propose_plan again.`, isError: true } };
        },
        answer: async (call, index) => {
          if (index >= MAX_STRATEGIZE_READS) return { text: `Read budget of ${MAX_STRATEGIZE_READS} calls used up: call propose_plan now.`, isError: true };
          try {
            const invocation = await this.options.toolRunner.execute(engineCall(call, read.engineName), { planId: plan.id, decisionId: null, sandboxRoot: this.options.sandboxRoot });
            return { text: resultText(invocation.result, RESULT_LIMIT), isError: false };
          } catch (error) {
            return { text: error instanceof Error ? error.message : String(error), isError: true };
          }
        },
        next: ({ problem, madeCalls }) => {
          const wrong = problem ?? (madeCalls ? null : 'you answered without calling propose_plan');
          if (wrong === null) return null;
          invalidProposals += 1;
          if (invalidProposals > MAX_OUTPUT_CORRECTIONS) {
            throw new EngineError(`the model's proposal did not validate after ${MAX_OUTPUT_CORRECTIONS} corrections: ${wrong}`, 'model_output', { corrections: MAX_OUTPUT_CORRECTIONS });
          }
          return madeCalls ? null : `Your output was not valid: ${wrong}. Call propose_plan with the steps.`;
        },
      },
    );
    const { rootId, decisions } = await this.toDecisions(plan, proposal);
    const invariantRecords = acceptedInvariants(projectInvariants, plan.invariants);
    return { decisionRootId: rootId, decisions, invariantRecords };
  }

  /** Executes each decision by a model loop; `corrections` add a failure and a note to one step's context. */
  stepRunner(plan: Plan, corrections: ReadonlyMap<string, CorrectionContext> = new Map()): StepRunner {
    const { registry } = this.options.toolRunner;
    const { lifecycle } = this.options;
    return {
      run: async (decision, context) => {
        const { emit, flush, runCall } = context;
        await this.options.prepareTools?.(decision);
        const sandbox = modelToolSet(registry, registry.names());
        const tools = { ...sandbox.tools, [FINISH_STEP]: finishStepTool() };
        const current = await lifecycle.getPlan(plan.id);
        const what = `step "${decision.description}"`;
        // A step that stopped for an approval goes on from its saved conversation; any other starts afresh.
        const saved = current.agentSession?.decisionId === decision.id ? current.agentSession.state : null;
        if (current.agentSession) await lifecycle.update(plan.id, { agentSession: null });
        const state = saved ? await this.savedState(saved, what) : newToolLoopState(await this.stepPrompt(current, decision, context, corrections));
        const gate = this.options.budgetGate;
        const budget = new Budget(this.options.spec, what, state, gate ? (ask, atTurn, exhausted) => gate.extend(decision, ask, atTurn, exhausted) : undefined, this.costMeter(plan.id));
        const summary = await this.loop<string>(
          { planId: plan.id, decisionId: decision.id, phase: 'execute', system: EXECUTE_SYSTEM, tools, state, budget, emit },
          {
            finishTool: FINISH_STEP,
            finish: (call) => {
              if (!call.invalid) return { value: String((call.input as { summary?: unknown }).summary ?? ''), answer: { text: 'Step finished.', isError: false } };
              // The SDK already answered it with the error; it costs a turn.
              budget.spend(1);
              return { problem: null };
            },
            answer: async (call, index) => {
              try {
                const invocation = await runCall(engineCall(call, sandbox.engineName), index);
                return { text: resultText(invocation.result ?? 'ok', RESULT_LIMIT), isError: false };
              } catch (error) {
                if (error instanceof ApprovalPending || !backToModel(error)) throw error;
                budget.spend(1);
                return { text: `Error: ${error instanceof Error ? error.message : String(error)}`, isError: true };
              }
            },
            next: ({ madeCalls }) => (madeCalls ? null : 'Call a tool to make progress, or finish_step with a summary when the step is done.'),
            // What is queued is committed before the (slow) model call.
            beforeTurn: flush,
          },
        ).catch(async (error: unknown) => {
          // The step goes on from here once the operator answers: a call waiting is still the first pending one, and a budget is asked before the next turn.
          if (error instanceof ApprovalPending) await lifecycle.update(plan.id, { agentSession: { decisionId: decision.id, state: { ...state } } });
          throw error;
        });
        await this.recordUsage(plan.id, { decisionId: decision.id, phase: 'execute', inputTokens: 0, outputTokens: 0, turns: 0, summary }, null);
      },
    };
  }

  /** The plan's cost at the price in effect, for its `maxCostUsd`; none without a price (the run refuses to start then: settings.ts). */
  private costMeter(planId: string) {
    const { price, budgetGate } = this.options;
    if (!price || this.options.spec.maxCostUsd === undefined) return undefined;
    return {
      spentUsd: async () => costOf((await this.options.lifecycle.getPlan(planId)).usage ?? { inputTokens: 0, outputTokens: 0 }, price) ?? 0,
      grantedUsd: async () => (await budgetGate?.grantedUsd()) ?? 0,
    };
  }

  /** The project's AGENTS.md for a folder (the closest one), read from the sandbox; none when the plan turns it off or has no sandbox. */
  private async instructions(folder: string): Promise<ProjectInstructions | null> {
    const root = this.options.sandboxRoot;
    if (this.options.spec.instructions === false || root === null) return null;
    return await projectInstructions(root, folder);
  }

  /** The operator's review so far as a prompt section, within its size budget; empty when there is none. */
  private async reviewText(): Promise<string> {
    return this.options.reviewFeedback ? reviewFeedbackText(await this.options.reviewFeedback()) : '';
  }

  /** A step's first message: its place in the plan, what earlier steps did, and a correction if the operator asked for one. */
  private async stepPrompt(plan: Plan, decision: StrategyDecision, context: { index: number; total: number }, corrections: ReadonlyMap<string, CorrectionContext>): Promise<string> {
    const steps = (await this.options.lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'strategy_choice' && d.status !== 'skipped');
    return executePrompt({
      plan,
      decision,
      index: context.index,
      total: context.total,
      earlier: plan.usage?.steps.filter((s) => s.phase === 'execute') ?? [],
      steps,
      correction: corrections.get(decision.id),
      review: await this.reviewText(),
      instructions: instructionsSection(await this.instructions(stepFolder(decision))),
    });
  }

  /** The conversation a step saved when it stopped for an approval; one that does not read back fails the step, and a retry starts it afresh. */
  private async savedState(saved: unknown, what: string): Promise<ToolLoopState> {
    try {
      return await parseToolLoopState(saved, 'agentSession.state');
    } catch (error) {
      throw new EngineError(`${what}: its saved conversation cannot be continued (${error instanceof Error ? error.message : String(error)})`, 'internal');
    }
  }
}

/** The ToolRunner's form of a model's call: `file_write` is `file.write` again. */
function engineCall(call: ModelToolCall, engineName: ReadonlyMap<string, string>): { tool: string; args: Record<string, unknown> } {
  return { tool: engineName.get(call.name) ?? call.name, args: (call.input ?? {}) as Record<string, unknown> };
}

/** What a model_usage event says of the call itself: its model, why it stopped, when it began. */
export type ModelCallFacts = Pick<EventData<'model_usage'>, 'provider' | 'model' | 'responseModel' | 'finishReason' | 'startedAt'>;

/** Adds tokens to the plan's usage, persists it, and says so in a model_usage event (any agent's: ours, or one over ACP). */
export async function recordPlanUsage(lifecycle: PlanLifecycleService, planId: string, delta: StepUsage, emit: Emit | null, call: ModelCallFacts = {}): Promise<PlanUsage> {
  // Read and written in one unit: another task's update of the plan cannot fall between.
  const usage = await lifecycle.unit(async () => {
    const next = addUsage((await lifecycle.getPlan(planId)).usage, delta);
    await lifecycle.update(planId, { usage: next });
    return next;
  });
  if (!emit) return usage;
  const step = usage.steps.find((s) => s.decisionId === delta.decisionId && s.phase === delta.phase);
  await emit('model_usage', {
    decisionId: delta.decisionId,
    phase: delta.phase,
    inputTokens: delta.inputTokens,
    ...(delta.cachedInputTokens ? { cachedInputTokens: delta.cachedInputTokens } : {}),
    outputTokens: delta.outputTokens,
    ...(delta.costUsd ? { costUsd: delta.costUsd } : {}),
    ...(usage.costUsd !== undefined ? { planCostUsd: usage.costUsd } : {}),
    stepInputTokens: step?.inputTokens ?? 0,
    stepOutputTokens: step?.outputTokens ?? 0,
    planInputTokens: usage.inputTokens,
    planOutputTokens: usage.outputTokens,
    ...call,
  });
  return usage;
}
