import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { ValidationError } from '../../../shared/errors';
import { isBinary } from '../run/change-capture';
import { eventLoopYielder } from '../run/event-loop-yield';
import { listedFileReader } from '../sandbox/files';
import { resolveInSandbox } from '../sandbox/paths';
import { sortedFiles } from '../sandbox/walk';
import { defineTool, fsFailure, MAX_READ_BYTES, sandboxRootOf } from './common';
import { joinRel } from './file-list';
import { compileSearchPattern, maxSearchedLine, PER_CHAR_OVERHEAD } from './search-pattern';

const name = 'file.search';
const MAX_MATCHES = 1_000;
const MAX_LINE_CHARS = 400;
/** Matching work (characters times program size, ~1 ns each) between two checks of the event-loop budget: about a millisecond. */
const WORK_BETWEEN_YIELDS = 1_000_000;
/** A file's open, read and close, in the same units (~30 µs). */
const WORK_PER_FILE = 30_000;

export interface SearchMatch {
  /** `path:line`, the way editors and compilers point at a place. */
  location: string;
  path: string;
  line: number;
  column: number;
  text: string;
}

// Checked in run(), not by a refinement here: the model SDK checks a call against the schema itself
// and would answer a refinement's failure with its own multi-line text, without the ToolRunner.
const patternSchema = () => z.string().min(1, 'must not be empty').describe('RE2 syntax (no backreferences or lookaround); (?i) for case-insensitive');

export const fileSearchTool = defineTool({
  name,
  effect: 'read',
  description: 'Search the text files below a path of the sandbox (default: the root) for a regular expression in RE2 syntax, matched in linear time; returns path:line matches.',
  schema: () => z.strictObject({
    pattern: patternSchema(),
    path: z.string().min(1, 'must not be empty').optional(),
  }),
  async run(args, context) {
    const compiled = await compileSearchPattern(args.pattern);
    if (!compiled.ok) throw new ValidationError('args.pattern', compiled.problem);
    const requested = args.path ?? '.';
    const target = await resolveInSandbox(sandboxRootOf(name, context), requested);
    const { regex, wholeText } = compiled;
    const perChar = regex.programSize() + PER_CHAR_OVERHEAD;
    const longestLine = maxSearchedLine(regex);
    // Like the executor: a search over many files hands the event loop back every 4 ms.
    const yieldNow = eventLoopYielder();
    const readFile = listedFileReader(MAX_READ_BYTES);
    const matches: SearchMatch[] = [];
    let filesSearched = 0;
    let longLinesSkipped = 0;
    let truncated = false;
    let work = 0;
    // True once about a millisecond of work has been done since the last check (a check costs a microtask).
    const spent = (units: number): boolean => {
      work += units;
      if (work < WORK_BETWEEN_YIELDS) return false;
      work = 0;
      return true;
    };
    try {
      const stats = await stat(target.absolute);
      const files = stats.isDirectory() ? sortedFiles(target.absolute) : [{ absolute: target.absolute, relative: '' }];
      for (const listed of files) {
        const file = { absolute: listed.absolute, path: listed.relative ? joinRel(target.relative, listed.relative) : target.relative };
        if (truncated) break;
        if (spent(WORK_PER_FILE)) await yieldNow();
        // Too big, gone, or not a regular file (a single-file path may be a FIFO): not searched.
        const read = readFile(file.absolute);
        const content = read instanceof Promise ? await read : read;
        if (content === null || isBinary(content)) continue;
        filesSearched += 1;
        // Most files have no match: one test of the whole text, on its UTF-8 bytes (no string made),
        // rules them out. (A carriage return would stand between a match and its line's end, which
        // the lines below strip.)
        if (wholeText && content.length <= longestLine && !content.includes(13)) {
          if (spent(content.length * perChar)) await yieldNow();
          if (!wholeText.test(content)) continue;
        }
        const lines = content.toString('utf8').split('\n');
        for (const [index, raw] of lines.entries()) {
          const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
          // A line so long that matching it would hold the loop for more than ~16 ms (minified code) is left out, and counted.
          if (line.length > longestLine) {
            longLinesSkipped += 1;
            continue;
          }
          if (spent((line.length + 1) * perChar)) await yieldNow();
          // test() runs the DFA alone; exec() tracks the match's position, for the few lines that match.
          if (!regex.test(line)) continue;
          const found = regex.exec(line);
          if (!found) continue;
          if (matches.length >= MAX_MATCHES) {
            truncated = true;
            break;
          }
          const shown = line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
          matches.push({ location: `${file.path}:${index + 1}`, path: file.path, line: index + 1, column: (found as RegExpExecArray).index + 1, text: shown });
        }
      }
    } catch (error) {
      throw fsFailure(name, requested, error);
    }
    return { pattern: args.pattern, path: target.relative, matches, filesSearched, truncated, ...(longLinesSkipped > 0 ? { longLinesSkipped } : {}) };
  },
});
