import { describe, expect, it } from 'vitest';
import { ManualTimers } from '../test-support/fake-socket';
import { createFrameBuffer, type FrameScheduler } from './frame-buffer';

function manualFrames() {
  const callbacks = new Map<number, () => void>();
  let next = 1;
  const frames: FrameScheduler = {
    request: (cb) => {
      callbacks.set(next, cb);
      return next++;
    },
    cancel: (h) => void callbacks.delete(h as number),
  };
  const tick = () => {
    const due = [...callbacks.values()];
    callbacks.clear();
    for (const cb of due) cb();
  };
  return { frames, tick, requested: () => callbacks.size };
}

describe('the per-frame event buffer', () => {
  it('applies everything pushed during a frame in one batch', () => {
    const { frames, tick, requested } = manualFrames();
    const batches: number[][] = [];
    const buffer = createFrameBuffer<number>((items) => batches.push(items), frames);
    buffer.push(1);
    buffer.push(2);
    buffer.push(3);
    expect(requested()).toBe(1);
    expect(batches).toEqual([]);
    tick();
    expect(batches).toEqual([[1, 2, 3]]);
    buffer.push(4);
    tick();
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('flushes on demand and does not apply the same items twice', () => {
    const { frames, tick } = manualFrames();
    const batches: number[][] = [];
    const buffer = createFrameBuffer<number>((items) => batches.push(items), frames);
    buffer.push(1);
    buffer.flush();
    tick();
    expect(batches).toEqual([[1]]);
  });

  it('falls back to a timer when no frame comes', () => {
    const { frames } = manualFrames();
    const timers = new ManualTimers();
    const batches: number[][] = [];
    const buffer = createFrameBuffer<number>((items) => batches.push(items), frames, {
      setTimeout: (fn, ms) => timers.setTimeout(fn, ms),
      clearTimeout: (h) => timers.clearTimeout(h),
      ms: 250,
    });
    buffer.push(1);
    timers.advance(250);
    expect(batches).toEqual([[1]]);
  });
});
