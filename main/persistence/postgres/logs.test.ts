import { describe, expect, it } from 'vitest';
import { makeErrorRecord, makeInvocation } from '../test-support/fixtures';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

// The InvocationLog and ErrorLog contracts (../contracts/), awaited, against PostgreSQL.
describe.skipIf(!testPostgres().url)(postgresSuiteName('PgInvocationLog and PgErrorLog'), () => {
  const pg = usePostgresStores();
  const invocations = () => pg.stores().invocations;
  const errors = () => pg.stores().errors;

  it("lists a plan's invocations in recording order, telling no result from a null result", async () => {
    expect(await invocations().listForPlan('01PLAN')).toEqual([]);
    const ok = makeInvocation('01PLAN', { decisionId: 'D1', result: { files: ['a', 'b'], count: 2 } });
    const failed = makeInvocation('01PLAN', {
      tool: 'shell.run',
      args: { command: 'exit 75' },
      ok: false,
      error: { name: 'EngineError', message: 'exit 75', category: 'transient' },
      durationMs: 12.5,
    });
    delete failed.result;
    const nullResult = makeInvocation('01PLAN', { result: null });
    const textResult = makeInvocation('01PLAN', { result: 'contents with a nul \u0000\n' });
    for (const invocation of [ok, makeInvocation('01OTHER'), failed, nullResult, textResult]) await invocations().record(invocation);
    const listed = await invocations().listForPlan('01PLAN');
    expect(listed).toEqual([ok, failed, nullResult, textResult]);
    expect('result' in listed[1]!).toBe(false);
    expect(listed[2]!.result).toBeNull();
    expect(await invocations().listForPlan('01OTHER')).toHaveLength(1);
    expect(await invocations().get(ok.id)).toEqual(ok);
    expect(await invocations().get('01NONE')).toBeUndefined();
  });

  it("lists one decision's calls, and tallies per decision in the order decisions first ran", async () => {
    const failed = (decisionId: string) => makeInvocation('01PLAN', { decisionId, ok: false, error: { name: 'EngineError', message: 'no', category: 'tool' } });
    const d2 = makeInvocation('01PLAN', { decisionId: 'D2' });
    const d1 = makeInvocation('01PLAN', { decisionId: 'D1' });
    const d2failed = failed('D2');
    for (const invocation of [d2, d1, d2failed, failed('D3'), makeInvocation('01PLAN', { decisionId: null }), makeInvocation('01OTHER', { decisionId: 'D9' })]) {
      await invocations().record(invocation);
    }
    expect(await invocations().listForDecision('D2')).toEqual([d2, d2failed]);
    expect(await invocations().listForDecision('D8')).toEqual([]);
    expect(await invocations().talliesForPlan('01PLAN')).toEqual([
      { decisionId: 'D2', ran: 2, failed: 1 },
      { decisionId: 'D1', ran: 1, failed: 0 },
      { decisionId: 'D3', ran: 1, failed: 1 },
    ]);
    expect(await invocations().talliesForPlan('01NONE')).toEqual([]);
  });

  it('keeps how a command was confined, and nothing for tools that run none', async () => {
    const shell = (confinement: 'bwrap-nobody' | 'bwrap' | 'none') => makeInvocation('01PLAN', { tool: 'shell.run', args: { command: 'true' }, confinement });
    for (const invocation of [shell('bwrap-nobody'), shell('bwrap'), shell('none'), makeInvocation('01PLAN')]) await invocations().record(invocation);
    const listed = await invocations().listForPlan('01PLAN');
    expect(listed.map((i) => i.confinement)).toEqual(['bwrap-nobody', 'bwrap', 'none', undefined]);
    expect('confinement' in listed[3]!).toBe(false);
  });

  it("lists a plan's error records in recording order", async () => {
    expect(await errors().listForPlan('01PLAN')).toEqual([]);
    const first = makeErrorRecord('01PLAN', { decisionId: 'D1' });
    const second = makeErrorRecord('01PLAN', { attempt: 2, category: 'tool', retriable: false, recoveryAction: 'manual', stack: null, next: null, outcome: 'gave_up' });
    await errors().record(first);
    await errors().record(makeErrorRecord('01OTHER'));
    await errors().record(second);
    expect(await errors().listForPlan('01PLAN')).toEqual([first, second]);
    expect(await errors().listForPlan('01OTHER')).toHaveLength(1);
  });
});
