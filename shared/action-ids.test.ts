import { describe, expect, it } from 'vitest';
import { ACTION_IDS, ACTIONS } from './actions';
import { ActionIdSchema, NextStepSchema } from './action-ids';

describe('the action ids', () => {
  it('are the keys of the table of actions, in its order, and each entry names its own key', () => {
    expect([...ACTION_IDS]).toEqual(Object.keys(ACTIONS));
    for (const [key, spec] of Object.entries(ACTIONS)) expect(spec.id).toBe(key);
  });

  it('are what a record that names an action is parsed against', () => {
    expect(ActionIdSchema.options).toEqual(ACTION_IDS);
    expect(NextStepSchema.safeParse({ action: 'verify', args: {}, message: 'Run the checks again' }).success).toBe(true);
    expect(NextStepSchema.safeParse({ action: 'no_such_action', args: {}, message: '' }).success).toBe(false);
  });
});
