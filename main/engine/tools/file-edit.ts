import { z } from 'zod';
import { isBinary } from '../run/change-capture';
import { readFileOrNull, writeFileAtomic } from '../sandbox/files';
import { resolveInSandbox, showPath } from '../sandbox/paths';
import { defineTool, fsFailure, previewWrite, sandboxRootOf, toolError } from './common';

const name = 'file.edit';

/** Start offsets of the non-overlapping occurrences of `find`, left to right. */
function occurrences(text: string, find: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(find); at !== -1; at = text.indexOf(find, at + find.length)) found.push(at);
  return found;
}

/** Like the shown text of a find argument in a message: short and on one line. */
function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

export const fileEditTool = defineTool({
  name,
  effect: 'write',
  description: 'Replace literal text in a text file of the sandbox: `find` must occur exactly once, or pass `all: true`.',
  schema: () => z.strictObject({
    path: z.string().min(1, 'must not be empty'),
    find: z.string().min(1, 'must not be empty'),
    replace: z.string(),
    all: z.boolean().optional(),
  }),
  async run(args, context) {
    const target = await resolveInSandbox(sandboxRootOf(name, context), args.path, { forWrite: true });
    let before: Buffer | null;
    try {
      before = await readFileOrNull(target.absolute);
    } catch (error) {
      throw fsFailure(name, args.path, error);
    }
    if (before === null) throw toolError(name, `${showPath(args.path)} does not exist`, { path: target.relative });
    if (isBinary(before)) throw toolError(name, `${showPath(args.path)} is not a UTF-8 text file`, { path: target.relative });
    const text = before.toString('utf8');
    const found = occurrences(text, args.find);
    if (found.length === 0) {
      throw toolError(name, `find text ${preview(args.find)} was not found in ${showPath(args.path)}`, { path: target.relative, find: args.find });
    }
    if (found.length > 1 && !args.all) {
      throw toolError(name, `find text ${preview(args.find)} occurs ${found.length} times in ${showPath(args.path)}; make it unique or pass all: true`, {
        path: target.relative,
        find: args.find,
        occurrences: found.length,
      });
    }
    const replaced = args.all ? found : found.slice(0, 1);
    // Slicing, not String.replace: `$&` and friends in the replacement stay literal.
    let edited = '';
    let last = 0;
    for (const at of replaced) {
      edited += text.slice(last, at) + args.replace;
      last = at + args.find.length;
    }
    edited += text.slice(last);
    const after = Buffer.from(edited, 'utf8');
    if (!after.equals(before)) {
      try {
        await writeFileAtomic(target.absolute, after);
      } catch (error) {
        throw fsFailure(name, args.path, error);
      }
      context.recordChange({ operation: 'modify', path: target.relative, before, after });
    }
    return { path: target.relative, replacements: replaced.length };
  },
  preview: (args, sandbox) =>
    previewWrite(sandbox.root, args.path, (before) => {
      if (before === null) return undefined;
      const text = before.toString('utf8');
      return Buffer.from(args.all === true ? text.split(args.find).join(args.replace) : text.replace(args.find, () => args.replace));
    }),
});
