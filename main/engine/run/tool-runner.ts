import type { AutomationProfile } from '../../../shared/profiles';
import type { Confinement, ToolCallSpec, ToolInvocation } from '../../../shared/tool-calls';
import { BUILTIN_PROFILES } from '../../../shared/profiles';
import { ValidationError } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import { ApprovalPending, EngineError, errorCategoryOf, ToolCallError } from '../errors';
import { type InvariantRules, refusedChanges, revertChange } from '../gates/invariants';
import type { InvocationLog } from '../ports/invocation-log';
import { checkShellPolicy } from '../gates/shell-policy';
import type { CapturedChange, ToolContext, ToolDefinition, ToolEffect, ToolProgress } from '../tools/definition';

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition<never>>();

  register<Args>(tool: ToolDefinition<Args>): this {
    if (this.tools.has(tool.name)) throw new ValidationError('tool', `"${tool.name}" is already registered`);
    this.tools.set(tool.name, tool as unknown as ToolDefinition<never>);
    return this;
  }

  get(name: string): ToolDefinition<unknown> | undefined {
    return this.tools.get(name) as ToolDefinition<unknown> | undefined;
  }

  /** Names and descriptions of every registered tool, sorted by name. */
  discover(): { name: string; description: string }[] {
    return [...this.tools.values()]
      .map(({ name, description }) => ({ name, description }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The names of the registered tools with one of `effects` (every tool when none is given), in the order they were registered. */
  names(...effects: ToolEffect[]): string[] {
    return [...this.tools.values()].filter((tool) => effects.length === 0 || effects.includes(tool.effect)).map((tool) => tool.name);
  }

  /** A registry with the same tools, to which a run adds its own (an MCP server's). */
  copy(): ToolRegistry {
    const copy = new ToolRegistry();
    for (const tool of this.tools.values()) copy.register(tool);
    return copy;
  }

  get size(): number {
    return this.tools.size;
  }
}

export type ToolCallContext = Omit<ToolContext, 'invocationId' | 'recordChange' | 'recordConfinement' | 'profile' | 'reportProgress'> & {
  profile?: AutomationProfile;
  /** A running call's progress, with the call's invocation id. */
  reportProgress?: (progress: ToolProgress, invocationId: string) => void;
  recordChange?: (change: CapturedChange, invocationId: string) => Promise<void>;
  /**
   * Runs the writes that settle a call (its changes, its invocation, `onSettled`) as one unit,
   * typically in one transaction. It may also queue them for a later commit (the runtime actor
   * groups consecutive calls); a failure to record them then surfaces there. Default: they run now.
   */
  atomically?: (writes: () => Promise<void>) => Promise<void>;
  /** Called with the finished invocation, in the same unit, right after the invocation is recorded. */
  onSettled?: (invocation: ToolInvocation) => Promise<void>;
  /** The project's invariants: checked before the call, and against what it changed. */
  rules?: InvariantRules;
  /** The call's id; a call that runs again once its server's question is answered keeps the id of the run that asked. Default: a new one. */
  invocationId?: string;
};

type Outcome = { ok: true; result: unknown } | { ok: false; cause: unknown };

function failedInvocation(base: Omit<ToolInvocation, 'ok' | 'result' | 'error' | 'startedAt' | 'durationMs'>, cause: unknown, startedAt: Date, started: number): ToolInvocation {
  const err = cause instanceof Error ? cause : new Error(String(cause));
  const category = errorCategoryOf(cause) ?? (cause instanceof ValidationError ? 'validation' : undefined);
  // A shell command refused by a rule: which simple command met which rule, for the plan tree.
  const { command, rule } = cause instanceof EngineError ? cause.details : {};
  const commandRule = typeof command === 'string' && typeof rule === 'string' ? { commandRule: { command, rule } } : {};
  return {
    ...base,
    ok: false,
    error: { name: err.name, message: err.message, ...(category ? { category } : {}), ...commandRule },
    startedAt: startedAt.toISOString(),
    durationMs: performance.now() - started,
  };
}

/** Validates each call against its tool's schema, runs it, and records a ToolInvocation. */
export class ToolRunner {
  constructor(
    readonly registry: ToolRegistry,
    readonly log: InvocationLog,
  ) {
    if (!registry) throw new ValidationError('registry', 'is required');
    if (!log) throw new ValidationError('log', 'is required');
  }

  discover(): { name: string; description: string }[] {
    return this.registry.discover();
  }

  /**
   * Runs one call. The changes the tool reports are held until it finishes, then recorded with
   * the invocation in one unit (see ToolCallContext.atomically): a call's bookkeeping is all there
   * or not at all. Tools report changes as their last step, so holding them until the tool returns
   * delays nothing.
   */
  async execute(call: ToolCallSpec, context: ToolCallContext): Promise<ToolInvocation> {
    const invocationId = context.invocationId ?? newId();
    const startedAt = new Date();
    const started = performance.now();
    const base: Omit<ToolInvocation, 'ok' | 'result' | 'error' | 'startedAt' | 'durationMs'> = {
      id: invocationId,
      planId: context.planId,
      decisionId: context.decisionId,
      tool: call.tool,
      args: call.args,
    };
    const captured: CapturedChange[] = [];
    let confinement: Confinement | undefined;
    let outcome: Outcome;
    try {
      const tool = this.registry.get(call.tool);
      if (!tool) throw new ValidationError('tool', `unknown tool "${call.tool}"`);
      const parsed = tool.schema.safeParse(call.args);
      if (!parsed.success) throw ValidationError.fromZod(parsed.error, 'args');
      const args = parsed.data as Record<string, unknown>;
      await context.rules?.checkCall(call.tool, args, tool.effect);
      await checkShellPolicy({ tool: call.tool, args }, context.profile ?? BUILTIN_PROFILES.trusted, context.rules);
      const result = await tool.run(parsed.data, {
        planId: context.planId,
        decisionId: context.decisionId,
        sandboxRoot: context.sandboxRoot,
        profile: context.profile ?? BUILTIN_PROFILES.trusted,
        invocationId,
        recordChange: (change) => {
          captured.push(change);
        },
        recordConfinement: (kind) => {
          confinement = kind;
        },
        reportProgress: (progress) => context.reportProgress?.(progress, invocationId),
        log: context.log,
        elicit: context.elicit,
      });
      const refused = context.rules?.violations(captured) ?? [];
      if (refused.length > 0 && context.sandboxRoot) {
        for (const { change } of refused) revertChange(context.sandboxRoot, change);
        const kept = captured.filter((change) => !refused.some((r) => r.change === change));
        captured.splice(0, captured.length, ...kept);
        throw refusedChanges(refused);
      }
      outcome = { ok: true, result };
    } catch (cause) {
      // Stopped for the operator's answer to its server's question: not an outcome, the call runs
      // again once answered. What it changed before asking is its own (the run again starts from it).
      if (cause instanceof ApprovalPending) {
        await this.recordStopped(captured, context, invocationId);
        throw cause;
      }
      outcome = { ok: false, cause };
    }

    if (confinement) base.confinement = confinement;
    const unit = unitOf(context);
    const writes = async (invocation: ToolInvocation, changes: readonly CapturedChange[]) => {
      for (const change of changes) await context.recordChange?.(change, invocationId);
      await this.log.record(invocation);
      await context.onSettled?.(invocation);
    };

    let invocation: ToolInvocation = outcome.ok
      ? { ...base, ok: true, result: outcome.result, error: null, startedAt: startedAt.toISOString(), durationMs: performance.now() - started }
      : failedInvocation(base, outcome.cause, startedAt, started);
    let cause = outcome.ok ? undefined : outcome.cause;
    // Set when the writes ran and threw: only then is the unit known to be undone, and the call is
    // recorded again as failed. (A queued unit that fails later fails the whole run instead.)
    let writesFailed = false;
    try {
      await unit(async () => {
        try {
          await writes(invocation, captured);
        } catch (error) {
          writesFailed = true;
          throw error;
        }
      });
    } catch (error) {
      // After the writes (a failed commit, a subscriber that threw) there is nothing to redo.
      if (!writesFailed) throw error;
      // Nothing of the unit was kept: the call failed, and what failed was recording it.
      cause = error;
      invocation = failedInvocation(base, error, startedAt, started);
      await unit(() => writes(invocation, []));
    }
    if (!invocation.ok) throw new ToolCallError(invocation, cause);
    return invocation;
  }

  /** The changes of a call stopped for its server's question, under its id; those a rule refuses are put back. */
  private async recordStopped(captured: readonly CapturedChange[], context: ToolCallContext, invocationId: string): Promise<void> {
    const refused = context.rules?.violations(captured) ?? [];
    if (context.sandboxRoot) for (const { change } of refused) revertChange(context.sandboxRoot, change);
    const kept = captured.filter((change) => !refused.some((r) => r.change === change));
    if (kept.length === 0 || !context.recordChange) return;
    const record = context.recordChange;
    await unitOf(context)(async () => {
      for (const change of kept) await record(change, invocationId);
    });
  }
}

const unitOf = (context: ToolCallContext) => context.atomically ?? ((writes: () => Promise<void>) => writes());
