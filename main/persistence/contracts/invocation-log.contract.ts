import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InvocationLog } from '../../engine/ports/invocation-log';
import { type Harness, type HarnessFactory, makeInvocation } from '../test-support/fixtures';

/** What every InvocationLog must do; run against the in-memory and the SQLite one. */
export function invocationLogContract(name: string, factory: HarnessFactory<InvocationLog>): void {
  describe(`InvocationLog contract: ${name}`, () => {
    let harness: Harness<InvocationLog>;
    let log: InvocationLog;
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

    it('lists a plan\'s invocations in recording order, successes and failures alike', async () => {
      const ok = makeInvocation('01PLAN', { decisionId: 'D1', result: { files: ['a', 'b'], count: 2 } });
      const failed = makeInvocation('01PLAN', {
        tool: 'shell.run',
        args: { command: 'exit 75' },
        ok: false,
        result: undefined,
        error: { name: 'EngineError', message: 'exit 75', category: 'transient' },
        durationMs: 12.5,
      });
      delete failed.result;
      const nullResult = makeInvocation('01PLAN', { result: null });
      const textResult = makeInvocation('01PLAN', { result: 'contents\n' });
      await log.record(ok);
      await log.record(makeInvocation('01OTHER'));
      await log.record(failed);
      await log.record(nullResult);
      await log.record(textResult);
      const listed = await log.listForPlan('01PLAN');
      expect(listed).toEqual([ok, failed, nullResult, textResult]);
      expect('result' in listed[1]).toBe(false);
      expect(listed[2].result).toBeNull();
      expect(await log.listForPlan('01OTHER')).toHaveLength(1);
    });

    it('lists one decision\'s calls, and tallies the calls that ran and failed per decision in the order decisions first ran', async () => {
      const failed = (decisionId: string) => makeInvocation('01PLAN', { decisionId, ok: false, error: { name: 'EngineError', message: 'no', category: 'tool' } });
      const d2 = makeInvocation('01PLAN', { decisionId: 'D2' });
      const d1 = makeInvocation('01PLAN', { decisionId: 'D1' });
      const d2failed = failed('D2');
      for (const invocation of [d2, d1, d2failed, failed('D3'), makeInvocation('01PLAN', { decisionId: null }), makeInvocation('01OTHER', { decisionId: 'D9' })]) await log.record(invocation);
      expect(await log.listForDecision('D2')).toEqual([d2, d2failed]);
      expect(await log.listForDecision('D8')).toEqual([]);
      expect(await log.talliesForPlan('01PLAN')).toEqual([
        { decisionId: 'D2', ran: 2, failed: 1 },
        { decisionId: 'D1', ran: 1, failed: 0 },
        { decisionId: 'D3', ran: 1, failed: 1 },
      ]);
      expect(await log.talliesForPlan('01NONE')).toEqual([]);
    });

    it('keeps how a command was confined, and nothing for tools that run none', async () => {
      const asNobody = makeInvocation('01PLAN', { tool: 'shell.run', args: { command: 'true' }, confinement: 'bwrap-nobody' });
      // As older versions recorded a bubblewrap call, before it ran as nobody.
      const confined = makeInvocation('01PLAN', { tool: 'shell.run', args: { command: 'true' }, confinement: 'bwrap' });
      const unconfined = makeInvocation('01PLAN', { tool: 'shell.run', args: { command: 'true' }, confinement: 'none' });
      const file = makeInvocation('01PLAN');
      for (const invocation of [asNobody, confined, unconfined, file]) await log.record(invocation);
      const listed = await log.listForPlan('01PLAN');
      expect(listed.map((i) => i.confinement)).toEqual(['bwrap-nobody', 'bwrap', 'none', undefined]);
      expect('confinement' in listed[3]).toBe(false);
    });
  });
}
