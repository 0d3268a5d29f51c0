import { describe, expect, it } from 'vitest';
import { makeEntry, reviewOf } from '../test-support/fake-bridge';
import { foldEntries, reviewFileAt, reviewSummary } from './review-fold';

const describe_ = (id: string) => `step ${id}`;

describe('foldEntries', () => {
  it('gives a path no row touches a row of its own, in path order, without asking the host', () => {
    const files = reviewOf([makeEntry('e1', 'b.txt'), makeEntry('e2', 'd.txt')]);
    const folded = foldEntries(files, [makeEntry('e3', 'c.txt', { insertions: 4, deletions: 1, decisionId: 'd9' }), makeEntry('e4', 'a.txt')], describe_);
    expect(folded.needsHost).toBe(false);
    expect(folded.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt']);
    expect(folded.files[2]).toMatchObject({ entryIds: ['e3'], insertions: 4, deletions: 1, state: 'remaining', steps: [{ id: 'd9', description: 'step d9' }] });
  });

  it('asks the host to net a path that a second entry touched, and lists the entry on its row', () => {
    const files = reviewOf([makeEntry('e1', 'a.txt')]);
    const folded = foldEntries(files, [makeEntry('e2', 'a.txt', { operation: 'modify' })], describe_);
    expect(folded.needsHost).toBe(true);
    expect(folded.files).toHaveLength(1);
    expect(folded.files[0].entryIds).toEqual(['e1', 'e2']);
  });

  it('finds a renamed file by where it came from', () => {
    const files = reviewOf([makeEntry('e1', 'old.txt')]);
    const folded = foldEntries(files, [makeEntry('e2', 'new.txt', { operation: 'rename', oldPath: 'old.txt' })], describe_);
    expect(folded.needsHost).toBe(true);
    expect(folded.files.map((f) => f.entryIds)).toEqual([['e1', 'e2']]);
  });

  it("marks the row of an operator's change as edited by the operator, new or touched again", () => {
    const files = reviewOf([makeEntry('e1', 'a.txt')]);
    const folded = foldEntries(files, [makeEntry('e2', 'a.txt', { operation: 'modify', origin: 'operator' }), makeEntry('e3', 'b.txt', { origin: 'operator' }), makeEntry('e4', 'c.txt')], describe_);
    expect(folded.files.map((f) => [f.path, f.editedByOperator])).toEqual([
      ['a.txt', true],
      ['b.txt', true],
      ['c.txt', false],
    ]);
  });

  it('skips an entry the review already holds (replayed after a snapshot)', () => {
    const files = reviewOf([makeEntry('e1', 'a.txt')]);
    const folded = foldEntries(files, [makeEntry('e1', 'a.txt')], describe_);
    expect(folded).toEqual({ files, needsHost: false });
  });

  it('folds a batch that creates a path and changes it again', () => {
    const folded = foldEntries([], [makeEntry('e1', 'a.txt'), makeEntry('e2', 'a.txt', { operation: 'modify' })], describe_);
    expect(folded.needsHost).toBe(true);
    expect(folded.files.map((f) => f.entryIds)).toEqual([['e1', 'e2']]);
  });

  it('carries the counts and the index over to the review it makes, as a count from scratch would give', () => {
    const files = reviewOf([makeEntry('e1', 'b.txt', { insertions: 2, deletions: 1 }), makeEntry('e2', 'x.txt')]);
    reviewSummary(files);
    const batch = [
      makeEntry('e3', 'a.txt', { insertions: 5, deletions: 0 }),
      makeEntry('e4', 'b.txt', { insertions: 9, deletions: 9 }),
      makeEntry('e5', 'c.txt', { insertions: 1, deletions: 0 }),
      makeEntry('e6', 'c.txt', { insertions: 1, deletions: 0 }),
    ];
    const { files: folded } = foldEntries(files, batch, describe_);
    const carried = reviewSummary(folded);
    expect(carried).toEqual(reviewSummary(folded.map((f) => ({ ...f }))));
    // b.txt and c.txt keep their first counts until the host nets them.
    expect(carried).toEqual({ applied: 0, left: 4, touched: 0, insertions: 9, deletions: 2 });
    expect(folded.map((f) => f.path)).toEqual(['a.txt', 'b.txt', 'c.txt', 'x.txt']);
    expect(reviewFileAt(folded, 'c.txt')?.entryIds).toEqual(['e5', 'e6']);
    expect(reviewFileAt(folded, 'nowhere.txt')).toBeUndefined();
  });
});
