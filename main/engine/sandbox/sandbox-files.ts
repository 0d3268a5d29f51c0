import type { SandboxShape } from './shape';
import type { FileSnapshot, TreeSnapshot } from './snapshot';

/** One path of a plan's sandbox: what it held when the sandbox was made, and when it was last looked at. */
export interface SandboxFileRecord {
  /** sha256 of the file when the sandbox was made; null: it was not there. */
  baseHash: string | null;
  /** The file as last seen (its hash and stat); null: not there then. */
  seen: FileSnapshot | null;
}

/**
 * Where each plan's sandbox base is kept: the hash of every file the sandbox held when it was
 * made, and the stat of each file as last seen, so hand edits are found without reading files
 * whose stat did not change. The SQLite store implements it.
 */
export interface SandboxFileStore {
  /** Every path recorded for the plan; null when no base was recorded (a sandbox made by an older version). */
  load(planId: string): Promise<Map<string, SandboxFileRecord> | null>;
  /** The sandbox as it was made: every file is both its base and what was last seen. */
  recordBase(planId: string, files: TreeSnapshot): Promise<void>;
  /** Replaces what was last seen of these paths (null: the file is gone). */
  saveSeen(planId: string, seen: ReadonlyMap<string, FileSnapshot | null>): Promise<void>;
  /** Replaces the sandbox's links and folders as last seen (kept with its base: nothing without one). */
  saveShape(planId: string, shape: SandboxShape): Promise<void>;
  /** The links and folders last seen; null when none were recorded. */
  loadShape(planId: string): Promise<SandboxShape | null>;
  forget(planId: string): Promise<void>;
}
