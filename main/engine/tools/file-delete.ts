import { lstat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { pruneEmptyDirs, readFileOrNull } from '../sandbox/files';
import { resolveInSandbox, showPath } from '../sandbox/paths';
import { defineTool, fsFailure, previewWrite, sandboxRootOf, toolError } from './common';

const name = 'file.delete';

export const fileDeleteTool = defineTool({
  name,
  effect: 'write',
  description: 'Delete a file of the sandbox (directories left empty are removed, as git does).',
  schema: () => z.strictObject({ path: z.string().min(1, 'must not be empty') }),
  async run(args, context) {
    // The link itself, not its target: deleting "link" must not delete the file it points to.
    const target = await resolveInSandbox(sandboxRootOf(name, context), args.path, { forWrite: true, followFinal: false });
    let before: Buffer | null;
    try {
      const stats = await lstat(target.absolute);
      if (stats.isDirectory()) throw toolError(name, `${showPath(args.path)} is a directory; delete the files in it`, { path: target.relative });
      if (!stats.isFile()) throw toolError(name, `${showPath(args.path)} is not a regular file`, { path: target.relative });
      before = await readFileOrNull(target.absolute);
      await unlink(target.absolute);
    } catch (error) {
      throw fsFailure(name, args.path, error);
    }
    await pruneEmptyDirs(target.root, path.dirname(target.absolute));
    context.recordChange({ operation: 'delete', path: target.relative, before, after: null });
    return { path: target.relative, bytes: before?.length ?? 0 };
  },
  preview: (args, sandbox) => previewWrite(sandbox.root, args.path, () => null),
});
