import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../shared/events';
import type { EventPublisher } from '../../engine/ports/event-stream';
import { makeEntry, makePlan } from '../test-support/fixtures';
import type { PortStores, StoresFactory } from './ports';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What `atomically` must do for an adapter whose stores share transactions: a unit that awaits in
 * the middle keeps its atomicity, whatever other tasks of the process do meanwhile.
 */
/**
 * `oneConnection`: the adapter's stores share one connection (SQLite), so a write outside an open
 * unit waits for it; over a pool (PostgreSQL) it goes ahead on another connection.
 */
export function unitContract(name: string, factory: StoresFactory, publisherOf: (stores: PortStores) => EventPublisher, options: { oneConnection: boolean }): void {
  describe(`units (atomically): ${name}`, () => {
    let stores: PortStores;
    let dispose: () => Promise<void>;
    let atomically: <T>(fn: () => Promise<T>) => Promise<T>;
    beforeEach(async () => {
      ({ stores, dispose } = await factory());
      if (!stores.atomically) throw new Error(`${name} has no atomically`);
      const unit = stores.atomically.bind(stores);
      atomically = (fn) => unit(fn);
    });
    afterEach(async () => {
      await dispose();
    });

    it('keeps two concurrent units apart: the one that rolls back takes none of the other\'s writes, and leaves none of its own', async () => {
      const failing = makePlan({ name: 'rolled back' });
      const kept = makePlan({ name: 'kept' });
      let keptStarted = false;
      const first = atomically(async () => {
        await stores.plans.insert(failing);
        await stores.events.appendNext(failing.id, 'strategize_started', {});
        // A real wait with the transaction open: the other unit is started meanwhile.
        await pause(20);
        expect(keptStarted).toBe(true);
        await stores.plans.update(failing.id, { processingState: 'processing' });
        throw new Error('the first unit fails');
      });
      const second = (async () => {
        await pause(5);
        keptStarted = true;
        await atomically(async () => {
          await stores.plans.insert(kept);
          const changesetId = await stores.changesets.start(kept.id);
          await pause(5);
          await stores.changesets.record(changesetId, makeEntry({ path: 'kept.txt', afterText: 'kept\n' }));
          await stores.events.appendNext(kept.id, 'strategize_started', {});
          await stores.plans.update(kept.id, { changesetId });
        });
      })();
      await expect(first).rejects.toThrow('the first unit fails');
      await second;

      expect(await stores.plans.get(failing.id)).toBeUndefined();
      expect(await stores.events.list(failing.id)).toEqual([]);
      const plan = await stores.plans.get(kept.id);
      expect(plan?.changesetId).toBeTruthy();
      expect((await stores.changesets.get(plan?.changesetId as string))?.entries.map((e) => e.path)).toEqual(['kept.txt']);
      expect((await stores.events.list(kept.id)).map((e) => e.type)).toEqual(['strategize_started']);
    });

    it('keeps a write outside any unit when that unit rolls back (on one connection, the write waits for the unit)', async () => {
      const inUnit = makePlan({ name: 'in the unit' });
      const outside = makePlan({ name: 'outside' });
      const order: string[] = [];
      const unit = atomically(async () => {
        await stores.plans.insert(inUnit);
        await pause(20);
        order.push('unit ends');
        throw new Error('rolled back');
      });
      await pause(5);
      const write = stores.plans.insert(outside).then(() => order.push('outside written'));
      // Nor does a read outside the unit see what the unit has not committed.
      const read = stores.plans.get(inUnit.id);
      await expect(unit).rejects.toThrow('rolled back');
      await write;
      expect(await read).toBeUndefined();
      if (options.oneConnection) expect(order).toEqual(['unit ends', 'outside written']);
      expect((await stores.plans.get(outside.id))?.name).toBe('outside');
      expect(await stores.plans.get(inUnit.id)).toBeUndefined();
    });

    it('joins a unit started inside another: one commit, or one rollback of both', async () => {
      const plan = makePlan();
      await expect(
        atomically(async () => {
          await stores.plans.insert(plan);
          await atomically(async () => {
            await stores.events.appendNext(plan.id, 'strategize_started', {});
          });
          throw new Error('outer fails');
        }),
      ).rejects.toThrow('outer fails');
      expect(await stores.plans.get(plan.id)).toBeUndefined();
      expect(await stores.events.list(plan.id)).toEqual([]);
    });

    it('delivers a unit\'s events once it has committed, never those of one that rolled back, and those of another task meanwhile at once', async () => {
      const publisher = publisherOf(stores);
      const heard: string[] = [];
      publisher.subscribe((event: StreamEvent) => heard.push(`${event.type}:${event.planId}`));
      const plan = makePlan();
      const other = makePlan();
      await stores.plans.insert(plan);
      await stores.plans.insert(other);
      const failing = publisher.deferDelivery(() =>
        atomically(async () => {
          await publisher.publish(plan.id, 'strategize_started', {});
          await pause(10);
          throw new Error('undone');
        }),
      );
      await pause(2);
      // Another task's event, outside the unit: delivered once written, not held back with the unit's.
      const outside = publisher.publish(other.id, 'strategize_started', {});
      await expect(failing).rejects.toThrow('undone');
      await outside;
      expect(heard).toEqual([`strategize_started:${other.id}`]);
      await publisher.deferDelivery(() =>
        atomically(async () => {
          await publisher.publish(plan.id, 'strategize_started', {});
          expect(heard).toHaveLength(1);
        }),
      );
      expect(heard).toEqual([`strategize_started:${other.id}`, `strategize_started:${plan.id}`]);
    });
  });
}
