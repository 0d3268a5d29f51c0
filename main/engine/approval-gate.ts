import { isDeepStrictEqual } from 'node:util';
import { type Approval, type AutomationProfile, needsApproval, type StrategyDecision, type ToolCallSpec } from '../../shared/domain';
import { type ApprovalStore, requestApproval, toolsApprovedForPlan } from './approvals';
import { toChangeEntry } from './change-capture';
import { entryHunks, unifiedDiff } from './changeset/diff';
import { ApprovalPending, EngineError } from './errors';
import type { EventPublisher } from './event-stream';
import { readFileOrNull } from './sandbox/files';
import { resolveInSandbox } from './sandbox/paths';

/**
 * Holds each tool call that the plan's profile says needs the operator: the first time, it stores
 * a pending approval and stops the run (ApprovalPending); once answered, the same call runs, or
 * fails the step with category `rejected`. An approval covers the automatic retries of the same
 * call with the same arguments in this run (one gate per run); a later run (an operator's retry)
 * asks again.
 */
export class ApprovalGate {
  /** Approvals used in this run, by step and call. */
  private readonly granted = new Map<string, Approval>();

  constructor(
    private readonly store: ApprovalStore,
    private readonly events: EventPublisher,
    private readonly planId: string,
    private readonly profile: AutomationProfile,
    private readonly sandboxRoot: string | null,
  ) {}

  /** Cheap: whether `tool` waits for approval at all, before anything is read. */
  applies(tool: string): boolean {
    return needsApproval(this.profile, tool);
  }

  async check(decision: StrategyDecision, call: ToolCallSpec, callIndex: number): Promise<void> {
    const approvals = this.store.listForPlan(this.planId);
    if (!needsApproval(this.profile, call.tool, toolsApprovedForPlan(approvals))) return;
    const key = `${decision.id}#${callIndex}`;
    const granted = this.granted.get(key);
    if (granted && granted.tool === call.tool && isDeepStrictEqual(granted.args, call.args)) return;
    const forCall = approvals.filter((a) => a.kind === 'tool' && a.decisionId === decision.id && a.callIndex === callIndex && a.usedAt === null);
    const answered = forCall.find((a) => a.status !== 'pending');
    if (answered) {
      this.store.update(answered.id, { usedAt: new Date().toISOString() });
      if (answered.status === 'approved') {
        this.granted.set(key, answered);
        return;
      }
      throw new EngineError(`${call.tool}: rejected by ${answered.answeredBy ?? 'the operator'}: ${answered.reason ?? 'no reason given'}`, 'rejected', {
        tool: call.tool,
        approvalId: answered.id,
        reason: answered.reason,
      });
    }
    const waiting = forCall.find((a) => a.status === 'pending') ?? this.request(decision, call, callIndex, await this.preview(call));
    throw new ApprovalPending(waiting.id);
  }

  private request(decision: StrategyDecision, call: ToolCallSpec, callIndex: number, preview: Pick<Approval, 'diff' | 'hunks'>): Approval {
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

  /** The diff a write, an edit or a delete would make in the sandbox as it is now, as text and as rows; null where none can be told. */
  private async preview(call: ToolCallSpec): Promise<Pick<Approval, 'diff' | 'hunks'>> {
    const none = { diff: null, hunks: null };
    if (!this.sandboxRoot || typeof call.args.path !== 'string') return none;
    const { path: relPath, content, find, replace, all } = call.args;
    try {
      const target = await resolveInSandbox(this.sandboxRoot, relPath, { forWrite: true });
      const before = await readFileOrNull(target.absolute);
      let after: Buffer | null;
      if (call.tool === 'file.write' && typeof content === 'string') after = Buffer.from(content);
      else if (call.tool === 'file.delete') after = null;
      else if (call.tool === 'file.edit' && before && typeof find === 'string' && typeof replace === 'string') {
        const text = before.toString('utf8');
        after = Buffer.from(all === true ? text.split(find).join(replace) : text.replace(find, () => replace));
      } else return none;
      if (before === null && after === null) return none;
      const operation = before === null ? 'create' : after === null ? 'delete' : 'modify';
      const entry = toChangeEntry({ operation, path: target.relative, before, after }, { decisionId: null, invocationId: null });
      return { diff: unifiedDiff(entry), hunks: entryHunks(entry) };
    } catch {
      // A path the tool itself would refuse: the call's own error says why, once it runs.
      return none;
    }
  }
}
