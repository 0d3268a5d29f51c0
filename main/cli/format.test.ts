import { describe, expect, it } from 'vitest';
import { type Approval, ApprovalSchema } from '../../shared/approvals';
import { formatApproval } from './format';

const approval = (overrides: Partial<Approval>): Approval =>
  ApprovalSchema.parse({
    id: 'A1',
    planId: 'P1',
    kind: 'tool',
    decisionId: 'D1',
    callIndex: 0,
    tool: 'shell.run',
    args: { command: 'eval "$x"' },
    description: 'Run it',
    rationale: '',
    diff: null,
    status: 'pending',
    scope: null,
    answeredBy: null,
    answeredAt: null,
    reason: null,
    usedAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  });

describe('formatApproval', () => {
  it('says why a shell command waits when no rule can check it', () => {
    const text = formatApproval(approval({ commandRule: { command: 'eval $x', rule: 'unanalysable: eval runs a string built at run time' } }));
    expect(text).toBe('shell.run wants to run in step "Run it"\n  $ eval "$x"\n  asks because: "eval $x" (unanalysable: eval runs a string built at run time)');
    expect(formatApproval(approval({}))).not.toContain('asks because');
  });
});
