import { diffJsonChunks } from '../app/diff-stream';
import type { PlanService } from '../app/plan-service';

/** Writes `plan diff --json` as it is read: its peak memory is one page of entries, whatever the changeset's size. */
export function writeDiffJson(service: PlanService, planId: string, write: (text: string) => void): void {
  for (const chunk of diffJsonChunks(service, planId)) write(chunk);
}
