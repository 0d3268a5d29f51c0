import { diffJsonChunks } from '../app/diff-stream';
import type { PlanService } from '../app/plan-service';

/** Where `plan diff --json` goes: false from `write` means "wait for `drained` before writing more". */
export interface Sink {
  write(text: string): boolean | void;
  drained?(): Promise<void>;
}

/**
 * Writes `plan diff --json` as it is read, waiting whenever the reader is behind: only the entry
 * being written is in memory, whatever the changeset's size.
 */
export async function writeDiffJson(service: PlanService, planId: string, sink: Sink): Promise<void> {
  for await (const chunk of diffJsonChunks(service, planId)) {
    if (sink.write(chunk) === false && sink.drained) await sink.drained();
  }
}
