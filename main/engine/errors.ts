import type { ErrorCategory } from '../../shared/domain';
import type { ToolInvocation } from '../../shared/tool-calls';

/** A failure inside the engine that knows its own category (transient, policy, tool ...). */
export class EngineError extends Error {
  constructor(
    message: string,
    readonly category: ErrorCategory,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/** A tool call that failed; carries the recorded invocation and the decision it belonged to. */
export class ToolCallError extends Error {
  constructor(
    readonly invocation: ToolInvocation,
    override readonly cause: unknown,
  ) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(message.startsWith(invocation.tool) ? message : `${invocation.tool}: ${message}`);
    this.name = 'ToolCallError';
  }
}

export function errorCategoryOf(error: unknown): ErrorCategory | undefined {
  if (error instanceof ToolCallError) return errorCategoryOf(error.cause);
  if (error instanceof EngineError) return error.category;
  return undefined;
}

/**
 * Not a failure: the run stops before a call that waits for the operator's approval. The plan
 * pauses, and answering the approval continues it at that call.
 */
export class ApprovalPending extends Error {
  constructor(readonly approvalId: string) {
    super('waiting for the operator to approve a tool call');
    this.name = 'ApprovalPending';
  }
}
