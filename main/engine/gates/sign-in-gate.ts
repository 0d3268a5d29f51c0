import type { Approval } from '../../../shared/approvals';
import type { StrategyDecision } from '../../../shared/domain';
import type { AutomationProfile } from '../../../shared/profiles';
import { type ApprovalStore, requestApproval } from '../ports/approvals';
import { ApprovalPending, EngineError } from '../errors';
import type { EventPublisher } from '../ports/event-stream';

/** The server a failure names when what it waits for is a sign-in (connectMcpServer marks those); null for any other failure. */
export function signInNeededBy(error: unknown): string | null {
  return error instanceof EngineError && error.details.signIn === true && typeof error.details.server === 'string' ? error.details.server : null;
}

/**
 * A plan's MCP server that needs a sign-in (none kept, or one its tokens cannot refresh into) stops
 * the run with an approval of kind `signin`, "Sign in to NAME", as a call waiting for approval does.
 * `agents mcp login NAME` (or the console card's sign-in) answers it once the tokens are kept, and
 * the step starts again with the server signed in; rejected, the step fails. Under full-auto nobody
 * is asked, and the step fails with the command that signs in.
 */
export class SignInGate {
  constructor(
    private readonly store: ApprovalStore,
    private readonly events: EventPublisher,
    private readonly planId: string,
    private readonly profile: Pick<AutomationProfile, 'name'>,
  ) {}

  /** Runs `start` (the plan's servers starting); a sign-in it needs waits for the operator. */
  async started(step: Pick<StrategyDecision, 'id' | 'description'>, start: () => Promise<void>): Promise<void> {
    const open = (await this.store.listForPlan(this.planId)).filter((a) => a.kind === 'signin' && a.decisionId === step.id && a.usedAt === null);
    // An answer is used once: a later need of a sign-in asks again.
    const now = new Date().toISOString();
    for (const answered of open.filter((a) => a.status !== 'pending')) await this.store.update(answered.id, { usedAt: now });
    const refused = open.find((a) => a.status === 'rejected');
    if (refused) throw new EngineError(`${refused.answeredBy ?? 'the operator'} did not sign in to the MCP server "${refused.tool}": ${refused.reason ?? 'no reason given'}`, 'rejected', { server: refused.tool });
    try {
      await start();
    } catch (error) {
      const server = signInNeededBy(error);
      if (server === null || this.profile.name === 'full-auto') throw error;
      const waiting = open.find((a) => a.status === 'pending' && a.tool === server) ?? (await this.request(step, server));
      throw new ApprovalPending(waiting.id);
    }
  }

  private request(step: Pick<StrategyDecision, 'id' | 'description'>, server: string): Promise<Approval> {
    return requestApproval(this.store, this.events, {
      planId: this.planId,
      kind: 'signin',
      decisionId: step.id,
      callIndex: 0,
      tool: server,
      args: {},
      description: `Sign in to ${server}`,
      rationale: `The MCP server "${server}" needs a sign-in before step "${step.description}" can use it: run agents mcp login ${server}, or sign in from the console.`,
      diff: null,
      hunks: null,
    });
  }
}
