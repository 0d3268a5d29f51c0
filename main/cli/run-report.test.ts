import { describe, expect, it } from 'vitest';
import { approvalPrompt } from './run-report';

describe('the terminal question for an approval', () => {
  it('asks for the plan when a cost budget ran out, for the step when its turns or tokens did', () => {
    const cost = approvalPrompt({ kind: 'budget', tool: null, args: { limit: 'costUsd', used: 2.8, max: 2.5, more: 2.5 } });
    expect(cost.question).toBe('give the plan more dollars? [y]es, [n]o, [?] help: ');
    expect(cost.help).toContain('y: give the plan what it asks for');
    const turns = approvalPrompt({ kind: 'budget', tool: null, args: { limit: 'turns', used: 20, more: 20 } });
    expect(turns.question).toBe('give the step more? [y]es, [n]o, [?] help: ');
    expect(turns.help).toContain('y: give the step what it asks for');
  });

  it("names the tool of a call, and offers 'all' only there", () => {
    expect(approvalPrompt({ kind: 'tool', tool: 'shell.run', args: {} }).question).toBe('approve? [y]es, [n]o, [a]ll shell.run calls, [?] help: ');
    const tree = approvalPrompt({ kind: 'plan', tool: null, args: {} });
    expect(tree.question).toBe('approve the proposed tree? [y]es, [n]o, [?] help: ');
    expect(tree.help).not.toContain('null');
  });
});
