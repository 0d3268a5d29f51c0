import type { LanguageModel, ModelMessage, ToolSet } from 'ai';
import { addUsage, type AgentSpec, type PlanUsage, type StepUsage } from '../../../shared/agent';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import type { EventData, StreamEventType } from '../../../shared/events';
import { newId } from '../../../shared/ids';
import { ApprovalPending, EngineError, errorCategoryOf, ToolCallError } from '../errors';
import type { PlanLifecycleService } from '../lifecycle';
import type { RunToolCall, StepRunner } from '../runtime-execute-actor';
import { type InvariantRecord, rootDecision, type StrategizeResult } from '../strategize-actor';
import type { ToolRunner } from '../tool-runner';
import {
  FINISH_STEP,
  finishStepTool,
  modelToolName,
  modelToolSet,
  PROPOSE_PLAN,
  type ProposedPlan,
  ProposedPlanSchema,
  proposePlanTool,
  READ_ONLY_TOOLS,
  resultText,
} from './model-tools';
import { DeltaBatcher, type ModelToolCall, runTurn, withToolResults } from './model-turn';
import { type CorrectionContext, EXECUTE_SYSTEM, executePrompt, STRATEGIZE_SYSTEM, strategizePrompt } from './prompts';
import type { ModelConfig } from './provider';

/** How often an invalid proposal goes back to the model before strategize fails with `model_output`. */
export const MAX_OUTPUT_CORRECTIONS = 3;
/** Characters of one tool result the model sees. */
export const RESULT_LIMIT = 8_000;
/** Read calls strategize may make. */
export const MAX_STRATEGIZE_READS = 40;

const SANDBOX_TOOLS = ['file.read', 'file.write', 'file.edit', 'file.delete', 'file.rename', 'file.list', 'file.search', 'shell.run'];

/** `file.write` or the model's `file_write` -> `file.write`; undefined for an unknown tool. */
function sandboxToolName(name: string): string | undefined {
  return SANDBOX_TOOLS.find((tool) => tool === name || modelToolName(tool) === name);
}

/** Emits one of the plan's events, typed by shared/events.ts. */
type Emit = <T extends StreamEventType>(type: T, data: EventData<T>) => void;

export interface ModelAgentOptions {
  model: LanguageModel;
  config: ModelConfig;
  spec: AgentSpec;
  toolRunner: ToolRunner;
  lifecycle: PlanLifecycleService;
  sandboxRoot: string | null;
}

/** Where a model step stands between two model calls; saved on the plan while a call waits for approval. */
interface StepSession {
  messages: ModelMessage[];
  /** The last turn's calls not yet run; the first one is the call that waits. */
  pending: ModelToolCall[];
  results: ToolResult[];
  /** How many calls of the step went to the ToolRunner: an approval is bound to the call's index. */
  callIndex: number;
  turns: number;
  outputTokens: number;
  madeCalls: boolean;
}

type ToolResult = { id: string; name: string; text: string; isError: boolean };

/** A rejected proposal and the operator's reason, for the next proposal. */
export interface Rejection {
  reason: string;
  previous: string;
}

/** Turns and output tokens one step may use; an invalid call costs a turn too. */
class Budget {
  turns = 0;
  outputTokens = 0;
  constructor(
    private readonly spec: AgentSpec,
    private readonly what: string,
  ) {}

  get remainingTokens(): number {
    return this.spec.maxOutputTokens - this.outputTokens;
  }

  spend(turns: number, outputTokens = 0): void {
    this.turns += turns;
    this.outputTokens += outputTokens;
  }

  check(): void {
    if (this.turns >= this.spec.maxTurnsPerStep) {
      throw new EngineError(`${this.what} used its ${this.spec.maxTurnsPerStep} turns without finishing`, 'budget', {
        turns: this.turns,
        maxTurnsPerStep: this.spec.maxTurnsPerStep,
      });
    }
    if (this.remainingTokens <= 0) {
      throw new EngineError(`${this.what} used its ${this.spec.maxOutputTokens} output tokens without finishing`, 'budget', {
        outputTokens: this.outputTokens,
        maxOutputTokens: this.spec.maxOutputTokens,
      });
    }
  }
}

