import { createHash } from 'node:crypto';
import type { ChangeEntry } from '../../shared/domain';
import { newId } from '../../shared/ids';
import type { CapturedChange } from './tool-runner';

export function sha256(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** Text files are valid UTF-8 without NUL bytes; anything else is kept as base64 and gets no text diff. */
export function isBinary(content: Buffer | null): boolean {
  if (!content || content.length === 0) return false;
  if (content.subarray(0, 8000).includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(content);
    return false;
  } catch {
    return true;
  }
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
