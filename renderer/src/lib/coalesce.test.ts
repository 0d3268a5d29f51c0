import { describe, expect, it } from 'vitest';
import { coalesce } from './coalesce';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('coalescing refreshes', () => {
  it('runs once more after the current run, however many triggers came in between', async () => {
    let runs = 0;
    let release: () => void = () => {};
    const trigger = coalesce(() => {
      runs++;
      return new Promise<void>((resolve) => (release = resolve));
    });
    trigger();
    trigger();
    trigger();
    expect(runs).toBe(1);
    release();
    await tick();
    expect(runs).toBe(2);
    release();
    await tick();
    expect(runs).toBe(2);
  });
});
