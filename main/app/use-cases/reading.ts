import type { Approval } from '../../../shared/approvals';
import type { ChangeEntry, DiffHunk } from '../../../shared/changes';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import type { ErrorRecord } from '../../../shared/error-records';
import type { ToolInvocation } from '../../../shared/tool-calls';
import type { ChangeEntryMeta, PlanListItem, PlanTraceView, ToolTally } from '../../../shared/contract';
import { childrenByParent, stepsInOrder } from '../../../shared/decision-tree';
import type { StreamEvent } from '../../../shared/events';
import { comparePlansForList, needsAttention } from '../../../shared/plan-order';
import { ValidationError } from '../../../shared/errors';
import { entryLineCounts, toEntryMeta } from '../../engine/ports/changeset-store';
import { entryHunks, unifiedDiff } from '../../engine/changeset/diff';
import { type ReviewFile, reviewChanges, reviewDiffs, reviewFileHunks, reviewNet } from '../../engine/changeset/review';
import { exportPatch } from '../../engine/changeset/patch';
import type { RecoveryHint } from '../../../shared/contract';
import { classifyError, recoveryHints } from '../../engine/run/error-recovery-service';
import { pendingApproval } from '../../engine/ports/approvals';
import { type ConfinementProbe, detectConfinement } from '../../engine/tools/confinement';
import type { PlanContext } from './plan-context';
import type { TraceIdFollower } from '../telemetry/run-spans';

export interface DecisionNode extends StrategyDecision {
  children: DecisionNode[];
}

export interface DiffEntry extends ChangeEntryMeta {
  diff: string | null;
}

