import { type ChangeEntryMeta, type ResponseOf, type ReviewFile } from '../../../shared/contract';
import { declinedHunks, rejectionOf } from '../../../shared/review-feedback';
import { foldEntries, reviewFileAt, reviewSummary } from '../lib/review-fold';
import { errorText, remainLine } from '../lib/format';
import { actionState } from './plan-actions';
import { initialEditorState } from './editor-slice';
import type { PlanSession } from './plan-session';
import type { LoadStatus } from './state/load-status';
import type { SliceCreator } from './types';
import type { ApplyResult, FileDiffState, ApplyPlanFile, ChangesSlice } from './state/changes';
import { isStaleRefusal } from '../lib/stale-refusal';

export const CHANGES_PAGE = 500;

/** A diff is reloaded when what it shows changed: the entries behind the file, or what is applied. */
export function reviewKey(file: Pick<ReviewFile, 'entryIds' | 'appliedHunks'>): string {
  return `${file.entryIds.join(',')}|${file.appliedHunks.join(',')}`;
}

/** How many files the next apply takes, and whether each is whole, without listing them when nothing is left out. */
export function acceptedCount(files: readonly ReviewFile[], excluded: Record<string, true>, rejected: Record<string, number[]>): { files: number; whole: boolean } {
  const nothingLeftOut = Object.keys(excluded).length === 0 && Object.values(rejected).every((hunks) => hunks.length === 0);
  if (nothingLeftOut) return { files: reviewSummary(files).left, whole: true };
  const accepted = acceptedPlan(files, excluded, rejected);
  return { files: accepted.length, whole: accepted.every((f) => f.hunks === null) };
}

/** The files and hunks the operator accepted, among those not applied yet. */
/** Whether every hunk of `file` not yet applied is among `declined`. */
export function allDeclined(file: ReviewFile, declined: readonly number[]): boolean {
  const left = file.hunks.filter((h) => !h.applied);
  return left.length > 0 && left.every((h) => declined.includes(h.index));
}

export function acceptedPlan(files: readonly ReviewFile[], excluded: Record<string, true>, rejected: Record<string, number[]>): ApplyPlanFile[] {
  const plan: ApplyPlanFile[] = [];
  for (const file of files) {
    if (file.state === 'applied' || excluded[file.path]) continue;
    const left = file.hunks.filter((h) => !h.applied);
    const rejectedHere = new Set(rejected[file.path] ?? []);
    const accepted = left.filter((h) => !rejectedHere.has(h.index));
    if (left.length > 0 && accepted.length === 0) continue;
    const partial = accepted.length < left.length;
    const counted = left.length === 0 ? [{ insertions: file.insertions, deletions: file.deletions }] : accepted;
    plan.push({
      path: file.path,
      hunks: partial ? accepted.map((h) => h.index) : null,
      insertions: counted.reduce((n, h) => n + h.insertions, 0),
      deletions: counted.reduce((n, h) => n + h.deletions, 0),
    });
  }
  return plan;
}

export const initialChangesState = {
  changesetId: null as string | null,
  changeEntries: [] as ChangeEntryMeta[],
  changesTotal: 0,
  changesStatus: 'idle' as LoadStatus,
  changesError: null as string | null,
  reviewFiles: [] as ReviewFile[],
  selectedPath: null as string | null,
  fileDiffs: {} as Record<string, FileDiffState>,
  excludedPaths: {} as Record<string, true>,
  rejectedHunks: {} as Record<string, number[]>,
  applyStatus: 'idle' as 'idle' | 'confirming' | 'applying',
  applyResult: null as ApplyResult | null,
  applyFailedChecks: null as string | null,
  // The editor shows a file of the open plan's sandbox: it closes with the plan.
  ...initialEditorState,
};

