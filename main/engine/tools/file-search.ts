import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { isBinary } from '../change-capture';
import { readFileOrNull } from '../sandbox/files';
import { resolveInSandbox } from '../sandbox/paths';
import { walkTree } from '../sandbox/walk';
import { defineTool, fsFailure, MAX_READ_BYTES, sandboxRootOf } from './common';
import { joinRel } from './file-list';

const name = 'file.search';
const MAX_MATCHES = 1_000;
const MAX_LINE_CHARS = 400;

export interface SearchMatch {
  /** `path:line`, the way editors and compilers point at a place. */
  location: string;
  path: string;
  line: number;
  column: number;
  text: string;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

export const fileSearchTool = defineTool({
  name,
  description: 'Search the text files below a path of the sandbox (default: the root) for a JavaScript regular expression; returns path:line matches.',
  schema: z.strictObject({
    pattern: z.string().min(1, 'must not be empty').refine(compiles, 'is not a valid regular expression'),
    path: z.string().min(1, 'must not be empty').optional(),
  }),
  async run(args, context) {
    const requested = args.path ?? '.';
    const target = await resolveInSandbox(sandboxRootOf(name, context), requested);
    const regex = new RegExp(args.pattern);
    const matches: SearchMatch[] = [];
    let filesSearched = 0;
    let truncated = false;
    try {
      const stats = await stat(target.absolute);
      const files = stats.isDirectory()
        ? (await walkTree(target.absolute, { skipGit: true })).entries.filter((e) => e.kind === 'file').map((e) => ({ absolute: e.absolute, path: joinRel(target.relative, e.relative) }))
        : [{ absolute: target.absolute, path: target.relative }];
      for (const file of files) {
        if (truncated) break;
        const size = await stat(file.absolute).then((s) => s.size, () => Infinity);
        if (size > MAX_READ_BYTES) continue;
        const content = await readFileOrNull(file.absolute).catch(() => null);
        if (content === null || isBinary(content)) continue;
        filesSearched += 1;
        const lines = content.toString('utf8').split('\n');
        for (const [index, raw] of lines.entries()) {
          const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
          const found = regex.exec(line);
          if (!found) continue;
          if (matches.length >= MAX_MATCHES) {
            truncated = true;
            break;
          }
          const text = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
          matches.push({ location: `${file.path}:${index + 1}`, path: file.path, line: index + 1, column: found.index + 1, text });
        }
      }
    } catch (error) {
      throw fsFailure(name, requested, error);
    }
    return { pattern: args.pattern, path: target.relative, matches, filesSearched, truncated };
  },
});