export interface ExternalEvents {
  /** Changes whenever another process commits to the database. */
  version(): Promise<number>;
  /** Every plan's last event seq. */
  lastSeqs(): Promise<Map<string, number>>;
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
/** Events read at once while following a plan's trace id. */
const TRACE_PAGE = 2_000;

export function planReading(ctx: PlanContext) {
  const { lifecycle, stores } = ctx;
  const get = (planId: string): Promise<Plan> => ctx.get(planId);
  const reviewCache = new Map<string, { key: string; files: ReviewFile[] }>();
  const traceFollowers = new Map<string, TraceIdFollower>();
  /** Several reads on one snapshot where the stores can (SQLite); else they simply run. */
  const together = <T>(read: () => Promise<T>): Promise<T> => (stores.readTogether ? stores.readTogether(read) : read());

  const decisions = async (planId: string): Promise<StrategyDecision[]> => {
    await get(planId);
    return lifecycle.listDecisions(planId);
  };

  const changeEntries = async (planId: string): Promise<ChangeEntry[]> => {
    const plan = await get(planId);
    return plan.changesetId ? ((await stores.changesets.get(plan.changesetId))?.entries ?? []) : [];
  };

  /**
   * The files of a plan's review (no contents), kept while neither the entries (appended only) nor
   * what was applied changed: a running plan's console asks for it when a path changes again.
   */
  const reviewFiles = async (planId: string): Promise<ReviewFile[]> => {
    const plan = await get(planId);
    if (!plan.changesetId) return [];
    const applied = await stores.applied.list(planId);
    // A rewind changes what is part of the review without adding an entry: its time is part of the key.
    const key = `${plan.changesetId}:${await stores.changesets.countEntries(plan.changesetId)}:${plan.lastRewind?.at ?? ''}:${JSON.stringify(applied)}`;
    const cached = reviewCache.get(planId);
    if (cached?.key === key) return cached.files;
    const files = reviewChanges(await changeEntries(planId), applied);
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
    list: (): Promise<Plan[]> => lifecycle.listPlans(),
    decisions,
    changeEntries,

    async tree(planId: string): Promise<DecisionNode | null> {
      const children = childrenByParent(await decisions(planId));
      const build = (decision: StrategyDecision): DecisionNode => ({ ...decision, children: (children.get(decision.id) ?? []).map(build) });
      const root = children.get(null)?.find((d) => d.type === 'prompt_definition');
      return root ? build(root) : null;
    },

    /** Plans for the list view: progress, and the ones that need the operator first. */
    async listItems(filter: { state?: Plan['processingState']; search?: string } = {}): Promise<PlanListItem[]> {
      const search = filter.search?.trim().toLowerCase();
      const plans = (await lifecycle.listPlans()).filter(
        (p) => (!filter.state || p.processingState === filter.state) && (!search || p.name.toLowerCase().includes(search)),
      );
      const items: PlanListItem[] = [];
      for (const plan of plans) {
        const steps = await lifecycle.stepCounts(plan.id);
        // Waiting to be applied is its own state, not one that needs attention.
        const awaitingApply = plan.phase === 'apply' && plan.processingState === 'queued';
        items.push({ ...plan, progress: { done: steps.done, total: steps.total }, needsAttention: needsAttention(plan), awaitingApply });
      }
      return items.sort(comparePlansForList);
    },

    /** One page of the changeset's entries, without file contents. */
    async changes(planId: string, offset = 0, limit = 500): Promise<{ changesetId: string | null; total: number; entries: ChangeEntryMeta[] }> {
      const plan = await get(planId);
      const changesetId = plan.changesetId;
      if (!changesetId) return { changesetId: null, total: 0, entries: [] };
      return together(async () => ({
        changesetId,
        total: await stores.changesets.countEntries(changesetId),
        entries: await stores.changesets.listEntryMeta(changesetId, { offset, limit }),
      }));
    },

    /** One entry with its hunks, as the diff view draws them; the file texts stay here. */
    async change(planId: string, entryId: string): Promise<{ entry: ChangeEntryMeta; hunks: DiffHunk[] | null }> {
      const { changesetId } = await get(planId);
      const meta = changesetId ? await stores.changesets.getEntryMeta(changesetId, entryId) : undefined;
      const entry = changesetId && meta ? await stores.changesets.getEntry(changesetId, entryId) : undefined;
      if (!meta || !entry) throw new ValidationError('entryId', `no change entry "${entryId}" in plan ${planId}`);
      return { entry: meta, hunks: entryHunks(entry) };
    },

    async invocations(planId: string): Promise<ToolInvocation[]> {
      await get(planId);
      return stores.invocations.listForPlan(planId);
    },

    async invocationsForDecision(planId: string, decisionId: string): Promise<ToolInvocation[]> {
      await get(planId);
      return (await stores.invocations.listForDecision(decisionId)).filter((i) => i.planId === planId);
    },

    /** The tallies and the last seq they count through, read on one snapshot: the events after it are those not counted. */
    async toolTallies(planId: string): Promise<{ tallies: ToolTally[]; throughSeq: number }> {
      await get(planId);
      return together(async () => ({ tallies: await stores.invocations.talliesForPlan(planId), throughSeq: await stores.events.lastSeq(planId) }));
    },

    async eventsAfter(planId: string, afterSeq = 0, limit = 1000): Promise<{ events: StreamEvent[]; lastSeq: number }> {
      await get(planId);
      return together(async () => ({ events: await stores.events.list(planId, afterSeq, limit), lastSeq: await stores.events.lastSeq(planId) }));
    },

    /**
     * What other processes append to the shared event log, for a host to poll: undefined where the
     * log is this process's alone (in memory).
     */
    externalEvents: (log.externalVersion && log.lastSeqs
      ? { version: async () => (await log.externalVersion?.()) ?? 0, lastSeqs: async () => (await log.lastSeqs?.()) ?? new Map<string, number>() }
      : undefined) as ExternalEvents | undefined,

    async diff(planId: string): Promise<{ planId: string; changesetId: string | null; entries: DiffEntry[] }> {
      const plan = await get(planId);
      const entries = await changeEntries(planId);
      // Line counts as stored when each entry was recorded, not computed again.
      const metas = plan.changesetId ? await stores.changesets.listEntryMeta(plan.changesetId, { offset: 0, limit: entries.length }) : [];
      const byId = new Map(metas.map((m) => [m.id, m]));
      return {
        planId,
        changesetId: plan.changesetId,
        entries: entries.map((entry) => ({ ...(byId.get(entry.id) ?? toEntryMeta(entry, entryLineCounts(entry))), diff: unifiedDiff(entry) })),
      };
    },

    patch: async (planId: string): Promise<string> => exportPatch(await changeEntries(planId)),

    /** The changeset as files to review: one row per path, netted across steps, with what is applied and what remains. */
    async review(planId: string): Promise<ChangesetReview> {
      const plan = await get(planId);
      if (!plan.changesetId) return { changesetId: null, files: [] };
      const byId = new Map((await lifecycle.listDecisions(planId)).map((d) => [d.id, d]));
      const files = (await reviewFiles(planId)).map((file) => ({
        ...file,
        steps: file.decisionIds.map((id) => ({ id, description: byId.get(id)?.description ?? id })),
      }));
      return { changesetId: plan.changesetId, files };
    },

    /** Every file of the review with the unified diff of its net change. */
    async reviewWithDiffs(planId: string): Promise<{ file: ReviewFile; diff: string | null }[]> {
      return reviewDiffs(reviewNet(await changeEntries(planId), await stores.applied.list(planId)));
    },

    /** One file of the review with the hunks of its net change as the diff view draws them (null for a binary file). */
    async reviewDiff(planId: string, path: string): Promise<{ file: ReviewFile; hunks: DiffHunk[] | null }> {
      const { changesetId } = await get(planId);
      const file = (await reviewFiles(planId)).find((f) => f.path === path || f.oldPath === path);
      // Only the entries behind this file are read: their net change is the file's.
      const entries: ChangeEntry[] = [];
      if (file && changesetId) {
        for (const id of file.entryIds) {
          const entry = await stores.changesets.getEntry(changesetId, id);
          if (entry) entries.push(entry);
        }
      }
      const found = file && reviewFileHunks(reviewNet(entries, await stores.applied.list(planId)), file.path);
      if (!found) throw new ValidationError('path', `plan ${planId} does not change "${path}"`);
      return found;
    },

    /** The error history, the tree's error decisions, and the next steps that apply now (none unless the plan is errored). */
    async errors(planId: string): Promise<{ planId: string; errors: ErrorRecord[]; recoveryDecisions: StrategyDecision[]; recoveryHints: RecoveryHint[] }> {
      const plan = await get(planId);
      const errors = await stores.errors.listForPlan(planId);
      const all = await lifecycle.listDecisions(planId);
      const last = errors.at(-1);
      const step = last?.decisionId ? stepsInOrder(all).findIndex((d) => d.id === last.decisionId) + 1 : 0;
      const hints = plan.processingState === 'errored' ? recoveryHints(last?.category ?? classifyError(null), step || null) : [];
      return { planId, errors, recoveryDecisions: all.filter((d) => d.type === 'error_recovery'), recoveryHints: hints };
    },

    /** The plan's approvals, oldest first; the pending one (at most one) is what the plan waits for. */
    async approvals(planId: string): Promise<{ planId: string; pending: Approval | null; approvals: Approval[] }> {
      await get(planId);
      const approvals = await stores.approvals.listForPlan(planId);
      return { planId, pending: pendingApproval(approvals) ?? null, approvals };
    },

    /**
     * The trace id of the plan's current or last run (null before it first ran), and the trace
     * viewer's address for it when `traceUrl` is set. Each call reads only the events since the last.
     */
    async planTrace(planId: string): Promise<PlanTraceView | null> {
      const { TraceIdFollower } = await import('../telemetry/run-spans');
      let follower = traceFollowers.get(planId);
      if (!follower) traceFollowers.set(planId, (follower = new TraceIdFollower(planId)));
      // A page at a time: a first read of a long plan must not hold its whole log at once.
      for (;;) {
        const page = await ctx.events.log.list(planId, follower.seq, TRACE_PAGE);
        follower.follow(page);
        if (page.length < TRACE_PAGE) break;
      }
      const traceId = follower.traceId;
      if (!traceId) return null;
      let template: string | undefined;
      try {
        template = ctx.options.settings.read().traceUrl;
      } catch {
        // A broken settings file is reported where the settings are used; the trace id still shows.
      }
      return { traceId, url: template ? template.replaceAll('{traceId}', traceId) : null };
    },
  };
}

export type PlanReading = ReturnType<typeof planReading>;
