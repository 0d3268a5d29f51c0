import { describe, expect, it } from 'vitest';
import type { ChangeEntry } from '../../../shared/changes';
import { toChangeEntry } from '../run/change-capture';
import type { CapturedChange } from '../tools/definition';
import { netChanges } from './net';

const b = (s: string) => Buffer.from(s);
const entries = (...changes: CapturedChange[]): ChangeEntry[] => changes.map((c) => toChangeEntry(c, { decisionId: null, invocationId: null }));
const summary = (list: ChangeEntry[]) =>
  netChanges(list).map((n) => ({ op: n.operation, path: n.path, oldPath: n.oldPath, before: n.before?.toString() ?? null, after: n.after?.toString() ?? null }));

describe('netChanges', () => {
  it('collapses a file written then edited into one create with the last content', () => {
    expect(
      summary(
        entries(
          { operation: 'create', path: 'a.txt', before: null, after: b('one') },
          { operation: 'modify', path: 'a.txt', before: b('one'), after: b('two') },
        ),
      ),
    ).toEqual([{ op: 'create', path: 'a.txt', oldPath: null, before: null, after: 'two' }]);
  });

  it('drops a file created then deleted, and a file changed back to what it was', () => {
    expect(
      summary(
        entries(
          { operation: 'create', path: 'tmp.txt', before: null, after: b('x') },
          { operation: 'delete', path: 'tmp.txt', before: b('x'), after: null },
          { operation: 'modify', path: 'same.txt', before: b('v1'), after: b('v2') },
          { operation: 'modify', path: 'same.txt', before: b('v2'), after: b('v1') },
        ),
      ),
    ).toEqual([]);
  });

  it('keeps the first before of a modified file against its last after', () => {
    expect(
      summary(
        entries(
          { operation: 'modify', path: 'm.txt', before: b('v1'), after: b('v2') },
          { operation: 'modify', path: 'm.txt', before: b('v2'), after: b('v3') },
        ),
      ),
    ).toEqual([{ op: 'modify', path: 'm.txt', oldPath: null, before: 'v1', after: 'v3' }]);
  });

  it('follows a chain of renames, with edits on the way, back to the original path', () => {
    expect(
      summary(
        entries(
          { operation: 'rename', path: 'b.txt', oldPath: 'a.txt', before: b('A'), after: b('A') },
          { operation: 'modify', path: 'b.txt', before: b('A'), after: b('A2') },
          { operation: 'rename', path: 'c.txt', oldPath: 'b.txt', before: b('A2'), after: b('A2') },
        ),
      ),
    ).toEqual([{ op: 'rename', path: 'c.txt', oldPath: 'a.txt', before: 'A', after: 'A2' }]);
  });

  it('turns a rename of a file created in the changeset into a plain create', () => {
    expect(
      summary(
        entries(
          { operation: 'create', path: 'new.txt', before: null, after: b('N') },
          { operation: 'rename', path: 'moved.txt', oldPath: 'new.txt', before: b('N'), after: b('N') },
        ),
      ),
    ).toEqual([{ op: 'create', path: 'moved.txt', oldPath: null, before: null, after: 'N' }]);
  });

  it('keeps a rename source that was re-created as a modification, and the target as a create', () => {
    expect(
      summary(
        entries(
          { operation: 'rename', path: 'b.txt', oldPath: 'a.txt', before: b('A'), after: b('A') },
          { operation: 'create', path: 'a.txt', before: null, after: b('fresh') },
        ),
      ),
    ).toEqual([
      { op: 'modify', path: 'a.txt', oldPath: null, before: 'A', after: 'fresh' },
      { op: 'create', path: 'b.txt', oldPath: null, before: null, after: 'A' },
    ]);
  });

  it('decodes binary entries to their exact bytes', () => {
    const [change] = netChanges(entries({ operation: 'create', path: 'x.bin', before: null, after: Buffer.from([0, 255, 1]) }));
    expect(change.after).toEqual(Buffer.from([0, 255, 1]));
  });
});
