import type { ChangeEntry } from '../../../shared/changes';
import { formatGitDiff } from './diff';
import { netChanges } from './net';

/**
 * The whole changeset as one git patch: the net change per path, binary files as GIT binary
 * patches. `git apply` on the original project gives the same tree as `applyReviewed`
 * applying every file (apply.test.ts checks both).
 */
export function exportPatch(entries: readonly ChangeEntry[]): string {
  return netChanges(entries)
    .map((change) => formatGitDiff(change, { binary: 'literal' }) ?? '')
    .join('');
}
