// A second process for the object-collection race test: records a plan's first checkpoint of a sandbox.
// Usage: node --import tsx checkpoint-recorder.ts <data-dir> <sandbox> <planId>
import path from 'node:path';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { ObjectStore } from '../../engine/checkpoints/object-store';
import { CheckpointRecorder } from '../../engine/checkpoints/recorder';
import { OBJECTS_FOLDER } from '../data-dir';
import { openStores } from '../stores';

const [dataDir, sandbox, planId] = process.argv.slice(2);
const stores = openStores(dataDir);
const recorder = new CheckpointRecorder(stores.checkpoints, new ObjectStore(path.join(dataDir, OBJECTS_FOLDER)), stores.changesets, stores.invocations);
const step: StrategyDecision = {
  id: `${planId}-D1`,
  planId,
  parentId: 'ROOT',
  type: 'strategy_choice',
  order: 1,
  description: 'Step 1',
  rationale: '',
  toolCalls: [],
  status: 'pending',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};
process.stdout.write('recording\n');
recorder
  .record({ plan: { id: planId, changesetId: null } as Plan, sandboxRoot: sandbox, steps: [step], decisions: [step], decision: step, step: 1 })
  .then((checkpoint) => {
    process.stdout.write(`recorded ${checkpoint?.filesChanged}\n`);
    stores.close();
  })
  .catch((error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exitCode = 1;
  });
