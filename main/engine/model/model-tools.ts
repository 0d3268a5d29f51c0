import type { Tool, ToolSet } from 'ai';
import { z } from 'zod';
import { once } from '../../../shared/once';
import type { ToolRegistry } from '../run/tool-runner';

/** Tool names must match ^[a-zA-Z0-9_-]+$ at the providers, so `file.write` is `file_write` there. */
export function modelToolName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_');
}

export const FINISH_STEP = 'finish_step';
export const PROPOSE_PLAN = 'propose_plan';

// The model's own tools' schemas are built when a model is first asked: most commands never ask one.
const finishStepSchema = once(() =>
  z.object({
    summary: z.string().min(1).describe('What the step changed and how you checked it, in a few sentences'),
  }),
);

const proposedStepSchema = () =>
  z.object({
    description: z.string().min(1).describe('What this step does, in one sentence'),
    rationale: z.string().min(1).describe('Why this step is needed'),
    acceptance: z.string().min(1).describe('How to check that the step is done'),
    check: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .describe('Optional: a shell command that exits 0 when the acceptance holds, run at the project root in the sandbox after execute, e.g. "test -f LICENSE" or "npm test"'),
    toolCalls: z
      .array(z.object({ tool: z.string().min(1), args: z.record(z.string(), z.unknown()) }))
      .optional()
      .describe('Optional: the tool calls you expect the step to make, e.g. {"tool": "file.write", "args": {...}}'),
  });
export type ProposedStep = z.infer<ReturnType<typeof proposedStepSchema>>;

export const proposedPlanSchema = once(() =>
  z.object({
    steps: z.array(proposedStepSchema()).min(1, 'propose at least one step').max(100),
  }),
);
export type ProposedPlan = z.infer<ReturnType<typeof proposedPlanSchema>>;

/**
 * The registry's tools as the model sees them: their own zod schemas, no `execute`, so every call
 * comes back to us and goes through the ToolRunner. Returns the tool set and the name map back.
 */
export function modelToolSet(registry: ToolRegistry, names: readonly string[]): { tools: ToolSet; engineName: Map<string, string> } {
  const tools: ToolSet = {};
  const engineName = new Map<string, string>();
  for (const name of names) {
    const definition = registry.get(name);
    if (!definition) continue;
    // Two names may read the same at the provider (MCP's `a.b_c` and `a_b.c`): the later one is numbered, never lost.
    let exposed = modelToolName(name);
    for (let n = 2; engineName.has(exposed) || exposed === FINISH_STEP || exposed === PROPOSE_PLAN; n++) exposed = `${modelToolName(name)}_${n}`;
    tools[exposed] = { description: `${name}: ${definition.description}`, inputSchema: definition.schema as z.ZodType<Record<string, unknown>> };
    engineName.set(exposed, name);
  }
  return { tools, engineName };
}

// Plain tool objects: the SDK's tool() only returns its argument, and importing it would load the SDK.
export function finishStepTool(): Tool {
  return { description: 'Call this once the step is done, with a short summary of what you did.', inputSchema: finishStepSchema() };
}

export function proposePlanTool(): Tool {
  return { description: 'Propose the decision tree: the ordered steps that meet the definition of done.', inputSchema: proposedPlanSchema() };
}

/** A tool's result as text for the model, cut to `limit` characters so one file cannot flood the context. */
export function resultText(value: unknown, limit: number): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[cut: ${text.length - limit} more characters; read a narrower range or search instead]`;
}
