import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Everything a folder holds (`.git` left out, as checkpoints leave it out), a line per path in
 * order: its kind and mode, and a file's content hash or a link's target. A failing comparison of
 * two listings names the paths that differ.
 */
export function treeListing(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/'))
    .filter((rel) => !rel.split('/').some((part) => part.toLowerCase() === '.git'))
    .sort()
    .map((rel) => {
      const absolute = path.join(root, rel);
      const stats = lstatSync(absolute);
      const mode = (stats.mode & 0o7777).toString(8);
      if (stats.isSymbolicLink()) return `L ${rel} -> ${readlinkSync(absolute)}`;
      if (stats.isDirectory()) return `D ${rel} ${mode}`;
      if (stats.isFile()) return `F ${rel} ${mode} ${sha256(readFileSync(absolute))}`;
      return `O ${rel}`;
    });
}

/**
 * One sha256 over path, kind, mode and contents (or link target) of everything in a folder.
 * Synchronous, so a test can take it inside an event listener, at the moment a checkpoint is announced.
 */
export function treeHash(root: string): string {
  return sha256(treeListing(root).join('\n'));
}
