import { describe, expect, it } from 'vitest';
import { makeApproval, makeDecision } from '../test-support/fake-bridge';
import { answersByDecision, describeArgs, pathOfCall } from './approvals';

describe('what an approval shows', () => {
  it('pairs the approval decisions under a step with its answers, in order', () => {
    const decisions = {
      s1: makeDecision('s1', 'root', 0),
      d1: makeDecision('d1', 's1', 1, { type: 'approval' }),
      d2: makeDecision('d2', 's1', 2, { type: 'approval' }),
      r1: makeDecision('r1', 'root', 1, { type: 'approval' }),
    };
    const approvals = [
      makeApproval('A2', { status: 'rejected', answeredBy: 'ann', answeredAt: '2026-01-01T00:00:02.000Z', reason: 'no' }),
      makeApproval('A1', { status: 'approved', scope: 'all', answeredBy: 'console', answeredAt: '2026-01-01T00:00:01.000Z' }),
      makeApproval('A3'),
      makeApproval('P1', { kind: 'plan', decisionId: null, tool: null, status: 'approved', answeredBy: 'bob', answeredAt: '2026-01-01T00:00:03.000Z' }),
    ];
    const answers = answersByDecision(decisions, approvals, 'root');
    expect(answers.get('d1')).toMatchObject({ approved: true, scope: 'all', by: 'console', reason: null });
    expect(answers.get('d2')).toMatchObject({ approved: false, by: 'ann', reason: 'no' });
    expect(answers.get('r1')).toMatchObject({ approved: true, by: 'bob' });
    expect(answers.has('s1')).toBe(false);
  });

  it('shows the command of shell.run on its own, and every other argument as text', () => {
    expect(describeArgs('shell.run', { command: 'make test', timeoutMs: 5000 })).toEqual({ command: 'make test', rest: [['timeoutMs', '5000']] });
    expect(describeArgs('file.rename', { from: 'a.txt', to: 'b.txt' })).toEqual({ command: null, rest: [['from', 'a.txt'], ['to', 'b.txt']] });
    expect(pathOfCall({ from: 'a.txt', to: 'b.txt' })).toBe('b.txt');
    expect(pathOfCall({ command: 'ls' })).toBe('');
  });
});
