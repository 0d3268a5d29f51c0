import { describe, expect, it } from 'vitest';
import { makeInvocation } from '../test-support/fixtures';
import { postgresSuiteName, testPostgres, usePostgresStores } from './test-support/database';

// What the InvocationLog and ErrorLog contracts (run in ./contracts.test.ts) leave to PostgreSQL.
describe.skipIf(!testPostgres().url)(postgresSuiteName('PgInvocationLog'), () => {
  const pg = usePostgresStores();
  const invocations = () => pg.stores().invocations;

  it('keeps a result with a nul, which jsonb could not hold, and finds one invocation by id', async () => {
    const textResult = makeInvocation('01PLAN', { result: 'contents with a nul \u0000\n' });
    await invocations().record(textResult);
    expect(await invocations().listForPlan('01PLAN')).toEqual([textResult]);
    expect(await invocations().get(textResult.id)).toEqual(textResult);
    expect(await invocations().get('01NONE')).toBeUndefined();
  });
});
