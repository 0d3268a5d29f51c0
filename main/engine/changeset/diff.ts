import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { structuredPatch } from 'diff';
import type { ChangeEntry } from '../../../shared/domain';
import { isBinary } from '../change-capture';
import { countLineChanges } from '../line-changes';
import { entryContent, type NetChange } from './net';

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

function splitLines(text: string): { lines: string[]; finalNewline: boolean } {
  if (text === '') return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  return { lines, finalNewline };
}

/** Every old line removed and every new line added: always correct, used when the real diff gives up. */
function wholeFileHunk(before: string, after: string): string[] {
  const old = splitLines(before);
  const neu = splitLines(after);
  if (old.lines.length === 0 && neu.lines.length === 0) return [];
  const body: string[] = [];
  for (const line of old.lines) body.push(`-${line}`);
  if (old.lines.length > 0 && !old.finalNewline) body.push('\\ No newline at end of file');
  for (const line of neu.lines) body.push(`+${line}`);
  if (neu.lines.length > 0 && !neu.finalNewline) body.push('\\ No newline at end of file');
  const range = (count: number) => `${count === 0 ? 0 : 1},${count}`;
  return [`@@ -${range(old.lines.length)} +${range(neu.lines.length)} @@`, ...body];
}

/** Hunks in unified format with 3 lines of context, git's numbering for empty sides (`-0,0`). */
function textHunks(before: string, after: string): string[] {
  // Bound the work: a huge rewrite falls back to one whole-file hunk instead of stalling the engine.
  const patch = structuredPatch('a', 'b', before, after, undefined, undefined, { context: 3, timeout: 5_000 });
  if (!patch) return wholeFileHunk(before, after);
  const out: string[] = [];
  for (const hunk of patch.hunks) {
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    out.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return out;
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

/** One file's section of a git-style patch (ending with a newline), or null for a binary change when omitted. */
export function formatGitDiff(change: NetChange, options: FormatOptions): string | null {
  const oldName = change.oldPath ?? change.path;
  const newName = change.path;
  const lines = [`diff --git ${quoteGitPath(`a/${oldName}`)} ${quoteGitPath(`b/${newName}`)}`];
  const binary = isBinary(change.before) || isBinary(change.after);
  if (binary && options.binary === 'omit') return null;
  const beforeText = binary ? '' : (change.before?.toString('utf8') ?? '');
  const afterText = binary ? '' : (change.after?.toString('utf8') ?? '');

  if (change.operation === 'create') lines.push('new file mode 100644');
  if (change.operation === 'delete') lines.push('deleted file mode 100644');
  if (change.operation === 'rename') {
    const lineCount = Math.max(splitLines(beforeText).lines.length, splitLines(afterText).lines.length, 1);
    const { insertions, deletions } = countLineChanges(beforeText, afterText);
    const similarity = change.beforeHash === change.afterHash ? 100 : Math.max(0, Math.min(99, Math.round(100 * (1 - Math.max(insertions, deletions) / lineCount))));
    lines.push(`similarity index ${similarity}%`, `rename from ${quoteGitPath(oldName)}`, `rename to ${quoteGitPath(newName)}`);
    if (change.beforeHash === change.afterHash) return `${lines.join('\n')}\n`;
  }
  lines.push(`index ${gitBlobId(change.before)}..${gitBlobId(change.after)}`);

  if (binary) {
    lines.push('GIT binary patch', ...binaryLiteral(change.after ?? Buffer.alloc(0)), ...binaryLiteral(change.before ?? Buffer.alloc(0)));
    return `${lines.join('\n')}\n`;
  }
  const hunks = textHunks(beforeText, afterText);
  // An empty file created or deleted has no hunks, and then git writes no ---/+++ lines either.
  if (hunks.length > 0) {
    lines.push(`--- ${change.before === null ? '/dev/null' : quoteGitPath(`a/${oldName}`)}`);
    lines.push(`+++ ${change.after === null ? '/dev/null' : quoteGitPath(`b/${newName}`)}`);
    lines.push(...hunks);
  }
  return `${lines.join('\n')}\n`;
}

function entryAsChange(entry: ChangeEntry): NetChange {
  const before = entryContent(entry, 'before');
  const after = entryContent(entry, 'after');
  return {
    path: entry.path,
    oldPath: entry.operation === 'rename' ? entry.oldPath : null,
    operation: entry.operation,
    before: before.bytes,
    after: after.bytes,
    beforeHash: before.hash,
    afterHash: after.hash,
  };
}

/**
 * The entry as a git-style unified diff (`diff --git`, `--- a/path`, `+++ b/path`, `/dev/null` for a
 * side that does not exist, rename headers), or null when the entry is binary.
 */
export function unifiedDiff(entry: ChangeEntry): string | null {
  if (entry.binary) return null;
  return formatGitDiff(entryAsChange(entry), { binary: 'omit' });
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
