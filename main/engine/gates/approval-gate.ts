import { isDeepStrictEqual } from 'node:util';
import type { Approval } from '../../../shared/approvals';
import { type AutomationProfile, needsApproval } from '../../../shared/profiles';
import type { StrategyDecision } from '../../../shared/domain';
import type { ToolCallSpec } from '../../../shared/tool-calls';
import { allowedByName, type McpCallInfo, mcpNeedsApproval } from '../../../shared/mcp';
import { type ApprovalStore, requestApproval, toolsApprovedForPlan } from '../ports/approvals';
import { toChangeEntry } from '../run/change-capture';
import { entryHunks, entryLineDiff, unifiedDiff } from '../changeset/diff';
import { ApprovalPending, EngineError } from '../errors';
import type { EventPublisher } from '../ports/event-stream';
import type { InvariantRules } from './invariants';
import { heldToShellRules, unanalysedPart } from './shell-policy';
import type { ToolDefinition, ToolEffect } from '../tools/definition';
import { ElicitationGate, stoppedForQuestion } from './elicitation-gate';

/** What the gate reads of the called tool to show what the call would change. */
type CallPreview = Pick<ToolDefinition<unknown>, 'schema' | 'preview'>;

/**
 * The other names a call is known by, which a profile's `allow:` and `approve:` may use: a coding
 * agent's command is held as shell.run, and also named `NAME.TOOL` (`claude.Bash`) and `NAME.KIND`
 * (`claude.execute`).
 */
export type CallAliases = readonly string[];

/** Why a held call may go on: the operator approved it (`once`), or every call of its tool (`all`); null where the profile lets it through. */
export type GrantScope = 'once' | 'all' | null;

/**
 * Holds each tool call that the plan's profile says needs the operator: the first time, it stores
 * a pending approval and stops the run (ApprovalPending); once answered, the same call runs, or
 * fails the step with category `rejected`. An approval covers the automatic retries of the same
 * call with the same arguments in this run (one gate per run); a later run (an operator's retry)
 * asks again, except for a step restored after an interruption, whose approved calls keep their
 * answers (the restore marks them unused, main/app/use-cases/checkpoints.ts).
 */
export class ApprovalGate {
  /** Approvals used in this run, by step and call. */
  private readonly granted = new Map<string, Approval>();
  /** The questions a call's MCP server asks while it runs, asked of the operator as approvals too. */
  readonly elicitation: ElicitationGate;

  constructor(
    private readonly store: ApprovalStore,
    private readonly events: EventPublisher,
    private readonly planId: string,
    private readonly profile: AutomationProfile,
    private readonly sandboxRoot: string | null,
    /** The project's invariants: a shell command they cannot be checked against waits for the operator. */
    private readonly rules?: InvariantRules,
  ) {
    this.elicitation = new ElicitationGate(store, events, planId, profile);
  }

  /** Cheap: whether the call may wait for approval at all, before anything is read or parsed. `mcp`: the called tool's, for an MCP server's tool. */
  applies(call: ToolCallSpec, mcp?: McpCallInfo, aliases: CallAliases = []): boolean {
    return this.needs(call.tool, mcp, undefined, aliases) || heldToShellRules(call, this.profile, this.rules);
  }

  /**
   * An MCP server's tool asks unless the profile lets it through (shared/mcp.ts); the others as the
   * profile's list says. An alias the profile allows lets the call through; one it names in
   * `approve:` (or `NAME.*` there) holds it.
   */
  private needs(tool: string, mcp: McpCallInfo | undefined, approvedForPlan?: ReadonlySet<string>, aliases: CallAliases = []): boolean {
    if (approvedForPlan?.has(tool)) return false;
    if (aliases.some((alias) => allowedByName(this.profile.allow, alias))) return false;
    if (aliases.some((alias) => allowedByName(this.profile.approvalRequired, alias))) return true;
    return mcp ? needsApproval(this.profile, tool) || mcpNeedsApproval(this.profile, tool, mcp.readOnly) : needsApproval(this.profile, tool);
  }

