import { describe, expect, it } from 'vitest';
import { isUlid } from '../../../shared/ids';
import { parseDefinitionOfDone, StrategizeStubActor } from './strategize-actor';

describe('parseDefinitionOfDone', () => {
  it('reads -, *, + and numbered bullets, and task boxes', () => {
    const steps = parseDefinitionOfDone('Intro line\n- one\n* two\n+ three\n4. four\n5) five\n- [x] six\n');
    expect(steps.map((s) => s.step)).toEqual(['one', 'two', 'three', 'four', 'five', 'six']);
  });

  it('treats text without bullets as a single step', () => {
    expect(parseDefinitionOfDone('  Just do it  ')).toEqual([{ step: 'Just do it', tools: [] }]);
  });

  it('keeps scripted tool calls from a step list', () => {
    const steps = parseDefinitionOfDone(['plain', { step: 'write', tools: [{ tool: 'file.write', args: { path: 'a', content: 'b' } }] }]);
    expect(steps).toEqual([
      { step: 'plain', tools: [] },
      { step: 'write', rationale: undefined, tools: [{ tool: 'file.write', args: { path: 'a', content: 'b' } }] },
    ]);
  });
});

describe('StrategizeStubActor', () => {
  it('builds a root with ordered pending children and ULIDs', () => {
    const result = new StrategizeStubActor().strategize(
      { id: 'P1', name: 'n', description: '', definitionOfDone: '- a\n- b', invariants: ['x'] },
      ['project rule'],
    );
    const [root, ...steps] = result.decisions;
    expect(root).toMatchObject({ id: result.decisionRootId, type: 'prompt_definition', parentId: null, status: 'done' });
    expect(steps.map((s) => [s.order, s.description, s.status, s.parentId])).toEqual([
      [1, 'a', 'pending', root.id],
      [2, 'b', 'pending', root.id],
    ]);
    expect(result.decisions.every((d) => isUlid(d.id))).toBe(true);
    expect(result.invariantRecords.map((r) => [r.scope, r.invariant])).toEqual([
      ['project', 'project rule'],
      ['action', 'x'],
    ]);
  });
});
