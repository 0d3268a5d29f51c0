import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommitGroup } from './commit-group';

/** A commit that records which units ran together. */
function recorder() {
  const commits: string[][] = [];
  let current: string[] | null = null;
  const commit = async (writes: () => Promise<void>) => {
    current = [];
    await writes();
    commits.push(current);
    current = null;
  };
  const unit = (name: string) => async () => {
    current?.push(name);
  };
  return { commits, commit, unit };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('CommitGroup', () => {
  it('commits queued units together, in order, when flushed', async () => {
    const { commits, commit, unit } = recorder();
    const group = new CommitGroup(commit);
    group.add(unit('a'));
    group.add(unit('b'));
    expect(group.pending).toBe(2);
    await group.flush();
    await group.flush();
    expect(commits).toEqual([['a', 'b']]);
    expect(group.pending).toBe(0);
  });

  it('commits by itself once maxUnits are queued, or maxDelayMs after the first', async () => {
    vi.useFakeTimers();
    const { commits, commit, unit } = recorder();
    const group = new CommitGroup(commit, { maxUnits: 3, maxDelayMs: 20 });
    group.add(unit('a'));
    group.add(unit('b'));
    group.add(unit('c'));
    await vi.advanceTimersByTimeAsync(0);
    expect(commits).toEqual([['a', 'b', 'c']]);
    group.add(unit('d'));
    await vi.advanceTimersByTimeAsync(19);
    expect(commits).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(commits).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('commits one group after the other, never two at once', async () => {
    const open: string[] = [];
    const overlaps: string[] = [];
    const group = new CommitGroup(async (writes) => {
      if (open.length > 0) overlaps.push('overlap');
      open.push('x');
      await new Promise((resolve) => setTimeout(resolve, 5));
      await writes();
      open.pop();
    });
    const ran: number[] = [];
    group.add(async () => void ran.push(1));
    const first = group.flush();
    group.add(async () => void ran.push(2));
    await Promise.all([first, group.flush()]);
    expect(ran).toEqual([1, 2]);
    expect(overlaps).toEqual([]);
  });

  it('keeps a failed commit and throws it from every later add and flush', async () => {
    vi.useFakeTimers();
    const group = new CommitGroup(async () => {
      throw new Error('disk I/O error');
    });
    group.add(async () => undefined);
    await vi.advanceTimersByTimeAsync(20);
    expect(() => group.add(async () => undefined)).toThrow('disk I/O error');
    await expect(group.flush()).rejects.toThrow('disk I/O error');
  });
});
