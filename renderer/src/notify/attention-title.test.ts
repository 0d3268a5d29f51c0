import { describe, expect, it } from 'vitest';
import { attentionTitle } from './attention-title';

describe("the console's title", () => {
  it('counts the plans that need the operator, and in the desktop window names the open plan', () => {
    expect(attentionTitle(0)).toBe('CleverAgents');
    expect(attentionTitle(2)).toBe('(2) CleverAgents');
    expect(attentionTitle(0, 'add-license')).toBe('add-license — CleverAgents');
    expect(attentionTitle(1, 'broken-docs')).toBe('(1) broken-docs — CleverAgents');
  });
});
