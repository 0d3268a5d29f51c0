// What a sandbox holds besides its files' contents and modes: symbolic links, empty folders and
// folders' modes, and whether it has a `.git` of its own. Changes record files only; this is
// recorded as last seen, so a sandbox remade after the last checkpoint has them too.
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readlink, rm, rmdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { walkTree } from './walk';

/** The mode a folder made by `mkdir` gets under the usual umask: only other modes are recorded. */
const USUAL_DIR_MODE = 0o755;

export interface SandboxShape {
  /** Every symbolic link, by path, with its target as written. */
  links: Record<string, string>;
  /** Every folder that is empty or whose mode is not 0755, with its mode; any other folder is 0755. */
  dirs: Record<string, number>;
  /** The sandbox had a `.git` of its own (a remake does not carry it). */
  git: boolean;
  /** The plan's last checkpoint when it was seen: a later checkpoint holds the truth instead. */
  checkpointId: string | null;
}

/** The sandbox's links and folders as they are now (`.git` left out, as captures and checkpoints leave it). */
export async function readShape(root: string, checkpointId: string | null): Promise<SandboxShape> {
  const { entries } = await walkTree(root, { skipGit: true });
  const links: Record<string, string> = {};
  const dirs: Record<string, number> = {};
  const parents = new Set(entries.map((e) => path.posix.dirname(e.relative)));
  for (const entry of entries) {
    if (entry.kind === 'symlink') {
      const target = await readlink(entry.absolute).catch(() => null);
      if (target !== null) links[entry.relative] = target;
    } else if (entry.kind === 'directory') {
      const stats = await lstat(entry.absolute).catch(() => null);
      if (!stats?.isDirectory()) continue;
      const mode = stats.mode & 0o7777;
      if (!parents.has(entry.relative) || mode !== USUAL_DIR_MODE) dirs[entry.relative] = mode;
    }
  }
  return { links, dirs, git: existsSync(path.join(root, '.git')), checkpointId };
}

const byDepth = (a: string, b: string) => b.split('/').length - a.split('/').length || (a < b ? -1 : 1);

/**
 * Makes the links and folders of `root` what `shape` recorded: links made (over whatever is in their
 * place) and the ones it does not name removed, its folders made, empty folders it does not name
 * removed, and every folder given its mode (0755 when not named). Files are left as they are.
 */
export async function layShape(root: string, shape: SandboxShape): Promise<void> {
  const at = (rel: string) => path.join(root, ...rel.split('/'));
  for (const entry of (await walkTree(root, { skipGit: true })).entries) {
    if (entry.kind === 'symlink' && !(entry.relative in shape.links)) await rm(entry.absolute, { force: true });
  }
  for (const [rel, target] of Object.entries(shape.links)) {
    const existing = await lstat(at(rel)).catch(() => null);
    if (existing?.isSymbolicLink() && (await readlink(at(rel))) === target) continue;
    if (existing) await rm(at(rel), { recursive: true, force: true });
    await mkdir(path.dirname(at(rel)), { recursive: true });
    await symlink(target, at(rel));
  }
  for (const rel of Object.keys(shape.dirs)) await mkdir(at(rel), { recursive: true });
  const folders = (await walkTree(root, { skipGit: true })).entries.filter((e) => e.kind === 'directory').map((e) => e.relative);
  const kept: string[] = [];
  for (const rel of folders.sort(byDepth)) {
    // Deepest first, so a parent emptied by removing its empty children goes too.
    if (!(rel in shape.dirs) && (await readdir(at(rel))).length === 0) await rmdir(at(rel));
    else kept.push(rel);
  }
  // Modes last, so a folder made read-only is not written into after.
  for (const rel of kept) {
    const wanted = shape.dirs[rel] ?? USUAL_DIR_MODE;
    if (((await lstat(at(rel))).mode & 0o7777) !== wanted) await chmod(at(rel), wanted);
  }
}
