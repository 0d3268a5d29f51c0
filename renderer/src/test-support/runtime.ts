import { createAppRuntime } from '../store/create-store';
import type { FrameScheduler } from '../lib/frame-buffer';
import { FakeBridge, settle } from './fake-bridge';

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
