// What a tool is: its definition, the context a call runs in, and the changes it reports. A leaf
// module: the runner, the gates, the invariants and the tools all speak it, and it imports none of them.
import type { z } from 'zod';
import type { AutomationProfile } from '../../../shared/profiles';
import type { Confinement } from '../../../shared/tool-calls';
import type { McpCallInfo } from '../../../shared/mcp';
import type { Elicitation, ElicitationAnswer } from '../../../shared/elicitation';

/** A mutation a tool made in the sandbox, before it becomes a ChangeEntry. */
export interface CapturedChange {
  operation: 'create' | 'modify' | 'delete' | 'rename';
  path: string;
  oldPath?: string;
  before: Buffer | null;
  after: Buffer | null;
  /** The file's permission bits after the change, where they were seen. */
  mode?: number;
  /** The file's permission bits before the change, where they were seen (what a review's `old mode` shows). */
  beforeMode?: number;
}

export interface ToolContext {
  planId: string;
  decisionId: string | null;
  invocationId: string;
  sandboxRoot: string | null;
  profile: AutomationProfile;
  recordChange(change: CapturedChange): void;
  /** A tool that runs commands says how they were confined; it is kept on the invocation. */
  recordConfinement?(confinement: Confinement): void;
  /** A long call's progress (an MCP server's), shown on the running call. */
  reportProgress?(progress: ToolProgress): void;
  /** A log message from what runs the call (an MCP server's), for the plan's log. */
  log?(entry: ToolLogEntry): void;
  /** A question for the operator from what runs the call (an MCP server's); throws ApprovalPending while it waits for the answer. */
  elicit?(question: Elicitation, options?: { timeoutMs?: number }): Promise<ElicitationAnswer>;
}

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolLogEntry {
  server: string;
  level: string;
  logger?: string;
  text: string;
}

/**
 * What a tool does to the sandbox: `read` only reads it, `write` changes the files its arguments
 * name, `exec` runs commands that may change anything in it. The lists of read-only, writing and
 * command tools are derived from it (ToolRegistry.names).
 */
export type ToolEffect = 'read' | 'write' | 'exec';

export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
  description: string;
  effect: ToolEffect;
  schema: z.ZodType<Args>;
  run(args: Args, context: ToolContext): Promise<unknown>;
  /**
   * What the call would change in the sandbox as it is now, for the operator asked to approve it
   * (the approval's diff); null where it cannot be told. Without it, an approval shows no diff.
   */
  preview?(args: Args, sandbox: { root: string }): Promise<CapturedChange | null>;
  /** Set for a tool of an MCP server: its approval always names the server and the tool. */
  mcp?: McpCallInfo;
}
