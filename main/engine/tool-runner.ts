import type { z } from 'zod';
import type { AutomationProfile, ToolCallSpec, ToolInvocation } from '../../shared/domain';
import { BUILTIN_PROFILES } from '../../shared/domain';
import { ValidationError } from '../../shared/errors';
import { newId } from '../../shared/ids';
import { errorCategoryOf, ToolCallError } from './errors';

/** A mutation a tool made in the sandbox, before it becomes a ChangeEntry. */
export interface CapturedChange {
  operation: 'create' | 'modify' | 'delete' | 'rename';
  path: string;
  oldPath?: string;
  before: Buffer | null;
  after: Buffer | null;
}

export interface ToolContext {
  planId: string;
  decisionId: string | null;
  invocationId: string;
  sandboxRoot: string | null;
  profile: AutomationProfile;
  recordChange(change: CapturedChange): void;
}

export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
  description: string;
  schema: z.ZodType<Args>;
  run(args: Args, context: ToolContext): Promise<unknown>;
}

/** Where every tool invocation is kept. */
export interface InvocationLog {
  record(invocation: ToolInvocation): void;
  listForPlan(planId: string): ToolInvocation[];
}

export class InMemoryInvocationLog implements InvocationLog {
  private readonly invocations: ToolInvocation[] = [];
  record(invocation: ToolInvocation): void {
    this.invocations.push(invocation);
  }
  listForPlan(planId: string): ToolInvocation[] {
    return this.invocations.filter((i) => i.planId === planId);
  }
}

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

  get size(): number {
    return this.tools.size;
  }
}

export type ToolCallContext = Omit<ToolContext, 'invocationId' | 'recordChange' | 'profile'> & {
  profile?: AutomationProfile;
  recordChange?: (change: CapturedChange, invocationId: string) => void;
};

/** Validates each call against its tool's schema, runs it, and records a ToolInvocation. */
export class ToolRunner {
  constructor(
    readonly registry: ToolRegistry = new ToolRegistry(),
    readonly log: InvocationLog = new InMemoryInvocationLog(),
  ) {}

  discover(): { name: string; description: string }[] {
    return this.registry.discover();
  }

  async execute(call: ToolCallSpec, context: ToolCallContext): Promise<ToolInvocation> {
    const invocationId = newId();
    const startedAt = new Date();
    const started = performance.now();
    const base = { id: invocationId, planId: context.planId, decisionId: context.decisionId, tool: call.tool, args: call.args };
    try {
      const tool = this.registry.get(call.tool);
      if (!tool) throw new ValidationError('tool', `unknown tool "${call.tool}"`);
      const parsed = tool.schema.safeParse(call.args);
      if (!parsed.success) throw ValidationError.fromZod(parsed.error, 'args');
      const record = context.recordChange;
      const result = await tool.run(parsed.data, {
        planId: context.planId,
        decisionId: context.decisionId,
        sandboxRoot: context.sandboxRoot,
        profile: context.profile ?? BUILTIN_PROFILES.trusted,
        invocationId,
        recordChange: (change) => record?.(change, invocationId),
      });
      const invocation: ToolInvocation = {
        ...base,
        ok: true,
        result,
        error: null,
        startedAt: startedAt.toISOString(),
        durationMs: performance.now() - started,
      };
      this.log.record(invocation);
      return invocation;
    } catch (cause) {
      const err = cause instanceof Error ? cause : new Error(String(cause));
      const category = errorCategoryOf(cause) ?? (cause instanceof ValidationError ? 'validation' : undefined);
      const invocation: ToolInvocation = {
        ...base,
        ok: false,
        error: { name: err.name, message: err.message, ...(category ? { category } : {}) },
        startedAt: startedAt.toISOString(),
        durationMs: performance.now() - started,
      };
      this.log.record(invocation);
      throw new ToolCallError(invocation, cause);
    }
  }
}
