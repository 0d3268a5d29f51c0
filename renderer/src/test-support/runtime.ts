import { createAppRuntime } from '../store/create-store';
import type { FrameScheduler } from '../lib/frame-buffer';
import { reviewSummary } from '../lib/review-fold';
import type { AppState } from '../store/types';
import { FakeBridge, settle } from './fake-bridge';
import { hostActions } from './host-actions';

export function manualFrames(): { frames: FrameScheduler; tick(): void } {
  const callbacks = new Map<number, () => void>();
  let next = 1;
  return {
    frames: {
      request: (callback) => {
        callbacks.set(next, callback);
        return next++;
      },
      cancel: (handle) => void callbacks.delete(handle as number),
    },
    tick() {
      const due = [...callbacks.values()];
      callbacks.clear();
      for (const callback of due) callback();
    },
  };
}

/** A store over a fake bridge, with frames a test advances by hand and no rate limiting. */
export function testRuntime(fake = new FakeBridge()) {
  const { frames, tick } = manualFrames();
  let clock = 0;
  const runtime = createAppRuntime({
    bridge: fake.asBridge(),
    frames,
    now: () => (clock += 10_000),
    setTimeout: (fn, ms) => setTimeout(fn, ms),
    clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  });
  const { store } = runtime;
  followHostActions(store);
  return {
    fake,
    runtime,
    store,
    state: () => store.getState(),
    /** One animation frame, then let the follow-up fetches finish. */
    async frame() {
      tick();
      await settle();
    },
    settle,
  };
}

/** What the store holds that a host's `actions` depend on. */
const inputsOf = (s: AppState) => [s.plan, s.decisions, s.pendingApproval, s.checkpoints, s.checkpointsStatus, s.reviewFiles, s.team] as const;

/**
 * A test moves the open plan by setting the store (its row, tree, waiting call, checkpoints or
 * review) where a real console would have asked plans.get again: the fake host's `actions` follow,
 * as the host would list them for what the store now holds.
 */
function followHostActions(store: { getState(): AppState; setState(partial: Partial<AppState>): void; subscribe(listener: (state: AppState, previous: AppState) => void): () => void }): void {
  let last: readonly unknown[] = [];
  store.subscribe((state, previous) => {
    const inputs = inputsOf(state);
    if (!state.plan || inputs.every((input, i) => input === last[i])) return;
    last = inputs;
    // The host's own answer (plans.get) came with this change: it stands.
    if (state.planActions !== previous.planActions) return;
    const planActions = hostActions(state.plan, {
      decisions: Object.values(state.decisions),
      pendingApproval: state.pendingApproval !== null,
      checkpoints: state.checkpointsStatus === 'loaded' ? state.checkpoints.length : undefined,
      partlyApplied: reviewSummary(state.reviewFiles).touched > 0,
      team: state.team !== null,
    });
    store.setState({ planActions });
  });
}
