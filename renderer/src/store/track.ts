import { errorText } from '../lib/format';
import type { PlanSession } from './plan-session';
import type { AppState, AppStore } from './types';

/** The fields of the store that can hold a value of type V. */
type KeysOf<V> = { [K in keyof AppState]: [V] extends [AppState[K]] ? K : never }[keyof AppState];

/** Where one kind of request keeps its state: which one is on its way (if the kind has a flag), and how the last one failed. */
export interface BusySlot<K> {
  busy?: KeysOf<K | null> | KeysOf<K | false>;
  error: KeysOf<string | null>;
  /** Another may start while one is on its way (the flag names the latest); by default it is refused. */
  concurrent?: boolean;
}

/**
 * Runs one request of the open plan under its busy flag and error field: nothing with no plan open,
 * or while the flag is set (unless the slot is concurrent); else the flag is set and the error cleared, then `work` runs; a failure
 * is worded by `failed` (default: the error's text), kept in the error field and announced; the
 * flag is cleared at the end. Bound to the plan's session: once another plan is opened, nothing of
 * it reaches the store.
 */
export async function track<K extends string | true>(
  store: Pick<AppStore, 'getState' | 'setState'>,
  slot: BusySlot<NoInfer<K>>,
  kind: K,
  work: (session: PlanSession) => Promise<void>,
  failed: (error: unknown, session: PlanSession) => string | Promise<string> = errorText,
): Promise<void> {
  const { getState: get, setState: set } = store;
  const session = get().session;
  if (!session || (slot.busy && !slot.concurrent && get()[slot.busy])) return;
  const patch = (busy: K | null | false, error?: string | null) =>
    ({ ...(slot.busy ? { [slot.busy]: busy } : {}), ...(error === undefined ? {} : { [slot.error]: error }) }) as Partial<AppState>;
  set(patch(kind, null));
  try {
    await work(session);
  } catch (error) {
    const message = await failed(error, session);
    set({ [slot.error]: message } as Partial<AppState>);
    get().announce(message);
  } finally {
    // Only while the session is open: a closed one's state is gone with it.
    if (!session.closed && slot.busy && get()[slot.busy] === (kind as unknown)) set(patch(kind === true ? false : null));
  }
}
