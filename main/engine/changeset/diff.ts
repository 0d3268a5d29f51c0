import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { ChangeEntry } from '../../../shared/changes';
import { isBinary } from '../run/change-capture';
import { countLineChanges } from './line-diff';
import type { DiffHunk } from '../../../shared/changes';
import { type LineDiff, lineDiff, structuredHunks, unifiedHunks } from './line-diff';
import { entryText, gitMode, gitModeChanged, type NetChange } from './net';

/** Git's object id of a blob: the `index` line of a patch names contents this way. */
export function gitBlobId(content: Buffer | null): string {
  if (content === null) return '0'.repeat(40);
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

const C_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\' };

/** A path as git writes it in patch headers: C-quoted when it holds a quote, a backslash or a control character. */
export function quoteGitPath(name: string): string {
  if (!/["\\\x00-\x1f\x7f]/.test(name)) return name;
  let quoted = '"';
  for (const char of name) {
    const code = char.charCodeAt(0);
    if (C_ESCAPES[char]) quoted += C_ESCAPES[char];
    else if (code < 0x20 || code === 0x7f) quoted += `\\${code.toString(8).padStart(3, '0')}`;
    else quoted += char;
  }
  return `${quoted}"`;
}

const BASE85 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';

/** Git's base85, four bytes (zero padded) to five characters, most significant first. */
function base85(data: Buffer): string {
  let out = '';
  for (let i = 0; i < data.length; i += 4) {
    let value = 0;
    for (let j = 0; j < 4; j++) value = value * 256 + (data[i + j] ?? 0);
    let chunk = '';
    for (let k = 0; k < 5; k++) {
      chunk = BASE85[value % 85] + chunk;
      value = Math.floor(value / 85);
    }
    out += chunk;
  }
  return out;
}

/** A `literal` block of a GIT binary patch: zlib-deflated, base85, 52 bytes a line, each prefixed by its length. */
function binaryLiteral(content: Buffer): string[] {
  const deflated = deflateSync(content);
  const lines = [`literal ${content.length}`];
  for (let i = 0; i < deflated.length; i += 52) {
    const piece = deflated.subarray(i, i + 52);
    const length = piece.length <= 26 ? String.fromCharCode(64 + piece.length) : String.fromCharCode(96 + piece.length - 26);
    lines.push(length + base85(piece));
  }
  return [...lines, ''];
}

export interface FormatOptions {
  /** `literal`: a GIT binary patch that `git apply` can restore; `omit`: null for binary changes. */
  binary: 'literal' | 'omit';
}

/** One side of a change: bytes, or the text of a text entry; null when the file does not exist there. */
type Side = Buffer | string | null;

function sideBlobId(side: Side): string {
  if (typeof side !== 'string') return gitBlobId(side);
  return createHash('sha1').update(`blob ${Buffer.byteLength(side)}\0`).update(side, 'utf8').digest('hex');
}

const sideBytes = (side: Side): Buffer => (side === null ? Buffer.alloc(0) : typeof side === 'string' ? Buffer.from(side, 'utf8') : side);

/**
 * One file's section of a git-style patch (ending with a newline), or null for a binary change when
 * omitted. `diff`: the line diff of the change's texts, when the caller has it already.
 */
export function formatGitDiff(change: NetChange, options: FormatOptions, diff?: LineDiff): string | null {
  return formatSides(change, options, diff);
}

function formatSides(change: Omit<NetChange, 'before' | 'after'> & { before: Side; after: Side }, options: FormatOptions, known?: LineDiff): string | null {
  const oldName = change.oldPath ?? change.path;
  const newName = change.path;
  const lines = [`diff --git ${quoteGitPath(`a/${oldName}`)} ${quoteGitPath(`b/${newName}`)}`];
  // A text side is never binary: text entries hold valid UTF-8 without NUL bytes.
  const binary = (typeof change.before !== 'string' && isBinary(change.before)) || (typeof change.after !== 'string' && isBinary(change.after));
  if (binary && options.binary === 'omit') return null;
  const text = (side: Side) => (binary || side === null ? '' : typeof side === 'string' ? side : side.toString('utf8'));
  const beforeText = text(change.before);
  const afterText = text(change.after);
  const diff = () => (known ??= lineDiff(beforeText, afterText));

  // git's modes: 100755 for a file its owner may run, else 100644 (also when no mode was recorded).
  if (change.operation === 'create') lines.push(`new file mode ${change.afterMode === null ? '100644' : gitMode(change.afterMode)}`);
  if (change.operation === 'delete') lines.push(`deleted file mode ${change.beforeMode === null ? '100644' : gitMode(change.beforeMode)}`);
  if ((change.operation === 'modify' || change.operation === 'rename') && gitModeChanged(change)) {
    lines.push(`old mode ${gitMode(change.beforeMode as number)}`, `new mode ${gitMode(change.afterMode as number)}`);
    // A mode changed alone: git writes no index line and no hunks.
    if (change.operation === 'modify' && change.beforeHash === change.afterHash) return `${lines.join('\n')}\n`;
  }
  if (change.operation === 'rename') {
    let similarity = 100;
    if (change.beforeHash !== change.afterHash) {
      const { a, b, hunks } = diff();
      const changed = Math.max(hunks.reduce((n, h) => n + h.insertions, 0), hunks.reduce((n, h) => n + h.deletions, 0));
      similarity = Math.max(0, Math.min(99, Math.round(100 * (1 - changed / Math.max(a.lines.length, b.lines.length, 1)))));
    }
    lines.push(`similarity index ${similarity}%`, `rename from ${quoteGitPath(oldName)}`, `rename to ${quoteGitPath(newName)}`);
    if (change.beforeHash === change.afterHash) return `${lines.join('\n')}\n`;
  }
  lines.push(`index ${sideBlobId(change.before)}..${sideBlobId(change.after)}`);

  if (binary) {
    lines.push('GIT binary patch', ...binaryLiteral(sideBytes(change.after)), ...binaryLiteral(sideBytes(change.before)));
    return `${lines.join('\n')}\n`;
  }
  const hunks = unifiedHunks(diff());
  // An empty file created or deleted has no hunks, and then git writes no ---/+++ lines either.
  if (hunks.length > 0) {
    lines.push(`--- ${change.before === null ? '/dev/null' : quoteGitPath(`a/${oldName}`)}`);
    lines.push(`+++ ${change.after === null ? '/dev/null' : quoteGitPath(`b/${newName}`)}`);
    return `${lines.join('\n')}\n${hunks.join('\n')}\n`;
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The entry as a git-style unified diff (`diff --git`, `--- a/path`, `+++ b/path`, `/dev/null` for a
 * side that does not exist, rename headers), or null when the entry is binary. `diff`: the line diff
 * of its texts, when the caller has it already.
 */
export function unifiedDiff(entry: ChangeEntry, diff?: LineDiff): string | null {
  if (entry.binary) return null;
  // Straight from the stored texts: no round trip through bytes.
  return formatSides(
    {
      path: entry.path,
      oldPath: entry.operation === 'rename' ? entry.oldPath : null,
      operation: entry.operation,
      before: entryText(entry, 'before'),
      after: entryText(entry, 'after'),
      beforeHash: entry.beforeHash,
      afterHash: entry.afterHash,
      beforeMode: entry.beforeHash === null ? null : (entry.beforeMode ?? null),
      afterMode: entry.afterHash === null ? null : (entry.mode ?? null),
    },
    { binary: 'omit' },
    diff,
  );
}

/**
 * The entry's hunks as the diff view draws them (rows with line numbers, 3 lines of context), or
 * null when the entry is binary: hunk n is the n-th `@@` of unifiedDiff. `diff`: the line diff of
 * its texts, when the caller has it already.
 */
export function entryHunks(entry: ChangeEntry, diff?: LineDiff): DiffHunk[] | null {
  if (entry.binary) return null;
  return structuredHunks(diff ?? entryLineDiff(entry));
}

/** The line diff of the entry's stored texts, for a caller that wants both its patch and its hunks. */
export function entryLineDiff(entry: ChangeEntry): LineDiff {
  return lineDiff(entryText(entry, 'before') ?? '', entryText(entry, 'after') ?? '');
}

export interface DiffStats {
  insertions: number;
  deletions: number;
  binary: boolean;
}

/** Lines added and removed by one entry; binary entries count no lines. */
export function diffStats(entry: ChangeEntry): DiffStats {
  if (entry.binary) return { insertions: 0, deletions: 0, binary: true };
  return { ...countLineChanges(entry.beforeText, entry.afterText), binary: false };
}
