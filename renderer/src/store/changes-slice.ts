import { type ChangeEntryMeta, type ResponseOf } from '../../../shared/contract';
import { coalesce } from '../lib/coalesce';
import { errorText } from '../lib/format';
import type { LoadStatus, SliceCreator } from './types';

export const CHANGES_PAGE = 500;

export type ChangeDetail = ResponseOf<'plans.change'>;
export type DiffState = { status: 'loading' } | { status: 'loaded'; data: ChangeDetail } | { status: 'error'; message: string };
export type ApplyResult = ResponseOf<'plans.apply'>;

export interface ChangesSlice {
  changesetId: string | null;
  changeEntries: ChangeEntryMeta[];
  changesTotal: number;
  changesStatus: LoadStatus;
  changesError: string | null;
  selectedEntryId: string | null;
  diffs: Record<string, DiffState>;
  /** Paths left out of the next apply; everything else is included. */
  excludedPaths: Record<string, true>;
  applyStatus: 'idle' | 'applying';
  applyResult: ApplyResult | null;
  /** Reloads the first page (and as many more as were loaded), coalesced: after a gap in seq or a resync. */
  refreshChanges(): void;
  /**
   * Appends entries that change_recorded events carried, skipping any already listed. Until every
   * page is loaded, only the total grows: the entry comes with its page.
   */
  appendChanges(entries: readonly ChangeEntryMeta[], changesetId: string | null): void;
  loadMoreChanges(): Promise<void>;
  selectEntry(entryId: string | null): void;
  moveEntrySelection(delta: number): void;
  togglePath(path: string): void;
  setAllIncluded(included: boolean): void;
  /** Applies the included files (all of them when none is left out); conflicts come back per file. */
  applySelected(): Promise<void>;
}

export const initialChangesState = {
  changesetId: null as string | null,
  changeEntries: [] as ChangeEntryMeta[],
  changesTotal: 0,
  changesStatus: 'idle' as LoadStatus,
  changesError: null as string | null,
  selectedEntryId: null as string | null,
  diffs: {} as Record<string, DiffState>,
  excludedPaths: {} as Record<string, true>,
  applyStatus: 'idle' as const,
  applyResult: null as ApplyResult | null,
};

