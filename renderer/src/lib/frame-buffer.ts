export interface FrameScheduler {
  request(callback: () => void): unknown;
  cancel(handle: unknown): void;
}

export const animationFrames: FrameScheduler = {
  request: (callback) => window.requestAnimationFrame(() => callback()),
  cancel: (handle) => window.cancelAnimationFrame(handle as number),
};

export interface FrameBuffer<T> {
  push(item: T): void;
  /** Applies whatever is buffered now, e.g. before a fresher snapshot replaces the state. */
  flush(): void;
  dispose(): void;
}

/**
 * Collects high-frequency items outside React and hands them over once per animation frame.
 * A fallback timer applies them when frames stop (a hidden tab gets none).
 */
export function createFrameBuffer<T>(
  apply: (items: T[]) => void,
  frames: FrameScheduler,
  fallback?: { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(handle: unknown): void; ms: number },
): FrameBuffer<T> {
  let buffer: T[] = [];
  let frame: unknown = null;
  let timer: unknown = null;

  const cancel = () => {
    if (frame !== null) frames.cancel(frame);
    if (timer !== null) fallback?.clearTimeout(timer);
    frame = null;
    timer = null;
  };

  const flush = () => {
    cancel();
    if (buffer.length === 0) return;
    const items = buffer;
    buffer = [];
    apply(items);
  };

  return {
    push(item) {
      buffer.push(item);
      if (frame !== null) return;
      frame = frames.request(flush);
      if (fallback) timer = fallback.setTimeout(flush, fallback.ms);
    },
    flush,
    dispose() {
      cancel();
      buffer = [];
    },
  };
}
