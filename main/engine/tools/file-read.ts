import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { isBinary } from '../run/change-capture';
import { readFileOrNull } from '../sandbox/files';
import { resolveInSandbox, showPath } from '../sandbox/paths';
import { defineTool, fsFailure, MAX_READ_BYTES, sandboxRootOf, toolError } from './common';

const name = 'file.read';

export const fileReadTool = defineTool({
  name,
  effect: 'read',
  description: 'Read a file of the sandbox. Text comes back as UTF-8, anything else as base64.',
  schema: () => z.strictObject({ path: z.string().min(1, 'must not be empty') }),
  async run(args, context) {
    const target = await resolveInSandbox(sandboxRootOf(name, context), args.path);
    try {
      const stats = await stat(target.absolute);
      if (stats.isDirectory()) throw toolError(name, `${showPath(args.path)} is a directory (use file.list)`, { path: target.relative });
      if (stats.size > MAX_READ_BYTES) {
        throw toolError(name, `${showPath(args.path)} is ${stats.size} bytes, more than the ${MAX_READ_BYTES} a read returns`, { path: target.relative, size: stats.size });
      }
      const content = await readFileOrNull(target.absolute);
      if (content === null) throw toolError(name, `${showPath(args.path)} does not exist`, { path: target.relative });
      const binary = isBinary(content);
      return { path: target.relative, size: content.length, encoding: binary ? 'base64' : 'utf8', content: content.toString(binary ? 'base64' : 'utf8') };
    } catch (error) {
      throw fsFailure(name, args.path, error);
    }
  },
});
