import { describe, expect, it } from 'vitest';
import { ACTION_IDS } from './action-ids';
import { ACTIONS } from './actions';

describe('the action ids', () => {
  it('list the table of actions in its order (the compiler checks that each id has an entry, and no entry lacks an id)', () => {
    expect(Object.keys(ACTIONS)).toEqual([...ACTION_IDS]);
  });
});
