import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '../../shared/errors';
import { EngineError, ToolCallError } from './errors';
import { ToolRegistry, ToolRunner } from './tool-runner';

function runner() {
  const registry = new ToolRegistry()
    .register({ name: 'echo', description: 'returns its text', schema: z.object({ text: z.string() }).strict(), run: async ({ text }) => ({ text }) })
    .register({
      name: 'flaky',
      description: 'fails transiently',
      schema: z.object({}),
      run: async () => {
        throw new EngineError('try later', 'transient');
      },
    });
  return new ToolRunner(registry);
}

describe('ToolRunner', () => {
  it('discovers registered tools sorted by name', () => {
    expect(runner().discover().map((t) => t.name)).toEqual(['echo', 'flaky']);
  });

  it('refuses a second tool with the same name', () => {
    const registry = new ToolRegistry().register({ name: 'a', description: '', schema: z.object({}), run: async () => null });
    expect(() => registry.register({ name: 'a', description: '', schema: z.object({}), run: async () => null })).toThrow(/already registered/);
  });

  it('records a successful invocation with its arguments, result and duration', async () => {
    const r = runner();
    const invocation = await r.execute({ tool: 'echo', args: { text: 'hi' } }, { planId: 'P', decisionId: 'D', sandboxRoot: null });
    expect(invocation).toMatchObject({ ok: true, tool: 'echo', args: { text: 'hi' }, result: { text: 'hi' }, error: null, decisionId: 'D' });
    expect(invocation.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.log.listForPlan('P')).toEqual([invocation]);
  });

  it('validates arguments against the schema and names the field', async () => {
    const r = runner();
    const failure = await r.execute({ tool: 'echo', args: { text: 3 } }, { planId: 'P', decisionId: null, sandboxRoot: null }).catch((e) => e);
    expect(failure).toBeInstanceOf(ToolCallError);
    expect((failure as ToolCallError).cause).toBeInstanceOf(ValidationError);
    expect((failure as ToolCallError).message).toMatch(/args\.text/);
    expect(r.log.listForPlan('P')[0]).toMatchObject({ ok: false, error: { name: 'ValidationError', category: 'validation' } });
  });

  it('records unknown tools and tool failures with their category', async () => {
    const r = runner();
    await expect(r.execute({ tool: 'nope', args: {} }, { planId: 'P', decisionId: null, sandboxRoot: null })).rejects.toThrow(/unknown tool "nope"/);
    await expect(r.execute({ tool: 'flaky', args: {} }, { planId: 'P', decisionId: null, sandboxRoot: null })).rejects.toThrow(/try later/);
    expect(r.log.listForPlan('P').map((i) => i.error?.category)).toEqual(['validation', 'transient']);
  });
});
