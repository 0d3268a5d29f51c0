import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventLog } from '../../engine/ports/event-stream';
import { type Harness, type HarnessFactory, makeEvent } from '../test-support/fixtures';

/** What every EventLog must do; run against the in-memory and the SQLite one. */
export function eventLogContract(name: string, factory: HarnessFactory<EventLog>): void {
  describe(`EventLog contract: ${name}`, () => {
    let harness: Harness<EventLog>;
    let log: EventLog;
    beforeEach(async () => {
      harness = await factory();
      log = harness.subject;
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it('starts at seq 0 with no events', async () => {
      expect(await log.lastSeq('01PLAN')).toBe(0);
      expect(await log.list('01PLAN')).toEqual([]);
    });

    it('lists a plan\'s events in seq order, with their data intact', async () => {
      const events = [1, 2, 3].map((seq) => makeEvent('01PLAN', seq));
      for (const event of events) await log.append(event);
      await log.append(makeEvent('01OTHER', 1, { type: 'strategize_started', data: {} }));
      expect(await log.list('01PLAN')).toEqual(events);
      expect(await log.lastSeq('01PLAN')).toBe(3);
      expect(await log.lastSeq('01OTHER')).toBe(1);
    });

    it('lists after a seq, up to a limit', async () => {
      for (let seq = 1; seq <= 10; seq += 1) await log.append(makeEvent('01PLAN', seq));
      expect((await log.list('01PLAN', 7)).map((e) => e.seq)).toEqual([8, 9, 10]);
      expect((await log.list('01PLAN', 2, 3)).map((e) => e.seq)).toEqual([3, 4, 5]);
      expect(await log.list('01PLAN', 0, Number.MAX_SAFE_INTEGER)).toHaveLength(10);
      expect(await log.list('01PLAN', 0, 0)).toEqual([]);
      expect(await log.list('01PLAN', 10)).toEqual([]);
    });
  });
}
