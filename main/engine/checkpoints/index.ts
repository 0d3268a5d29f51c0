import type { CheckpointStore, StoredCheckpoint } from './checkpoint-store';
import { foldDeltas, type Manifest } from './manifest';
import type { ObjectStore } from './object-store';
import { existsSync } from 'node:fs';
import { fillNewFolder } from './fill';
import { materialise } from './restore';

export type { CheckpointStore, RewindJournal, RewindOp, StoredCheckpoint } from './checkpoint-store';
export { type Manifest, type ManifestDelta, type ManifestEntry, foldDeltas } from './manifest';
export { OBJECT_GRACE_MS, ObjectStore } from './object-store';
export { type ForkMapping, forkCheckpoints, forkUsage } from './fork';
export { fillNewFolder } from './fill';
export { applyRestore, applyRestoreAsync, materialise, planRestore } from './restore';

/** The checkpoints of `planId` up to step `step`'s, oldest first; undefined when step `step` has none. */
export async function checkpointsThrough(store: CheckpointStore, planId: string, step: number): Promise<StoredCheckpoint[] | undefined> {
  const all = await store.list(planId);
  const at = all.findIndex((c) => c.step === step);
  return at === -1 ? undefined : all.slice(0, at + 1);
}

/** What the sandbox held as step `step` started; undefined when that step has no checkpoint. */
export async function manifestAt(store: CheckpointStore, planId: string, step: number): Promise<Manifest | undefined> {
  const chain = await checkpointsThrough(store, planId, step);
  return chain && foldDeltas(chain.map((c) => c.delta));
}

/**
 * Makes `folder` hold exactly what the plan's sandbox held as step `step` started: files with
 * their contents and modes, symbolic links, folders. For a fork's sandbox. False when the step has
 * no checkpoint.
 */
export async function materialiseCheckpoint(store: CheckpointStore, objects: ObjectStore, planId: string, step: number, folder: string): Promise<boolean> {
  const manifest = await manifestAt(store, planId, step);
  if (!manifest) return false;
  // A new folder (a fork's sandbox) is filled many files at a time; one that is there is restored.
  if (existsSync(folder)) await materialise(manifest, objects, folder);
  else await fillNewFolder(manifest, objects, folder);
  return true;
}
