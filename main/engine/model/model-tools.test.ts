import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../run/tool-runner';
import { FINISH_STEP, modelToolSet } from './model-tools';

describe('modelToolSet', () => {
  it('numbers a tool whose provider name another already has, so both stay callable', () => {
    const registry = new ToolRegistry();
    const tool = (name: string) => ({ name, description: name, effect: 'exec' as const, schema: z.object({}), run: async () => 'ok' });
    for (const name of ['a.b_c', 'a_b.c', 'finish.step']) registry.register(tool(name));
    const { tools, engineName } = modelToolSet(registry, registry.names());
    expect([...engineName]).toEqual([
      ['a_b_c', 'a.b_c'],
      ['a_b_c_2', 'a_b.c'],
      ['finish_step_2', 'finish.step'],
    ]);
    expect(Object.keys(tools)).not.toContain(FINISH_STEP);
  });
});