export const createChangesSlice: SliceCreator<ChangesSlice> = (set, get, deps) => {
  // Ids of the listed entries, for appendChanges: events replayed after a snapshot repeat entries it had.
  const listedIds = ({ changes }: PlanSession, entries: readonly ChangeEntryMeta[]) => {
    if (entries !== changes.listedFrom) {
      changes.listed = new Set(entries.map((e) => e.id));
      changes.listedFrom = entries;
    }
    return changes.listed;
  };

  const loadFileDiff = async ({ bridge, planId }: PlanSession, path: string) => {
    const file = reviewFileAt(get().reviewFiles, path);
    if (!file) return;
    const key = reviewKey(file);
    const existing = get().fileDiffs[path];
    if (existing && existing.key === key && existing.status !== 'error') return;
    set({ fileDiffs: { ...get().fileDiffs, [path]: { status: 'loading', key } } });
    let next: FileDiffState;
    try {
      next = { status: 'loaded', key, data: await bridge['plans.reviewDiff']({ planId, path }) };
    } catch (error) {
      next = { status: 'error', key, message: errorText(error) };
    }
    const update: Partial<ChangesSlice> = { fileDiffs: { ...get().fileDiffs, [path]: next } };
    // The host's row of the file comes with its diff: a row folded from an entry gets its hunks.
    if (next.status === 'loaded') {
      const hostFile = next.data.file;
      const files = get().reviewFiles;
      const at = files.findIndex((f) => f.path === hostFile.path);
      if (at >= 0 && reviewKey(files[at]) === reviewKey(hostFile)) {
        const merged = [...files];
        merged[at] = { ...hostFile, steps: files[at].steps };
        update.reviewFiles = merged;
      }
    }
    set(update);
  };

  /** The plan's declined hunks, per path, where the review still has them (found by what they change); a reworked hunk is shown accepted. */
  const storedRejections = (files: readonly ReviewFile[]): Record<string, number[]> => {
    const rejections = get().plan?.rejectedHunks ?? [];
    const byPath: Record<string, number[]> = {};
    for (const file of files) {
      const declined = declinedHunks(rejections, file.path, file.hunks);
      if (declined.length > 0) byPath[file.path] = declined;
    }
    return byPath;
  };

  /** Writes a verdict through to the plan; if the host refuses, the page shows what the plan keeps. */
  const keepVerdict = async (path: string, hunks: number[], declined: boolean, reason?: string) => {
    const session = get().session;
    if (!session) return;
    try {
      const { plan } = declined
        ? await session.bridge['plans.rejectHunks']({ planId: session.planId, path, hunks, ...(reason !== undefined ? { reason } : {}) })
        : await session.bridge['plans.restoreHunks']({ planId: session.planId, path, hunks });
      if (get().session === session) set({ plan });
    } catch (error) {
      get().announce(`Couldn't keep the review of ${path}: ${errorText(error)}`);
    }
  };

  const describe = (decisionId: string) => get().decisions[decisionId]?.description ?? decisionId;

  const reloadReview = async (session: PlanSession) => {
    const { changes } = session;
    // Entries pushed while the review is asked for: its answer may not hold them yet.
    if (changes.asking === 0) changes.pushedSinceAsked = [];
    changes.asking += 1;
    let answer: ResponseOf<'plans.review'>;
    try {
      answer = await session.bridge['plans.review']({ planId: session.planId });
    } finally {
      changes.asking -= 1;
    }
    const pushed = changes.pushedSinceAsked;
    if (changes.asking === 0) changes.pushedSinceAsked = [];
    const folded = foldEntries(answer.files, pushed, describe);
    const files = folded.files;
    changes.reviewLoaded = true;
    if (folded.needsHost) refreshReview();
    const paths = new Set(files.map((f) => f.path));
    const selected = get().selectedPath;
    set({ reviewFiles: files, selectedPath: selected && paths.has(selected) ? selected : (files[0]?.path ?? null)});
    get().seedDeclinedHunks();
    const shown = get().selectedPath;
    if (shown) void loadFileDiff(session, shown);
  };

  const reload = async (session: PlanSession) => {
    const { bridge, planId, changes } = session;
    const review = reloadReview(session).catch((error: unknown) => set({ changesError: errorText(error) }));
    if (get().changesStatus !== 'loaded') set({ changesStatus: 'loading' });
    try {
      const wanted = Math.max(CHANGES_PAGE, get().changeEntries.length);
      const entries: ChangeEntryMeta[] = [];
      let total = 0;
      let changesetId: string | null = null;
      while (entries.length < wanted) {
        const page = await bridge['plans.changes']({ planId, offset: entries.length, limit: CHANGES_PAGE });
        entries.push(...page.entries);
        total = page.total;
        changesetId = page.changesetId;
        if (page.entries.length < CHANGES_PAGE) break;
      }
      set({ changeEntries: entries, changesTotal: total, changesetId, changesStatus: 'loaded', changesError: null });
      const arrived = changes.arrivedWhileLoading;
      changes.arrivedWhileLoading = [];
      if (arrived.length > 0) get().appendChanges(arrived, null);
    } catch (error) {
      set({ changesStatus: get().changesStatus === 'loaded' ? 'loaded' : 'error', changesError: errorText(error) });
    }
    await review;
  };

  const rateLimited = { minIntervalMs: 250, setTimeout: deps.setTimeout, now: deps.now };

  const refreshReview = () =>
    get().session?.task('review', (session) => reloadReview(session).catch((error: unknown) => set({ changesError: errorText(error) })), rateLimited)();

  /** The review with pushed entries in it, until the host's next answer. */
  const foldIntoReview = (session: PlanSession, entries: readonly ChangeEntryMeta[]) => {
    const { changes } = session;
    if (changes.asking > 0) changes.pushedSinceAsked.push(...entries);
    if (!changes.reviewLoaded) return;
    const folded = foldEntries(get().reviewFiles, entries, describe);
    if (folded.files === get().reviewFiles) return;
    const selected = get().selectedPath;
    set({ reviewFiles: folded.files, selectedPath: selected ?? folded.files[0]?.path ?? null });
    if (folded.needsHost) refreshReview();
    const shown = get().selectedPath;
    if (shown) void loadFileDiff(session, shown);
  };

  return {
    ...initialChangesState,
    refreshChanges: () => get().session?.task('changes', reload, rateLimited)(),
    refreshReview,

    appendChanges(entries, changesetId) {
      const state = get();
      const session = state.session;
      if (!session) return;
      if (entries.length > 0) foldIntoReview(session, entries);
      if (state.changesStatus !== 'loaded') {
        session.changes.arrivedWhileLoading.push(...entries);
        if (changesetId) set({ changesetId });
        return;
      }
      const ids = listedIds(session, state.changeEntries);
      const fresh: ChangeEntryMeta[] = [];
      const seen = new Set<string>();
      for (const entry of entries) {
        if (ids.has(entry.id) || seen.has(entry.id)) continue;
        seen.add(entry.id);
        fresh.push(entry);
      }
      const nextChangeset = changesetId ?? state.changesetId;
      if (fresh.length === 0 && nextChangeset === state.changesetId) return;
      const complete = state.changeEntries.length >= state.changesTotal;
      if (!complete) {
        set({ changesTotal: state.changesTotal + fresh.length, changesetId: nextChangeset });
        return;
      }
      const changeEntries = fresh.length === 0 ? state.changeEntries : state.changeEntries.concat(fresh);
      for (const entry of fresh) ids.add(entry.id);
      session.changes.listedFrom = changeEntries;
      set({ changeEntries, changesTotal: state.changesTotal + fresh.length, changesetId: nextChangeset });
    },

    selectEntry(entryId) {
      const file = entryId ? get().reviewFiles.find((f) => f.entryIds.includes(entryId)) : undefined;
      if (file) get().selectPath(file.path);
    },

    selectPath(path) {
      set({ selectedPath: path });
      const session = get().session;
      if (path && session) void loadFileDiff(session, path);
    },

    moveEntrySelection(delta) {
      const files = get().reviewFiles;
      if (files.length === 0) return;
      const current = files.findIndex((f) => f.path === get().selectedPath);
      const next = current < 0 ? 0 : Math.min(files.length - 1, Math.max(0, current + delta));
      get().selectPath(files[next].path);
    },

    togglePath(path) {
      const { [path]: was, ...rest } = get().excludedPaths;
      // A file whose every hunk is declined shows unticked: ticking it accepts its hunks again.
      const declined = get().rejectedHunks[path] ?? [];
      const file = get().reviewFiles.find((f) => f.path === path);
      if (!was && file && declined.length > 0 && allDeclined(file, declined)) {
        set({ rejectedHunks: { ...get().rejectedHunks, [path]: [] } });
        void keepVerdict(path, declined, false);
        return;
      }
      set({ excludedPaths: was ? rest : { ...rest, [path]: true } });
    },

    toggleHunk(path, hunk) {
      const current = get().rejectedHunks[path] ?? [];
      const declining = !current.includes(hunk);
      const next = declining ? [...current, hunk].sort((a, b) => a - b) : current.filter((h) => h !== hunk);
      set({ rejectedHunks: { ...get().rejectedHunks, [path]: next } });
      void keepVerdict(path, [hunk], declining);
    },

    seedDeclinedHunks() {
      if (get().plan?.id !== get().session?.planId) return;
      set({ rejectedHunks: { ...storedRejections(get().reviewFiles), ...get().rejectedHunks } });
    },

    async setHunkReason(path, hunk, reason) {
      const listed = get().reviewFiles.find((f) => f.path === path)?.hunks ?? [];
      const stored = rejectionOf(get().plan?.rejectedHunks ?? [], path, listed, hunk);
      if ((stored?.reason ?? '') === reason.trim()) return;
      await keepVerdict(path, [hunk], true, reason);
    },

    setAllIncluded(included) {
      if (included) for (const [path, hunks] of Object.entries(get().rejectedHunks)) if (hunks.length > 0) void keepVerdict(path, hunks, false);
      set({
        excludedPaths: included ? {} : Object.fromEntries(get().reviewFiles.filter((f) => f.state !== 'applied').map((f) => [f.path, true as const])),
        rejectedHunks: included ? {} : get().rejectedHunks,
      });
    },

    async applySelected() {
      const { planId, reviewFiles, excludedPaths, rejectedHunks } = get();
      if (!planId || get().applyStatus !== 'idle') return;
      if (acceptedPlan(reviewFiles, excludedPaths, rejectedHunks).length === 0) {
        get().announce('Nothing accepted to apply');
        return;
      }
      set({ applyStatus: 'confirming' });
    },

    cancelApply() {
      if (get().applyStatus === 'confirming') set({ applyStatus: 'idle', applyFailedChecks: null });
    },

    async confirmApply() {
      const { session, reviewFiles, excludedPaths, rejectedHunks } = get();
      if (!session || get().applyStatus !== 'confirming') return;
      const { planId } = session;
      // A check failed: apply asks a second time, naming the failed checks, and only then sends the confirmation.
      const decided = actionState(get(), 'apply');
      const confirm = decided.allowed ? decided.confirm : undefined;
      const acceptFailedChecks = get().applyFailedChecks !== null;
      if (confirm !== undefined && !acceptFailedChecks) {
        set({ applyFailedChecks: confirm });
        return;
      }
      const accepted = acceptedPlan(reviewFiles, excludedPaths, rejectedHunks);
      const left = reviewFiles.filter((f) => f.state !== 'applied');
      const everything = accepted.length === left.length && accepted.every((f) => f.hunks === null);
      const paths = accepted.filter((f) => f.hunks === null).map((f) => f.path);
      const hunks = Object.fromEntries(accepted.filter((f) => f.hunks !== null).map((f) => [f.path, f.hunks as number[]]));
      const request = { ...(everything ? { planId } : { planId, paths, ...(Object.keys(hunks).length > 0 ? { hunks } : {}) }), ...(acceptFailedChecks ? { acceptFailedChecks } : {}) };
      set({ applyStatus: 'applying', applyResult: null, applyFailedChecks: null });
      try {
        const result = await session.bridge['plans.apply'](request);
        // Declined hunks stay declined (they are kept with the plan), and a file left unticked stays
        // unticked: "apply the rest" must not write it.
        const stillExcluded = Object.fromEntries(Object.keys(get().excludedPaths).filter((path) => !result.applied.includes(path)).map((path) => [path, true as const]));
        set({ applyResult: result, excludedPaths: stillExcluded, rejectedHunks: storedRejections(get().reviewFiles) });
        const s = (n: number) => (n === 1 ? '' : 's');
        get().announce(
          result.conflicts.length > 0
            ? `Apply stopped: ${result.conflicts.length} file${s(result.conflicts.length)} changed in the project since the plan ran`
            : `Applied ${result.applied.length} file${s(result.applied.length)}${result.remaining.length > 0 ? `; ${remainLine(result.remaining.length)}` : ''}`,
        );
        // The host's apply_complete event brings the plan and the review up to date.
      } catch (error) {
        let message = `Apply failed: ${errorText(error)}`;
        if (isStaleRefusal(error)) {
          // The plan moved on elsewhere (applied or discarded by another process): the host's
          // message names its state; catch the view up.
          message = `Apply refused: ${errorText(error)}. The view has been refreshed.`;
          get().refreshPlan();
          get().refreshReview();
        }
        set({ actionError: message });
        get().announce(message);
      } finally {
        if (!session.closed) set({ applyStatus: 'idle' });
      }
    },
  };
};