export const createChangesSlice: SliceCreator<ChangesSlice> = (set, get, deps) => {
  // Ids of the listed entries, for appendChanges: events replayed after a snapshot repeat entries it had.
  let listed = new Set<string>();
  let listedFrom: readonly ChangeEntryMeta[] = [];
  const listedIds = (entries: readonly ChangeEntryMeta[]) => {
    if (entries !== listedFrom) {
      listed = new Set(entries.map((e) => e.id));
      listedFrom = entries;
    }
    return listed;
  };
  // Entries that arrived while the list was loading: applied over the snapshot once it is in.
  let arrivedWhileLoading: ChangeEntryMeta[] = [];

  const loadDiff = async (planId: string, entryId: string) => {
    const existing = get().diffs[entryId];
    if (existing && existing.status !== 'error') return;
    set({ diffs: { ...get().diffs, [entryId]: { status: 'loading' } } });
    let next: DiffState;
    try {
      next = { status: 'loaded', data: await deps.bridge['plans.change']({ planId, entryId }) };
    } catch (error) {
      next = { status: 'error', message: errorText(error) };
    }
    if (get().planId === planId) set({ diffs: { ...get().diffs, [entryId]: next } });
  };

  const reload = async () => {
    const planId = get().planId;
    if (!planId) return;
    if (get().changesStatus !== 'loaded') {
      // A plan being opened: nothing that arrived before is this plan's.
      arrivedWhileLoading = [];
      set({ changesStatus: 'loading' });
    }
    try {
      const wanted = Math.max(CHANGES_PAGE, get().changeEntries.length);
      const entries: ChangeEntryMeta[] = [];
      let total = 0;
      let changesetId: string | null = null;
      while (entries.length < wanted) {
        const page = await deps.bridge['plans.changes']({ planId, offset: entries.length, limit: CHANGES_PAGE });
        entries.push(...page.entries);
        total = page.total;
        changesetId = page.changesetId;
        if (page.entries.length < CHANGES_PAGE) break;
      }
      if (get().planId !== planId) return;
      // A file written twice while the plan runs changes its entry: keep only diffs still current.
      const previous = new Map(get().changeEntries.map((e) => [e.id, e]));
      const current = new Map(entries.map((e) => [e.id, e]));
      const diffs: Record<string, DiffState> = {};
      if (get().changesetId === changesetId) {
        for (const [id, diff] of Object.entries(get().diffs)) {
          const before = previous.get(id);
          const now = current.get(id);
          if (before && now && before.afterHash === now.afterHash && before.beforeHash === now.beforeHash) diffs[id] = diff;
        }
      }
      set({ changeEntries: entries, changesTotal: total, changesetId, changesStatus: 'loaded', changesError: null, diffs });
      const arrived = arrivedWhileLoading;
      arrivedWhileLoading = [];
      if (arrived.length > 0) get().appendChanges(arrived, null);
      const selected = get().selectedEntryId;
      if (selected && current.has(selected) && !diffs[selected]) void loadDiff(planId, selected);
    } catch (error) {
      if (get().planId === planId) set({ changesStatus: get().changesStatus === 'loaded' ? 'loaded' : 'error', changesError: errorText(error) });
    }
  };

  return {
    ...initialChangesState,
    refreshChanges: coalesce(reload, { minIntervalMs: 250, setTimeout: deps.setTimeout, now: deps.now }),

    appendChanges(entries, changesetId) {
      const state = get();
      if (!state.planId) return;
      if (state.changesStatus !== 'loaded') {
        arrivedWhileLoading.push(...entries);
        if (changesetId) set({ changesetId });
        return;
      }
      const ids = listedIds(state.changeEntries);
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
      const changeEntries = fresh.length === 0 ? state.changeEntries : [...state.changeEntries, ...fresh];
      for (const entry of fresh) ids.add(entry.id);
      listedFrom = changeEntries;
      set({ changeEntries, changesTotal: state.changesTotal + fresh.length, changesetId: nextChangeset });
    },

    async loadMoreChanges() {
      const { planId, changeEntries, changesTotal } = get();
      if (!planId || changeEntries.length >= changesTotal) return;
      try {
        const page = await deps.bridge['plans.changes']({ planId, offset: changeEntries.length, limit: CHANGES_PAGE });
        if (get().planId !== planId || get().changeEntries.length !== changeEntries.length) return;
        set({ changeEntries: [...changeEntries, ...page.entries], changesTotal: page.total });
      } catch (error) {
        set({ changesError: errorText(error) });
      }
    },

    selectEntry(entryId) {
      set({ selectedEntryId: entryId });
      const planId = get().planId;
      if (entryId && planId) void loadDiff(planId, entryId);
    },

    moveEntrySelection(delta) {
      const entries = get().changeEntries;
      if (entries.length === 0) return;
      const current = entries.findIndex((e) => e.id === get().selectedEntryId);
      const next = current < 0 ? 0 : Math.min(entries.length - 1, Math.max(0, current + delta));
      get().selectEntry(entries[next].id);
    },

    togglePath(path) {
      const { [path]: was, ...rest } = get().excludedPaths;
      set({ excludedPaths: was ? rest : { ...rest, [path]: true } });
    },

    setAllIncluded(included) {
      set({ excludedPaths: included ? {} : Object.fromEntries(get().changeEntries.map((e) => [e.path, true as const])) });
    },

    async applySelected() {
      const { planId, changeEntries, changesTotal, excludedPaths } = get();
      if (!planId || get().applyStatus === 'applying') return;
      const excluded = Object.keys(excludedPaths).length;
      const paths = excluded === 0 ? undefined : [...new Set(changeEntries.map((e) => e.path).filter((p) => !excludedPaths[p]))];
      if (paths && changeEntries.length < changesTotal) {
        get().announce('Load every changed file before applying a selection');
        return;
      }
      if (paths && paths.length === 0) {
        get().announce('No files selected to apply');
        return;
      }
      set({ applyStatus: 'applying', applyResult: null });
      try {
        const result = await deps.bridge['plans.apply']({ planId, paths });
        if (get().planId !== planId) return;
        set({ applyResult: result });
        get().announce(
          result.conflicts.length > 0
            ? `Apply stopped: ${result.conflicts.length} file${result.conflicts.length === 1 ? '' : 's'} changed in the project since the plan ran`
            : `Applied ${result.applied.length} file${result.applied.length === 1 ? '' : 's'}`,
        );
        get().refreshPlan();
      } catch (error) {
        if (get().planId === planId) set({ actionError: `Apply failed: ${errorText(error)}` });
        get().announce(`Apply failed: ${errorText(error)}`);
      } finally {
        if (get().planId === planId) set({ applyStatus: 'idle' });
      }
    },
  };
};
