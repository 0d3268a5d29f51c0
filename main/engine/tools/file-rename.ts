import { lstat, mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { pruneEmptyDirs, readFileOrNull } from '../sandbox/files';
import { resolveInSandbox, showPath } from '../sandbox/paths';
import { defineTool, fsFailure, sandboxRootOf, toolError } from './common';

const name = 'file.rename';

export const fileRenameTool = defineTool({
  name,
  effect: 'write',
  description: 'Move a file of the sandbox to a new path that does not exist yet (parent directories are created).',
  schema: () => z.strictObject({ from: z.string().min(1, 'must not be empty'), to: z.string().min(1, 'must not be empty') }),
  async run(args, context) {
    const root = sandboxRootOf(name, context);
    const from = await resolveInSandbox(root, args.from, { forWrite: true, followFinal: false });
    const to = await resolveInSandbox(root, args.to, { forWrite: true, followFinal: false });
    if (from.absolute === to.absolute) throw toolError(name, `${showPath(args.from)} and ${showPath(args.to)} are the same file`, { from: from.relative });
    let content: Buffer | null;
    try {
      const stats = await lstat(from.absolute);
      if (!stats.isFile()) throw toolError(name, `${showPath(args.from)} is not a regular file; only files can be renamed`, { from: from.relative });
      if (await lstat(to.absolute).catch(() => null)) {
        throw toolError(name, `${showPath(args.to)} already exists; delete it first to replace it`, { from: from.relative, to: to.relative });
      }
      content = await readFileOrNull(from.absolute);
      await mkdir(path.dirname(to.absolute), { recursive: true });
      await rename(from.absolute, to.absolute);
    } catch (error) {
      throw fsFailure(name, `${args.from} -> ${args.to}`, error);
    }
    await pruneEmptyDirs(from.root, path.dirname(from.absolute));
    context.recordChange({ operation: 'rename', path: to.relative, oldPath: from.relative, before: content, after: content });
    return { from: from.relative, to: to.relative };
  },
});
