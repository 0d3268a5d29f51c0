import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** `^(a+)+$`: a backtracking engine takes 2^40 steps to give up on a line of 40 `a`s and a `!`. */
export const CATASTROPHIC_PATTERN = '^(a+)+$';

/**
 * A project to search: `strings.txt` holds the line that stops a backtracking engine (40 `a`s and a
 * `!`) and, on line 2, one the pattern matches; `files` more text files in 20 directories make the
 * search long enough that a search which never yields would show in the event loop's delay.
 */
export function searchProject(root: string, files = 3_000): void {
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, 'strings.txt'), `${'a'.repeat(40)}!\n${'a'.repeat(40)}\n`);
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `dir-${i % 20}`);
    if (i < 20) mkdirSync(dir);
    writeFileSync(path.join(dir, `file-${i}.txt`), `line one of ${i}\n${'b'.repeat(30 + (i % 50))}\naaaa aaaa!\n`);
  }
}
