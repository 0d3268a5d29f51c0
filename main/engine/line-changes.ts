import { diffLines } from 'diff';

/** Lines added and removed between two texts (null = the file did not exist). */
export function countLineChanges(before: string | null, after: string | null): { insertions: number; deletions: number } {
  let insertions = 0;
  let deletions = 0;
  for (const part of diffLines(before ?? '', after ?? '')) {
    if (part.added) insertions += part.count ?? 0;
    else if (part.removed) deletions += part.count ?? 0;
  }
  return { insertions, deletions };
}
