import type { PlanUsage } from '../../../shared/agent';
import type { CheckpointSummary } from '../../../shared/checkpoints';
import type { DecisionStatus } from '../../../shared/domain';
import type { ManifestDelta } from './manifest';

/**
 * One checkpoint as stored: what the plan held as step `step` started. The sandbox's files are a
 * delta against the previous checkpoint (the first holds every file), their contents live in the
 * object store by hash, so a checkpoint costs what changed since the last one.
 */
export interface StoredCheckpoint extends CheckpointSummary {
  delta: ManifestDelta;
  /** The plan's changeset then, and how many of its entries (rewound ones included) it held. */
  changesetId: string | null;
  /** Each decision's status then: a rewind sets the steps from here back to these. */
  decisions: Record<string, DecisionStatus>;
  /** Tokens and the model's step summaries (what an agent plan's later steps are told) then. */
  usage: PlanUsage | null;
}

/** A file operation of a rewind, each idempotent: applied again after a crash, it gives the same result. */
export type RewindOp =
  | { op: 'remove'; path: string }
  | { op: 'mkdir'; path: string; mode: number }
  | { op: 'write'; path: string; hash: string; mode: number }
  | { op: 'symlink'; path: string; target: string };

/**
 * A rewind's intent, written before any file is touched: on the next open, a journal still there
 * is rolled forward (its operations applied again, then its database part committed).
 */
export interface RewindJournal {
  planId: string;
  checkpointId: string;
  toStep: number;
  /** The step the plan had reached, null when every step was done. */
  fromStep: number | null;
  /** The rewind's decision, named before it exists so a rolled-forward rewind makes the same one. */
  decisionId: string;
  by: string;
  ops: RewindOp[];
  /** Paths whose content, mode or kind the rewind changes, with what it does to each (for the decision and the event). */
  files: { path: string; operation: 'create' | 'modify' | 'delete'; editedByOperator: boolean }[];
  createdAt: string;
}

/** Where checkpoints and rewind journals are kept; SQLite in the app, in memory in engine tests. */
export interface CheckpointStore {
  /** Stores a checkpoint, replacing those of its step and later ones (a step started again after a rewind or a replan). */
  add(checkpoint: StoredCheckpoint): Promise<void>;
  /** The plan's checkpoints, oldest (lowest step) first, with their deltas. */
  list(planId: string): Promise<StoredCheckpoint[]>;
  /** The same without the deltas: what lists show. */
  summaries(planId: string): Promise<CheckpointSummary[]>;
  count(planId: string): Promise<number>;
  /** Drops the checkpoints of steps after `step`: a rewind makes them history. */
  removeAfter(planId: string, step: number): Promise<void>;
  /** Every content hash a checkpoint (of any plan) or a pending rewind names: what a collection of the object store keeps. */
  referencedObjects(): Promise<Set<string>>;
  beginRewind(journal: RewindJournal): Promise<void>;
  /** Journals of rewinds that have not committed: a process died while applying them. */
  pendingRewinds(): Promise<RewindJournal[]>;
  endRewind(planId: string): Promise<void>;
}
