import { describe, expect, it } from 'vitest';
import type { CompareSide } from '../../../shared/plan-compare';
import { formatCompare } from './plan-fork';

const side = (planId: string, files: CompareSide['files']): CompareSide => ({
  planId,
  name: 'add-license',
  status: 'Ready to apply',
  files,
  stepsDone: 6,
  steps: 6,
  toolCalls: 7,
  inputTokens: 0,
  outputTokens: 0,
  cost: null,
  durationMs: 1200,
});

describe('agents plan compare, as text', () => {
  it('counts the paths it lists: a rename is its old path and its new one', () => {
    const rename = { path: 'lib/greet.js', oldPath: 'src/greet.js', operation: 'rename' as const, binary: false, insertions: 1, deletions: 1 };
    const license = { path: 'LICENSE', oldPath: null, operation: 'create' as const, binary: false, insertions: 4, deletions: 0 };
    const text = formatCompare({
      projectPath: '/tmp/demo',
      a: side('A', [rename, license]),
      b: side('B', [license]),
      onlyA: ['lib/greet.js', 'src/greet.js'],
      onlyB: [],
      both: [{ path: 'LICENSE', same: true, binary: false, hunks: null, diff: null, insertions: 0, deletions: 0 }],
    });
    expect(text).toMatch(/^ {2}paths changed +3 +1$/m);
    const listedForA = text.split('\n').filter((line) => /^ {2}(R|A|M|D) /.test(line) || line === '  LICENSE');
    expect(listedForA).toHaveLength(3);
  });
});
