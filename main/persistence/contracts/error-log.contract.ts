import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ErrorLog } from '../../engine/ports/recovery';
import { type Harness, type HarnessFactory, makeErrorRecord } from '../test-support/fixtures';

/** What every ErrorLog must do. */
export function errorLogContract(name: string, factory: HarnessFactory<ErrorLog>): void {
  describe(`ErrorLog contract: ${name}`, () => {
    let harness: Harness<ErrorLog>;
    let log: ErrorLog;
    beforeEach(async () => {
      harness = await factory();
      log = harness.subject;
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it('has nothing for an unknown plan', async () => {
      expect(await log.listForPlan('01PLAN')).toEqual([]);
    });

    it('lists a plan\'s records in recording order', async () => {
      const first = makeErrorRecord('01PLAN', { decisionId: 'D1' });
      const second = makeErrorRecord('01PLAN', {
        attempt: 2,
        category: 'tool',
        retriable: false,
        recoveryAction: 'manual',
        stack: null,
        next: null,
        outcome: 'gave_up',
      });
      await log.record(first);
      await log.record(makeErrorRecord('01OTHER'));
      await log.record(second);
      expect(await log.listForPlan('01PLAN')).toEqual([first, second]);
      expect(await log.listForPlan('01OTHER')).toHaveLength(1);
    });
  });
}
