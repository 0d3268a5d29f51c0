import { existsSync, rmSync } from 'node:fs';
import { sampleData } from '../../shared/test-support/sample-events';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PlanLifecycleService } from '../engine/run/lifecycle';
import { EventPublisher } from '../engine/ports/event-stream';
import { PlanExecutionContext } from '../engine/run/execution-context';
import { BUILTIN_PROFILES } from '../../shared/profiles';
import { DATABASE_FILE, openStores } from './index';
import { makeEntry, tempDir } from './test-support/fixtures';

describe('openStores', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('opens every store on <dataDir>/agents.db, and the engine runs on them across a reopen', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const stores = openStores(dataDir);
    expect(existsSync(path.join(dataDir, DATABASE_FILE))).toBe(true);

    const lifecycle = new PlanLifecycleService(stores.plans, new EventPublisher(stores.events));
    const plan = await lifecycle.createPlan({ name: 'demo', definitionOfDone: '- one', automationProfile: { ...BUILTIN_PROFILES.trusted, approvalRequired: [] } });
    await lifecycle.beginPhase(plan.id, 'strategize');
    const context = new PlanExecutionContext({ planId: plan.id, changesetStore: stores.changesets });
    const changesetId = await context.startChangeset();
    await context.recordChange(makeEntry());
    stores.close();
    stores.close(); // closing twice is harmless

    const again = openStores(dataDir);
    try {
      expect(await again.plans.get(plan.id)).toMatchObject({ processingState: 'processing' });
      expect((await again.events.list(plan.id)).map((e) => e.type)).toEqual(['plan_created', 'state_changed']);
      // A fresh publisher continues the stored seq.
      expect((await new EventPublisher(again.events).publish(plan.id, 'paused', sampleData('paused'))).seq).toBe(3);
      expect((await again.changesets.summarize(changesetId)).entryCount).toBe(1);
      expect(await again.invocations.listForPlan(plan.id)).toEqual([]);
      expect(await again.errors.listForPlan(plan.id)).toEqual([]);
      expect(await again.leases.list()).toEqual([]);
    } finally {
      again.close();
    }
  });
});