/** Only failures the model can act on go back to it; the rest fail the step, as a scripted call would. */
function backToModel(error: unknown): boolean {
  const category = errorCategoryOf(error) ?? (error instanceof ToolCallError && error.invocation.error?.category);
  return category === 'validation' || category === 'tool';
}

/**
 * A model that strategizes and executes a plan: model-driven implementations of the seed's actors,
 * chosen per plan. Every tool call goes through the ToolRunner.
 */
export class ModelAgent {
  constructor(private readonly options: ModelAgentOptions) {}

  /** One model call of either phase: its text streamed out in batches, its tokens charged to the budget and recorded. */
  private async turn(args: {
    planId: string;
    decisionId: string | null;
    phase: 'strategize' | 'execute';
    system: string;
    messages: ModelMessage[];
    tools: ToolSet;
    budget: Budget;
    batcher: DeltaBatcher;
    emit: Emit;
  }) {
    const { budget, batcher } = args;
    let turn;
    try {
      turn = await runTurn({ ...this.options, system: args.system, messages: args.messages, tools: args.tools, maxOutputTokens: budget.remainingTokens, onText: (delta) => batcher.push(delta) });
    } finally {
      batcher.flush();
    }
    budget.spend(1, turn.outputTokens);
    const usage = { decisionId: args.decisionId, phase: args.phase, inputTokens: turn.inputTokens, outputTokens: turn.outputTokens, turns: 1, summary: null };
    this.recordUsage(args.planId, usage, args.emit);
    return turn;
  }

  /** Adds tokens to the plan's usage, persists it, and says so in a model_usage event. */
  private recordUsage(planId: string, delta: StepUsage, emit: Emit): PlanUsage {
    const usage = addUsage(this.options.lifecycle.getPlan(planId).usage, delta);
    this.options.lifecycle.update(planId, { usage });
    const step = usage.steps.find((s) => s.decisionId === delta.decisionId && s.phase === delta.phase);
    emit('model_usage', {
      decisionId: delta.decisionId,
      phase: delta.phase,
      inputTokens: delta.inputTokens,
      outputTokens: delta.outputTokens,
      stepInputTokens: step?.inputTokens ?? 0,
      stepOutputTokens: step?.outputTokens ?? 0,
      planInputTokens: usage.inputTokens,
      planOutputTokens: usage.outputTokens,
    });
    return usage;
  }

