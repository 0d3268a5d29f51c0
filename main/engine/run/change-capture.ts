import { isUtf8 } from 'node:buffer';
import { hash } from 'node:crypto';
import type { ChangeEntry } from '../../../shared/changes';
import { newId } from '../../../shared/ids';
import type { CapturedChange } from '../tools/definition';

export function sha256(content: Buffer | string): string {
  return hash('sha256', content, 'hex');
}

/** Text files are valid UTF-8 without NUL bytes; anything else is kept as base64 and gets no text diff. */
export function isBinary(content: Buffer | null): boolean {
  if (!content || content.length === 0) return false;
  if (content.subarray(0, 8000).includes(0)) return true;
  // buffer.isUtf8 validates in place, without decoding into a string that is thrown away.
  return !isUtf8(content);
}

export function toChangeEntry(
  change: CapturedChange,
  origin: { decisionId: string | null; invocationId: string | null },
): ChangeEntry {
  const binary = isBinary(change.before) || isBinary(change.after);
  const encode = (content: Buffer | null) => (content === null ? null : content.toString(binary ? 'base64' : 'utf8'));
  return {
    id: newId(),
    path: change.path,
    oldPath: change.oldPath ?? null,
    operation: change.operation,
    beforeHash: change.before === null ? null : sha256(change.before),
    afterHash: change.after === null ? null : sha256(change.after),
    beforeText: encode(change.before),
    afterText: encode(change.after),
    binary,
    decisionId: origin.decisionId,
    invocationId: origin.invocationId,
    ...(change.mode === undefined ? {} : { mode: change.mode }),
    ...(change.beforeMode === undefined ? {} : { beforeMode: change.beforeMode }),
    createdAt: new Date().toISOString(),
  };
}

/** Collects change entries in memory (the legacy stub actor's capture). */
export class ChangeSetCapture {
  readonly entries: ChangeEntry[] = [];
  capture(change: CapturedChange, origin: { decisionId: string | null; invocationId: string | null }): ChangeEntry {
    const entry = toChangeEntry(change, origin);
    this.entries.push(entry);
    return entry;
  }
}
