import type { Approval, ChangeEntry, DiffHunk, ErrorRecord, Plan, StrategyDecision, ToolInvocation } from '../../../shared/domain';
import type { ChangeEntryMeta, PlanListItem, ToolTally } from '../../../shared/contract';
import { childrenByParent, stepsInOrder } from '../../../shared/decision-tree';
import type { StreamEvent } from '../../../shared/events';
import { comparePlansForList, needsAttention } from '../../../shared/plan-order';
import { ValidationError } from '../../../shared/errors';
import { entryLineCounts, toEntryMeta } from '../../engine/changeset-store';
import { entryHunks, unifiedDiff } from '../../engine/changeset/diff';
import { type ReviewFile, reviewChanges, reviewDiffs, reviewFileHunks, reviewNet } from '../../engine/changeset/review';
import { exportPatch } from '../../engine/changeset/patch';
import type { RecoveryHint } from '../../../shared/contract';
import { classifyError, recoveryHints } from '../../engine/error-recovery-service';
import { pendingApproval } from '../../engine/approvals';
import { type ConfinementProbe, detectConfinement } from '../../engine/tools/confinement';
import type { PlanContext } from './plan-context';

export interface DecisionNode extends StrategyDecision {
  children: DecisionNode[];
}

export interface DiffEntry extends ChangeEntryMeta {
  diff: string | null;
}

export interface ExternalEvents {
  /** Changes whenever another process commits to the database. */
  version(): number;
  /** Every plan's last event seq. */
  lastSeqs(): Map<string, number>;
}

export interface ReviewStep {
  id: string;
  description: string;
}

export interface ChangesetReview {
  changesetId: string | null;
  files: (ReviewFile & { steps: ReviewStep[] })[];
}