  /** The proposal as decisions: a root for the definition of done, and one step per proposed step. */
  private toDecisions(plan: Plan, proposal: ProposedPlan): { rootId: string; decisions: StrategyDecision[] } {
    const now = new Date().toISOString();
    // A new proposal (after a rejection, or replan) goes under the tree's root, after the steps it replaces.
    const existing = plan.decisionRootId ? this.options.lifecycle.listDecisions(plan.id).filter((d) => d.parentId === plan.decisionRootId) : [];
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
      toolCalls: (step.toolCalls ?? []).map((c) => ({ tool: sandboxToolName(c.tool) ?? c.tool, args: c.args })),
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    }));
    return { rootId, decisions: plan.decisionRootId ? steps : [root, ...steps] };
  }

  /** Checks what zod cannot: the tools a step proposes must exist. */
  private proposalProblem(proposal: ProposedPlan): string | null {
    for (const [i, step] of proposal.steps.entries()) {
      for (const call of step.toolCalls ?? []) {
        if (!sandboxToolName(call.tool)) return `steps[${i}].toolCalls: unknown tool "${call.tool}"; the tools are ${SANDBOX_TOOLS.join(', ')}`;
      }
    }
    return null;
  }

  /** Read-only strategize: the model reads the project, then proposes the tree through propose_plan. */
  async strategize(plan: Plan, projectInvariants: readonly string[], emit: Emit, rejection?: Rejection): Promise<StrategizeResult> {
    const { registry } = this.options.toolRunner;
    const read = modelToolSet(registry, READ_ONLY_TOOLS);
    const tools = { ...read.tools, [PROPOSE_PLAN]: proposePlanTool() };
    const budget = new Budget(this.options.spec, 'strategize');
    const batcher = new DeltaBatcher((text) => emit('model_output', { decisionId: null, phase: 'strategize', text }));
    let messages: ModelMessage[] = [{ role: 'user', content: strategizePrompt(plan, projectInvariants, rejection) }];
    let invalidProposals = 0;
    let reads = 0;
    for (;;) {
      budget.check();
      const turn = await this.turn({ planId: plan.id, decisionId: null, phase: 'strategize', system: STRATEGIZE_SYSTEM, messages, tools, budget, batcher, emit });
      messages = [...messages, ...turn.messages];
      const results: { id: string; name: string; text: string; isError: boolean }[] = [];
      let proposal: ProposedPlan | null = null;
      let problem: string | null = null;
      for (const call of turn.toolCalls) {
        if (call.name === PROPOSE_PLAN) {
          if (call.invalid) {
            problem = call.error ?? 'the proposal does not match the schema';
            continue;
          }
          const parsed = ProposedPlanSchema.safeParse(call.input);
          const semantic = parsed.success ? this.proposalProblem(parsed.data) : parsed.error.message;
          if (parsed.success && semantic === null) proposal = parsed.data;
          else {
            problem = semantic;
            results.push({ id: call.id, name: call.name, text: `Invalid proposal: ${semantic}. Call propose_plan again.`, isError: true });
          }
          continue;
        }
        if (call.invalid) {
          budget.spend(1);
          continue;
        }
        reads += 1;
        if (reads > MAX_STRATEGIZE_READS) {
          results.push({ id: call.id, name: call.name, text: `Read budget of ${MAX_STRATEGIZE_READS} calls used up: call propose_plan now.`, isError: true });
          continue;
        }
        results.push(await this.readCall(plan.id, call, read.engineName));
      }
      if (proposal) {
        const { rootId, decisions } = this.toDecisions(plan, proposal);
        const invariantRecords: InvariantRecord[] = [
          ...projectInvariants.map((invariant) => ({ scope: 'project' as const, invariant, status: 'accepted' as const, enforcement: 'stub' as const })),
          ...plan.invariants.map((invariant) => ({ scope: 'action' as const, invariant, status: 'accepted' as const, enforcement: 'stub' as const })),
        ];
        return { decisionRootId: rootId, decisions, invariantRecords };
      }
      if (problem === null && turn.toolCalls.length === 0) problem = 'you answered without calling propose_plan';
      if (problem !== null) {
        invalidProposals += 1;
        if (invalidProposals > MAX_OUTPUT_CORRECTIONS) {
          throw new EngineError(`the model's proposal did not validate after ${MAX_OUTPUT_CORRECTIONS} corrections: ${problem}`, 'model_output', {
            corrections: MAX_OUTPUT_CORRECTIONS,
          });
        }
        if (turn.toolCalls.length === 0) messages = [...messages, { role: 'user', content: `Your output was not valid: ${problem}. Call propose_plan with the steps.` }];
      }
      messages = withToolResults(messages, results);
    }
  }

  private async readCall(planId: string, call: ModelToolCall, engineName: Map<string, string>) {
    const tool = engineName.get(call.name) ?? call.name;
    try {
      const invocation = await this.options.toolRunner.execute(
        { tool, args: (call.input ?? {}) as Record<string, unknown> },
        { planId, decisionId: null, sandboxRoot: this.options.sandboxRoot },
      );
      return { id: call.id, name: call.name, text: resultText(invocation.result, RESULT_LIMIT), isError: false };
    } catch (error) {
      return { id: call.id, name: call.name, text: error instanceof Error ? error.message : String(error), isError: true };
    }
  }

  /** Executes each decision by a model loop; `corrections` add a failure and a note to one step's context. */
  stepRunner(plan: Plan, corrections: ReadonlyMap<string, CorrectionContext> = new Map()): StepRunner {
    const { registry } = this.options.toolRunner;
    const sandbox = modelToolSet(registry, SANDBOX_TOOLS);
    const tools = { ...sandbox.tools, [FINISH_STEP]: finishStepTool() };
    const { lifecycle } = this.options;
    return {
      run: async (decision, context) => {
        const { emit, flush, runCall } = context;
        const current = lifecycle.getPlan(plan.id);
        const budget = new Budget(this.options.spec, `step "${decision.description}"`);
        const batcher = new DeltaBatcher((text) => emit('model_output', { decisionId: decision.id, phase: 'execute', text }));
        // A step that stopped for an approval goes on from its saved conversation; any other starts afresh.
        const saved = current.agentSession?.decisionId === decision.id ? (current.agentSession.state as unknown as StepSession) : null;
        if (current.agentSession) lifecycle.update(plan.id, { agentSession: null });
        let session: StepSession;
        if (saved) {
          session = saved;
          budget.spend(saved.turns, saved.outputTokens);
        } else {
          const steps = lifecycle.listDecisions(plan.id).filter((d) => d.type === 'strategy_choice' && d.status !== 'skipped');
          const prompt = executePrompt({
            plan: current,
            decision,
            index: context.index,
            total: context.total,
            earlier: current.usage?.steps.filter((s) => s.phase === 'execute') ?? [],
            steps,
            correction: corrections.get(decision.id),
          });
          session = { messages: [{ role: 'user', content: prompt }], pending: [], results: [], callIndex: 0, turns: 0, outputTokens: 0, madeCalls: true };
        }
        for (;;) {
          if (session.pending.length === 0) {
            budget.check();
            // What is queued is committed before the (slow) model call.
            flush();
            const turn = await this.turn({ planId: plan.id, decisionId: decision.id, phase: 'execute', system: EXECUTE_SYSTEM, messages: session.messages, tools, budget, batcher, emit });
            session = { ...session, messages: [...session.messages, ...turn.messages], pending: turn.toolCalls, results: [], madeCalls: turn.toolCalls.length > 0 };
          }
          let summary: string | null = null;
          while (session.pending.length > 0) {
            const call = session.pending[0];
            if (call.invalid) {
              // The SDK already answered it with the error; it costs a turn.
              budget.spend(1);
            } else if (call.name === FINISH_STEP) {
              summary = String((call.input as { summary?: unknown }).summary ?? '');
              session.results.push({ id: call.id, name: call.name, text: 'Step finished.', isError: false });
            } else {
              try {
                session.results.push(await this.executeCall(call, sandbox.engineName, runCall, budget, session.callIndex));
              } catch (error) {
                if (error instanceof ApprovalPending) {
                  const state = { ...session, turns: budget.turns, outputTokens: budget.outputTokens };
                  lifecycle.update(plan.id, { agentSession: { decisionId: decision.id, state: state as unknown as Record<string, unknown> } });
                }
                throw error;
              }
              session.callIndex += 1;
            }
            session.pending = session.pending.slice(1);
          }
          if (summary !== null) {
            this.recordUsage(plan.id, { decisionId: decision.id, phase: 'execute', inputTokens: 0, outputTokens: 0, turns: 0, summary }, () => undefined);
            return;
          }
          session.messages = withToolResults(session.messages, session.results);
          session.results = [];
          if (!session.madeCalls) {
            session.messages = [...session.messages, { role: 'user', content: 'Call a tool to make progress, or finish_step with a summary when the step is done.' }];
          }
        }
      },
    };
  }

  private async executeCall(call: ModelToolCall, engineName: Map<string, string>, runCall: RunToolCall, budget: Budget, callIndex: number) {
    const tool = engineName.get(call.name) ?? call.name;
    try {
      const invocation = await runCall({ tool, args: (call.input ?? {}) as Record<string, unknown> }, callIndex);
      return { id: call.id, name: call.name, text: resultText(invocation.result ?? 'ok', RESULT_LIMIT), isError: false };
    } catch (error) {
      if (!backToModel(error)) throw error;
      budget.spend(1);
      return { id: call.id, name: call.name, text: `Error: ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
  }
}
