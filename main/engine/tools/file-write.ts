import { z } from 'zod';
import { readFileOrNull, writeFileAtomic } from '../sandbox/files';
import { resolveInSandbox } from '../sandbox/paths';
import { defineTool, fsFailure, previewWrite, sandboxRootOf } from './common';

const name = 'file.write';

export const fileWriteTool = defineTool({
  name,
  effect: 'write',
  description: 'Create or overwrite a text file of the sandbox (parent directories are created).',
  schema: () => z.strictObject({ path: z.string().min(1, 'must not be empty'), content: z.string() }),
  async run(args, context) {
    const target = await resolveInSandbox(sandboxRootOf(name, context), args.path, { forWrite: true });
    const after = Buffer.from(args.content, 'utf8');
    let before: Buffer | null;
    try {
      before = await readFileOrNull(target.absolute);
      if (before?.equals(after)) return { path: target.relative, operation: 'unchanged', bytes: after.length };
      await writeFileAtomic(target.absolute, after);
    } catch (error) {
      throw fsFailure(name, args.path, error);
    }
    const operation = before === null ? 'create' : 'modify';
    context.recordChange({ operation, path: target.relative, before, after });
    return { path: target.relative, operation, bytes: after.length };
  },
  preview: (args, sandbox) => previewWrite(sandbox.root, args.path, () => Buffer.from(args.content, 'utf8')),
});