/** What an operator reads about plans: the list, a plan's tree, changes, review, errors and approvals. */
export function planReading(ctx: PlanContext) {
  const { lifecycle, stores } = ctx;
  const get = (planId: string): Plan => ctx.get(planId);
  const reviewCache = new Map<string, { key: string; files: ReviewFile[] }>();

  const decisions = (planId: string): StrategyDecision[] => {
    get(planId);
    return lifecycle.listDecisions(planId);
  };

  const changeEntries = (planId: string): ChangeEntry[] => {
    const plan = get(planId);
    return plan.changesetId ? (stores.changesets.get(plan.changesetId)?.entries ?? []) : [];
  };

  /**
   * The files of a plan's review (no contents), kept while neither the entries (appended only) nor
   * what was applied changed: a running plan's console asks for it when a path changes again.
   */
  const reviewFiles = (planId: string): ReviewFile[] => {
    const plan = get(planId);
    if (!plan.changesetId) return [];
    const applied = stores.applied.list(planId);
    // A rewind changes what is part of the review without adding an entry: its time is part of the key.
    const key = `${plan.changesetId}:${stores.changesets.countEntries(plan.changesetId)}:${plan.lastRewind?.at ?? ''}:${JSON.stringify(applied)}`;
    const cached = reviewCache.get(planId);
    if (cached?.key === key) return cached.files;
    const files = reviewChanges(changeEntries(planId), applied);
    reviewCache.delete(planId);
    reviewCache.set(planId, { key, files });
    // A few open consoles' plans at most.
    if (reviewCache.size > 4) reviewCache.delete(reviewCache.keys().next().value as string);
    return files;
  };

  const log = stores.events;
  return {
    /** How shell.run can be confined on this host (bwrap, sandbox-exec), or why it cannot. */
    shellConfinement: (): Promise<ConfinementProbe> => detectConfinement(),
    get,
    list: (): Plan[] => lifecycle.listPlans(),
    decisions,
    changeEntries,

    tree(planId: string): DecisionNode | null {
      const children = childrenByParent(decisions(planId));
      const build = (decision: StrategyDecision): DecisionNode => ({ ...decision, children: (children.get(decision.id) ?? []).map(build) });
      const root = children.get(null)?.find((d) => d.type === 'prompt_definition');
      return root ? build(root) : null;
    },

    /** Plans for the list view: progress, and the ones that need the operator first. */
    listItems(filter: { state?: Plan['processingState']; search?: string } = {}): PlanListItem[] {
      const search = filter.search?.trim().toLowerCase();
      return lifecycle
        .listPlans()
        .filter((p) => (!filter.state || p.processingState === filter.state) && (!search || p.name.toLowerCase().includes(search)))
        .map((plan) => {
          const steps = lifecycle.stepCounts(plan.id);
          // Waiting to be applied is its own state, not one that needs attention.
          const awaitingApply = plan.phase === 'apply' && plan.processingState === 'queued';
          return { ...plan, progress: { done: steps.done, total: steps.total }, needsAttention: needsAttention(plan), awaitingApply };
        })
        .sort(comparePlansForList);
    },

    /** One page of the changeset's entries, without file contents. */
    changes(planId: string, offset = 0, limit = 500): { changesetId: string | null; total: number; entries: ChangeEntryMeta[] } {
      const plan = get(planId);
      if (!plan.changesetId) return { changesetId: null, total: 0, entries: [] };
      return {
        changesetId: plan.changesetId,
        total: stores.changesets.countEntries(plan.changesetId),
        entries: stores.changesets.listEntryMeta(plan.changesetId, { offset, limit }),
      };
    },

    /** One entry with its hunks, as the diff view draws them; the file texts stay here. */
    change(planId: string, entryId: string): { entry: ChangeEntryMeta; hunks: DiffHunk[] | null } {
      const { changesetId } = get(planId);
      const meta = changesetId ? stores.changesets.getEntryMeta(changesetId, entryId) : undefined;
      const entry = changesetId && meta ? stores.changesets.getEntry(changesetId, entryId) : undefined;
      if (!meta || !entry) throw new ValidationError('entryId', `no change entry "${entryId}" in plan ${planId}`);
      return { entry: meta, hunks: entryHunks(entry) };
    },

    invocations(planId: string): ToolInvocation[] {
      get(planId);
      return stores.invocations.listForPlan(planId);
    },

    invocationsForDecision(planId: string, decisionId: string): ToolInvocation[] {
      get(planId);
      return stores.invocations.listForDecision(decisionId).filter((i) => i.planId === planId);
    },

    /** The tallies and the last seq they count through, read on one snapshot: the events after it are those not counted. */
    toolTallies(planId: string): { tallies: ToolTally[]; throughSeq: number } {
      get(planId);
      const read = () => ({ tallies: stores.invocations.talliesForPlan(planId), throughSeq: stores.events.lastSeq(planId) });
      return stores.readTogether ? stores.readTogether(read) : read();
    },

    eventsAfter(planId: string, afterSeq = 0, limit = 1000): { events: StreamEvent[]; lastSeq: number } {
      get(planId);
      return { events: stores.events.list(planId, afterSeq, limit), lastSeq: stores.events.lastSeq(planId) };
    },

    /**
     * What other processes append to the shared event log, for a host to poll: undefined where the
     * log is this process's alone (in memory).
     */
    externalEvents: (log.externalVersion && log.lastSeqs
      ? { version: () => log.externalVersion?.() ?? 0, lastSeqs: () => log.lastSeqs?.() ?? new Map() }
      : undefined) as ExternalEvents | undefined,

    diff(planId: string): { planId: string; changesetId: string | null; entries: DiffEntry[] } {
      const plan = get(planId);
      const entries = changeEntries(planId);
      // Line counts as stored when each entry was recorded, not computed again.
      const metas = plan.changesetId ? stores.changesets.listEntryMeta(plan.changesetId, { offset: 0, limit: entries.length }) : [];
      const byId = new Map(metas.map((m) => [m.id, m]));
      return {
        planId,
        changesetId: plan.changesetId,
        entries: entries.map((entry) => ({ ...(byId.get(entry.id) ?? toEntryMeta(entry, entryLineCounts(entry))), diff: unifiedDiff(entry) })),
      };
    },

    patch: (planId: string): string => exportPatch(changeEntries(planId)),

    /** The changeset as files to review: one row per path, netted across steps, with what is applied and what remains. */
    review(planId: string): ChangesetReview {
      const plan = get(planId);
      if (!plan.changesetId) return { changesetId: null, files: [] };
      const byId = new Map(lifecycle.listDecisions(planId).map((d) => [d.id, d]));
      const files = reviewFiles(planId).map((file) => ({
        ...file,
        steps: file.decisionIds.map((id) => ({ id, description: byId.get(id)?.description ?? id })),
      }));
      return { changesetId: plan.changesetId, files };
    },

    /** Every file of the review with the unified diff of its net change. */
    reviewWithDiffs(planId: string): { file: ReviewFile; diff: string | null }[] {
      return reviewDiffs(reviewNet(changeEntries(planId), stores.applied.list(planId)));
    },

    /** One file of the review with the hunks of its net change as the diff view draws them (null for a binary file). */
    reviewDiff(planId: string, path: string): { file: ReviewFile; hunks: DiffHunk[] | null } {
      const { changesetId } = get(planId);
      const file = reviewFiles(planId).find((f) => f.path === path || f.oldPath === path);
      // Only the entries behind this file are read: their net change is the file's.
      const entries = file && changesetId ? file.entryIds.flatMap((id) => stores.changesets.getEntry(changesetId, id) ?? []) : [];
      const found = file && reviewFileHunks(reviewNet(entries, stores.applied.list(planId)), file.path);
      if (!found) throw new ValidationError('path', `plan ${planId} does not change "${path}"`);
      return found;
    },

    /** The error history, the tree's error decisions, and the next steps that apply now (none unless the plan is errored). */
    errors(planId: string): { planId: string; errors: ErrorRecord[]; recoveryDecisions: StrategyDecision[]; recoveryHints: RecoveryHint[] } {
      const plan = get(planId);
      const errors = stores.errors.listForPlan(planId);
      const all = lifecycle.listDecisions(planId);
      const last = errors.at(-1);
      const step = last?.decisionId ? stepsInOrder(all).findIndex((d) => d.id === last.decisionId) + 1 : 0;
      const hints = plan.processingState === 'errored' ? recoveryHints(last?.category ?? classifyError(null), step || null) : [];
      return { planId, errors, recoveryDecisions: all.filter((d) => d.type === 'error_recovery'), recoveryHints: hints };
    },

    /** The plan's approvals, oldest first; the pending one (at most one) is what the plan waits for. */
    approvals(planId: string): { planId: string; pending: Approval | null; approvals: Approval[] } {
      get(planId);
      const approvals = stores.approvals.listForPlan(planId);
      return { planId, pending: pendingApproval(approvals) ?? null, approvals };
    },
  };
}

export type PlanReading = ReturnType<typeof planReading>;
