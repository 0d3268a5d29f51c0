import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommitGroup } from './commit-group';

/** A commit that records which units ran together. */
function recorder() {
  const commits: string[][] = [];
  let current: string[] | null = null;
  const commit = (writes: () => void) => {
    current = [];
    writes();
    commits.push(current);
    current = null;
  };
  const unit = (name: string) => () => current?.push(name);
  return { commits, commit, unit };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('CommitGroup', () => {
  it('commits queued units together, in order, when flushed', () => {
    const { commits, commit, unit } = recorder();
    const group = new CommitGroup(commit);
    group.add(unit('a'));
    group.add(unit('b'));
    expect(group.pending).toBe(2);
    group.flush();
    group.flush();
    expect(commits).toEqual([['a', 'b']]);
    expect(group.pending).toBe(0);
  });

  it('commits by itself once maxUnits are queued, or maxDelayMs after the first', () => {
    vi.useFakeTimers();
    const { commits, commit, unit } = recorder();
    const group = new CommitGroup(commit, { maxUnits: 3, maxDelayMs: 20 });
    group.add(unit('a'));
    group.add(unit('b'));
    group.add(unit('c'));
    expect(commits).toEqual([['a', 'b', 'c']]);
    group.add(unit('d'));
    vi.advanceTimersByTime(19);
    expect(commits).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(commits).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('keeps a failed commit and throws it from every later add and flush', () => {
    vi.useFakeTimers();
    const group = new CommitGroup(() => {
      throw new Error('disk I/O error');
    });
    group.add(() => undefined);
    vi.advanceTimersByTime(20);
    expect(() => group.add(() => undefined)).toThrow('disk I/O error');
    expect(() => group.flush()).toThrow('disk I/O error');
  });
});
