import type * as Re2Module from 're2js';
import type { RE2JS } from 're2js';

// Loaded with the first search, not with every process that opens the engine (it is a tenth of the CLI's start).
let re2: Promise<typeof Re2Module> | undefined;
const loadRe2 = () => (re2 ??= import('re2js'));

/**
 * file.search's patterns: RE2 syntax, matched by re2js in time linear in the input (no backtracking,
 * so no pattern can make a search run for minutes). Linear in the input, but times the size of the
 * compiled program: both are bounded here, so that one match call holds the event loop for a few
 * milliseconds at most.
 */

export const MAX_PATTERN_CHARS = 1_000;
/**
 * Instructions the pattern may expand to before it is compiled (`a{1000}` is 1,000). Compiling is
 * linear in it too, about 2 ms per 1,000 here; re2js's own limit (1.4 million) would take seconds.
 */
const MAX_EXPANDED_SIZE = 5_000;
/** A line is searched when its length times (program size + this) stays within WORK_PER_LINE. */
export const PER_CHAR_OVERHEAD = 25;
/** About 16 ms of matching on this project's machines (measured: ~1.1 ns per character and instruction). */
const WORK_PER_LINE = 16_000_000;

/**
 * An upper estimate of the size the pattern expands to, from its text alone: counted repetitions
 * multiply what they repeat, nested ones multiply again. Escapes, classes and `\Q…\E` count as one
 * item each; `{` that starts no repetition is a literal, as in RE2.
 */
export function expandedSize(pattern: string): number {
  const frames: { size: number; last: number }[] = [{ size: 0, last: 0 }];
  const top = () => frames[frames.length - 1];
  const atom = (size: number) => {
    top().size += size;
    top().last = size;
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (next === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const literal = end < 0 ? pattern.length - i - 2 : end - i - 2;
        atom(Math.max(1, literal));
        i = end < 0 ? pattern.length : end + 2;
        continue;
      }
      if ((next === 'x' || next === 'p' || next === 'P') && pattern[i + 2] === '{') {
        const end = pattern.indexOf('}', i + 3);
        i = end < 0 ? pattern.length : end + 1;
      } else i += 2;
      atom(1);
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (pattern[j] === '^') j += 1;
      if (pattern[j] === ']') j += 1;
      while (j < pattern.length && pattern[j] !== ']') {
        if (pattern[j] === '\\') j += 2;
        else if (pattern[j] === '[' && pattern[j + 1] === ':') j = Math.max(j + 2, pattern.indexOf(':]', j + 2) + 2);
        else j += 1;
      }
      atom(1);
      i = j + 1;
      continue;
    }
    if (c === '(') {
      frames.push({ size: 0, last: 0 });
      i += 1;
      continue;
    }
    if (c === ')' && frames.length > 1) {
      const group = frames.pop() as { size: number };
      atom(group.size + 2);
      i += 1;
      continue;
    }
    const repeat = c === '{' ? /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 24)) : null;
    if (repeat) {
      const count = Math.max(Number(repeat[1]), Number(repeat[2] || 0), 1);
      const frame = top();
      frame.size += frame.last * (count - 1);
      frame.last *= count;
      i += repeat[0].length;
      continue;
    }
    if (c === '|' || c === '*' || c === '+' || c === '?') {
      top().size += 1;
      i += 1;
      continue;
    }
    atom(1);
    i += 1;
  }
  return frames.reduce((sum, frame) => sum + frame.size, 0);
}

/** Shown in messages: quoted (control characters visible), cut when long. */
export function showPattern(pattern: string): string {
  return JSON.stringify(pattern.length > 80 ? `${pattern.slice(0, 60)}…${pattern.slice(-15)}` : pattern);
}

/** Why RE2 refuses a pattern, in words the model can act on. */
function reasonOf(pattern: string, error: unknown): string {
  if (/\\[1-9]/.test(pattern) || /\\k</.test(pattern)) return 'backreferences (\\1, \\k<name>) are not supported';
  if (/\(\?<?[=!]/.test(pattern)) return 'lookahead and lookbehind ((?=, (?!, (?<=, (?<!) are not supported';
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error parsing regexp: /, '').replace(/[\r\n]+/g, ' ');
}

export type CompiledPattern = { ok: true; regex: RE2JS; wholeText: RE2JS | null } | { ok: false; problem: string };

/**
 * The pattern for a whole file at once, `^` and `$` at line ends: it matches wherever one of the
 * file's lines does (and maybe where none does, across lines), so a file it does not match need not
 * be split into lines. Null where that does not hold: `\A` and `\z` mean the ends of the text
 * whatever the flags, and a flag group with `-` may switch multi-line matching off.
 */
function wholeTextFilter(Re2: typeof RE2JS, pattern: string): RE2JS | null {
  if (/\\[Az]|\(\?[a-zA-Z]*-/.test(pattern)) return null;
  return Re2.compile(pattern, Re2.MULTILINE);
}

/** The pattern compiled, or one line naming the pattern and why RE2 cannot take it. */
export async function compileSearchPattern(pattern: string): Promise<CompiledPattern> {
  const tooLarge = (why: string): CompiledPattern => ({ ok: false, problem: `${showPattern(pattern)} is too large for a search: ${why}` });
  if (pattern.length > MAX_PATTERN_CHARS) return tooLarge(`${pattern.length} characters (at most ${MAX_PATTERN_CHARS})`);
  const size = expandedSize(pattern);
  if (size > MAX_EXPANDED_SIZE) return tooLarge(`its repetitions expand to about ${size} instructions (at most ${MAX_EXPANDED_SIZE})`);
  const { RE2JS: Re2, RE2JSException } = await loadRe2();
  try {
    const regex = Re2.compile(pattern);
    return { ok: true, regex, wholeText: wholeTextFilter(Re2, pattern) };
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    return { ok: false, problem: `${showPattern(pattern)} is not a valid regular expression in RE2 syntax: ${reasonOf(pattern, error)}` };
  }
}

/** The longest line `regex` is run on, so that one match call stays within a few milliseconds. */
export function maxSearchedLine(regex: RE2JS): number {
  return Math.floor(WORK_PER_LINE / (regex.programSize() + PER_CHAR_OVERHEAD));
}
