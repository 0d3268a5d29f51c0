import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '../../../shared/errors';
import { ApprovalPending, EngineError, ToolCallError } from '../errors';
import { InMemoryInvocationLog } from '../test-support/in-memory-stores';
import { ToolRegistry, ToolRunner } from './tool-runner';

function runner() {
  const registry = new ToolRegistry()
    .register({ name: 'echo', effect: 'write', description: 'returns its text', schema: z.object({ text: z.string() }).strict(), run: async ({ text }) => ({ text }) })
    .register({
      name: 'flaky',
      effect: 'write',
      description: 'fails transiently',
      schema: z.object({}),
      run: async () => {
        throw new EngineError('try later', 'transient');
      },
    });
  return new ToolRunner(registry, new InMemoryInvocationLog());
}

describe('ToolRunner', () => {
  it('discovers registered tools sorted by name', () => {
    expect(runner().discover().map((t) => t.name)).toEqual(['echo', 'flaky']);
  });

  it('refuses a second tool with the same name', () => {
    const registry = new ToolRegistry().register({ name: 'a', effect: 'write', description: '', schema: z.object({}), run: async () => null });
    expect(() => registry.register({ name: 'a', effect: 'write', description: '', schema: z.object({}), run: async () => null })).toThrow(/already registered/);
  });

  it('records a successful invocation with its arguments, result and duration', async () => {
    const r = runner();
    const invocation = await r.execute({ tool: 'echo', args: { text: 'hi' } }, { planId: 'P', decisionId: 'D', sandboxRoot: null });
    expect(invocation).toMatchObject({ ok: true, tool: 'echo', args: { text: 'hi' }, result: { text: 'hi' }, error: null, decisionId: 'D' });
    expect(invocation.durationMs).toBeGreaterThanOrEqual(0);
    expect(await r.log.listForPlan('P')).toEqual([invocation]);
  });

  it('validates arguments against the schema and names the field', async () => {
    const r = runner();
    const failure = await r.execute({ tool: 'echo', args: { text: 3 } }, { planId: 'P', decisionId: null, sandboxRoot: null }).catch((e) => e);
    expect(failure).toBeInstanceOf(ToolCallError);
    expect((failure as ToolCallError).cause).toBeInstanceOf(ValidationError);
    expect((failure as ToolCallError).message).toMatch(/args\.text/);
    expect((await r.log.listForPlan('P'))[0]).toMatchObject({ ok: false, error: { name: 'ValidationError', category: 'validation' } });
  });

  it('records unknown tools and tool failures with their category', async () => {
    const r = runner();
    await expect(r.execute({ tool: 'nope', args: {} }, { planId: 'P', decisionId: null, sandboxRoot: null })).rejects.toThrow(/unknown tool "nope"/);
    await expect(r.execute({ tool: 'flaky', args: {} }, { planId: 'P', decisionId: null, sandboxRoot: null })).rejects.toThrow(/try later/);
    expect((await r.log.listForPlan('P')).map((i) => i.error?.category)).toEqual(['validation', 'transient']);
  });

  it('records what a call stopped for its question changed, under the id it was given, and no invocation', async () => {
    const registry = new ToolRegistry().register({
      name: 'ask',
      effect: 'exec',
      description: 'writes, then waits for an answer',
      schema: z.object({}),
      run: async (_args, context) => {
        context.recordChange({ path: 'a.txt', operation: 'create', before: null, after: Buffer.from('a') });
        throw new ApprovalPending('Q1');
      },
    });
    const r = new ToolRunner(registry, new InMemoryInvocationLog());
    const recorded: [string, string][] = [];
    const units: number[] = [];
    const stopped = await r
      .execute({ tool: 'ask', args: {} }, { planId: 'P', decisionId: 'D', sandboxRoot: null, invocationId: 'CALL1', recordChange: async (change, id) => void recorded.push([change.path, id]), atomically: async (writes) => {
          units.push(1);
          await writes();
        } })
      .catch((e) => e);
    expect(stopped).toBeInstanceOf(ApprovalPending);
    expect(recorded).toEqual([['a.txt', 'CALL1']]);
    expect(units).toEqual([1]);
    expect(await r.log.listForPlan('P')).toEqual([]);
  });

  it('settles a call in one unit: its changes, its invocation and onSettled, after the tool has finished', async () => {
    const order: string[] = [];
    const registry = new ToolRegistry().register({
      name: 'touch',
      effect: 'write',
      description: 'reports two changes',
      schema: z.object({}),
      run: async (_args, context) => {
        context.recordChange({ operation: 'create', path: 'a', before: null, after: Buffer.from('a') });
        context.recordChange({ operation: 'create', path: 'b', before: null, after: Buffer.from('b') });
        order.push('tool returned');
        return null;
      },
    });
    const r = new ToolRunner(registry, new InMemoryInvocationLog());
    let units = 0;
    const invocation = await r.execute(
      { tool: 'touch', args: {} },
      {
        planId: 'P',
        decisionId: null,
        sandboxRoot: null,
        recordChange: async (change, invocationId) => void order.push(`change ${change.path} of ${invocationId}`),
        atomically: async (fn) => {
          units += 1;
          order.push('unit begins');
          await fn();
          order.push('unit ends');
        },
        onSettled: async (settled) => void order.push(`settled ${settled.ok}`),
      },
    );
    expect(units).toBe(1);
    expect(order).toEqual(['tool returned', 'unit begins', `change a of ${invocation.id}`, `change b of ${invocation.id}`, 'settled true', 'unit ends']);
    expect(await r.log.listForPlan('P')).toEqual([invocation]);
  });

  it('when recording a change fails, the unit is dropped and the call is recorded as failed in a unit of its own', async () => {
    const registry = new ToolRegistry().register({
      name: 'touch',
      effect: 'write',
      description: 'reports a change',
      schema: z.object({}),
      run: async (_args, context) => {
        context.recordChange({ operation: 'create', path: 'a', before: null, after: Buffer.from('a') });
        return 'done';
      },
    });
    const r = new ToolRunner(registry, new InMemoryInvocationLog());
    const committed: string[][] = [];
    const settled: boolean[] = [];
    const failure = await r
      .execute(
        { tool: 'touch', args: {} },
        {
          planId: 'P',
          decisionId: null,
          sandboxRoot: null,
          recordChange: async () => {
            throw new Error('disk full');
          },
          // A toy transaction: what a unit logs is kept only if it returns.
          atomically: async (fn) => {
            await fn();
            committed.push((await r.log.listForPlan('P')).map((i) => String(i.ok)));
          },
          onSettled: async (invocation) => void settled.push(invocation.ok),
        },
      )
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ToolCallError);
    expect((failure as ToolCallError).message).toMatch(/disk full/);
    expect(await r.log.listForPlan('P')).toMatchObject([{ ok: false, error: { message: 'disk full' } }]);
    expect(settled).toEqual([false]);
    expect(committed).toEqual([['false']]);
  });
});
