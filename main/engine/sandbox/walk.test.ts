import { describe, expect, it } from 'vitest';
import { mapLimit } from './walk';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapLimit', () => {
  it('keeps at most `limit` in flight and returns the results in order', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapLimit([5, 1, 4, 2, 3], 2, async (ms) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await sleep(ms);
      inFlight -= 1;
      return ms * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('after a failure starts nothing new, and rejects only once what had started has settled', async () => {
    const started: number[] = [];
    const settled: number[] = [];
    const run = mapLimit([0, 1, 2, 3], 2, async (i) => {
      started.push(i);
      if (i === 0) throw new Error('too large');
      await sleep(30);
      settled.push(i);
    });
    await expect(run).rejects.toThrow('too large');
    expect(started).toEqual([0, 1]);
    expect(settled).toEqual([1]);
  });
});
