import { lstat, stat } from 'node:fs/promises';
import { z } from 'zod';
import { resolveInSandbox } from '../sandbox/paths';
import { mapLimit, walkTree } from '../sandbox/walk';
import { defineTool, fsFailure, sandboxRootOf } from './common';

const name = 'file.list';
const MAX_ENTRIES = 10_000;

export interface ListedEntry {
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size?: number;
}

/** A relative path below `base` (the sandbox-relative path of the listed directory). */
export function joinRel(base: string, rel: string): string {
  return base === '.' ? rel : `${base}/${rel}`;
}

export const fileListTool = defineTool({
  name,
  effect: 'read',
  description: 'List the files and directories below a directory of the sandbox (default: the root), recursively, sorted by path. `.git` is left out.',
  schema: () => z.strictObject({ path: z.string().min(1, 'must not be empty').optional() }),
  async run(args, context) {
    const requested = args.path ?? '.';
    const target = await resolveInSandbox(sandboxRootOf(name, context), requested);
    try {
      const stats = await stat(target.absolute);
      if (!stats.isDirectory()) return { path: target.relative, entries: [{ path: target.relative, type: 'file', size: stats.size }], truncated: false };
      const { entries, truncated } = await walkTree(target.absolute, { skipGit: true, limit: MAX_ENTRIES });
      const listed = await mapLimit(entries, 16, async (entry): Promise<ListedEntry> => {
        const listedPath = joinRel(target.relative, entry.relative);
        if (entry.kind !== 'file') return { path: listedPath, type: entry.kind };
        const size = await lstat(entry.absolute).then((s) => s.size, () => undefined);
        return size === undefined ? { path: listedPath, type: 'file' } : { path: listedPath, type: 'file', size };
      });
      return { path: target.relative, entries: listed, truncated };
    } catch (error) {
      throw fsFailure(name, requested, error);
    }
  },
});