  /**
   * `effect`: the called tool's (ToolDefinition.effect), undefined for a tool not registered; `mcp` as for
   * `applies`; `tool`: the called tool's definition, whose `preview` gives the approval its diff.
   * Resolves with why the call may go on: an agent that asked answers `all` with its allow-always option.
   */
  async check(decision: StrategyDecision, call: ToolCallSpec, callIndex: number, effect: ToolEffect | undefined, mcp?: McpCallInfo, tool?: CallPreview, aliases: CallAliases = []): Promise<GrantScope> {
    // A call the rules refuse anyway does not wait for the operator: the tool runner refuses it.
    if (await this.refused(call, effect)) return null;
    const unanalysed = await unanalysedPart(call, this.profile, this.rules);
    // Restricted refuses such a command outright (the tool runner does); `--all` answers never cover one.
    if (unanalysed && this.profile.name === 'restricted') return null;
    const approvals = await this.store.listForPlan(this.planId);
    const approvedForPlan = toolsApprovedForPlan(approvals);
    if (!unanalysed && !this.needs(call.tool, mcp, approvedForPlan, aliases)) return approvedForPlan.has(call.tool) ? 'all' : null;
    const key = `${decision.id}#${callIndex}`;
    const granted = this.granted.get(key);
    if (granted && sameCall(granted, call)) return granted.scope ?? 'once';
    // Approved, run, and stopped for its server's question: the call goes on without asking again.
    const resumed = approvals.find((a) => a.kind === 'tool' && a.status === 'approved' && a.decisionId === decision.id && a.callIndex === callIndex && sameCall(a, call) && stoppedForQuestion(a, approvals));
    if (resumed) {
      this.granted.set(key, resumed);
      return resumed.scope ?? 'once';
    }
    const atCall = approvals.filter((a) => a.kind === 'tool' && a.decisionId === decision.id && a.callIndex === callIndex && a.usedAt === null);
    // An answer holds for the call the operator saw: a step edited since then asks again for what it now runs.
    for (const stale of atCall.filter((a) => !sameCall(a, call))) await this.store.update(stale.id, { usedAt: new Date().toISOString() });
    const forCall = atCall.filter((a) => sameCall(a, call));
    const answered = forCall.find((a) => a.status !== 'pending');
    if (answered) {
      await this.store.update(answered.id, { usedAt: new Date().toISOString() });
      if (answered.status === 'approved') {
        this.granted.set(key, answered);
        return answered.scope ?? 'once';
      }
      throw new EngineError(`${call.tool}: rejected by ${answered.answeredBy ?? 'the operator'}: ${answered.reason ?? 'no reason given'}`, 'rejected', {
        tool: call.tool,
        approvalId: answered.id,
        reason: answered.reason,
      });
    }
    const waiting = forCall.find((a) => a.status === 'pending') ?? (await this.request(decision, call, callIndex, { ...(await this.preview(call, mcp, tool)), commandRule: unanalysed ?? undefined, mcp }));
    throw new ApprovalPending(waiting.id);
  }

  private async refused(call: ToolCallSpec, effect: ToolEffect | undefined): Promise<boolean> {
    try {
      await this.rules?.checkCall(call.tool, call.args, effect);
      return false;
    } catch {
      return true;
    }
  }

  private request(decision: StrategyDecision, call: ToolCallSpec, callIndex: number, preview: Pick<Approval, 'diff' | 'hunks' | 'commandRule' | 'mcp'>): Promise<Approval> {
    return requestApproval(this.store, this.events, {
      planId: this.planId,
      kind: 'tool',
      decisionId: decision.id,
      callIndex,
      tool: call.tool,
      args: call.args,
      description: decision.description,
      rationale: decision.rationale,
      ...preview,
    });
  }

  /** The diff the call would make in the sandbox as it is now (its tool's `preview`), as text and as rows; null where none can be told. */
  private async preview(call: ToolCallSpec, mcp: McpCallInfo | undefined, tool: CallPreview | undefined): Promise<Pick<Approval, 'diff' | 'hunks'>> {
    const none = { diff: null, hunks: null };
    // An MCP tool's arguments mean what its server says; no diff is guessed from them.
    if (mcp || !this.sandboxRoot || !tool?.preview) return none;
    const args = tool.schema.safeParse(call.args);
    if (!args.success) return none;
    try {
      const change = await tool.preview(args.data, { root: this.sandboxRoot });
      if (change === null) return none;
      const entry = toChangeEntry(change, { decisionId: null, invocationId: null });
      // One line diff serves the patch and the hunks.
      const lines = entry.binary ? undefined : entryLineDiff(entry);
      return { diff: unifiedDiff(entry, lines), hunks: entryHunks(entry, lines) };
    } catch {
      // A path the tool itself would refuse: the call's own error says why, once it runs.
      return none;
    }
  }
}

/** The same tool with the same arguments, compared as stored (JSON), so a key left undefined is no difference. */
function sameCall(approval: Pick<Approval, 'tool' | 'args'>, call: ToolCallSpec): boolean {
  return approval.tool === call.tool && isDeepStrictEqual(JSON.parse(JSON.stringify(approval.args ?? {})), JSON.parse(JSON.stringify(call.args ?? {})));
}
