import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ValidationError } from '../../shared/errors';

/** Folders no plan may take as its project, nor anything inside them: the system's own. */
const SYSTEM_FOLDERS = [
  '/bin', '/boot', '/dev', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/proc', '/run', '/sbin', '/snap', '/sys', '/usr', '/var',
  '/System', '/Library', '/Applications', '/private/etc', '/private/var', 'C:\\Windows', 'C:\\Program Files',
];

/** Where projects may lie when a plan comes from a client of the console (not the operator's own command line). */
export interface ProjectPolicy {
  /** A project must be inside one of these; default: the user's home. */
  roots?: readonly string[];
}

export const DEFAULT_MAX_PROJECT_BYTES = 1024 ** 3;

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function rootsOf(policy: ProjectPolicy): string[] {
  return (policy.roots ?? [homedir()]).map((root) => realOrResolved(root));
}

function insideRoots(project: string, roots: readonly string[]): boolean {
  const given = path.resolve(project);
  const real = realOrResolved(project);
  return roots.some((root) => isInside(given, root) && isInside(real, root));
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Where a plan's `project` is: an absolute one as given; a relative one under `baseDir` (the plan
 * file's folder). With a policy, whose clients send a plan's text without its folder, a relative
 * one is also looked for under each root: the first of these folders that exists, else the first
 * tried. Only paths inside the roots are looked at. `tried` lists every candidate, for the message.
 */
export function resolveProjectDir(project: string, baseDir: string, policy?: ProjectPolicy): { path: string; tried: string[] } {
  if (path.isAbsolute(project)) return { path: path.resolve(project), tried: [path.resolve(project)] };
  const own = path.resolve(baseDir, project);
  if (!policy) return { path: own, tried: [own] };
  const roots = rootsOf(policy);
  // A root that is not there (the demo copy before a first start) holds nothing to look at.
  const candidates = [...new Set([own, ...roots.filter(isDirectory).map((root) => path.resolve(root, project))])];
  const tried = candidates.filter((candidate) => insideRoots(candidate, roots));
  return { path: tried.find(isDirectory) ?? tried[0] ?? own, tried: tried.length > 0 ? tried : [own] };
}

/**
 * Refuses a project directory that is `/`, the user's home itself, or a system folder (or inside
 * one); with `policy.roots`, also one that is not inside a root. The roots are checked first, on
 * the path as given, so a client learns nothing about what exists outside them.
 */
export function checkProjectDir(project: string, field: string, policy?: ProjectPolicy): void {
  if (policy) {
    const roots = rootsOf(policy);
    if (!insideRoots(project, roots)) {
      throw new ValidationError(field, `must be a folder inside ${roots.length === 1 ? 'the project root' : 'one of the project roots'} (${roots.join(', ')}), not ${path.resolve(project)}`);
    }
  }
  const real = realOrResolved(project);
  if (path.dirname(real) === real) throw new ValidationError(field, 'must not be the root of the file system');
  if (real === realOrResolved(homedir())) throw new ValidationError(field, 'must not be the home folder itself; name the project folder inside it');
  const system = SYSTEM_FOLDERS.find((folder) => real === folder || isInside(real, folder));
  if (system) throw new ValidationError(field, `must not be a system folder (${system})`);
}

/** AGENTS_MAX_PROJECT_BYTES, in bytes; unset or empty means the default. */
export function maxProjectBytesFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.AGENTS_MAX_PROJECT_BYTES?.trim();
  if (!raw) return DEFAULT_MAX_PROJECT_BYTES;
  const bytes = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new ValidationError('AGENTS_MAX_PROJECT_BYTES', `must be a positive whole number of bytes, not "${raw.slice(0, 40)}"`);
  }
  return bytes;
}

/** Plan files larger than this are not read while looking for where a plan's text came from. */
const MAX_PLAN_FILE_BYTES = 2 * 1024 * 1024;

/**
 * The folder, among `folders`, holding a plan file whose text is `content`: where a plan picked in
 * a browser (which sends the text, not the path) came from, so its relative `project` resolves
 * beside it as on the command line. Null when no such file is there.
 */
export function findPlanFolder(content: string, folders: readonly string[]): string | null {
  const text = content.replace(/\r\n/g, '\n');
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder).filter((name) => /\.(ya?ml|json)$/i.test(name)).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(folder, name);
      try {
        const stat = statSync(file);
        if (!stat.isFile() || stat.size > MAX_PLAN_FILE_BYTES || stat.size < text.length / 4) continue;
        if (readFileSync(file, 'utf8').replace(/\r\n/g, '\n') === text) return path.resolve(folder);
      } catch {
        // Unreadable: not the one.
      }
    }
  }
  return null;
}
