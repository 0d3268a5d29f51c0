import { describe, expect, it } from 'vitest';
import { type Approval, ApprovalSchema } from '../../shared/approvals';
import type { DecisionNode } from '../app/use-cases/reading';
import { reviewDiffs, reviewNet } from '../engine/changeset/review';
import { toChangeEntry } from '../engine/run/change-capture';
import { formatApproval, formatReview, formatTree } from './format';

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

describe('formatTree', () => {
  it("lists a step's sub-tasks under it with their marks: done, in progress, not yet", () => {
    const at = '2026-01-01T00:00:00.000Z';
    const node = (id: string, parentId: string | null, children: DecisionNode[], extra: Partial<DecisionNode> = {}): DecisionNode =>
      ({ id, planId: 'P1', parentId, type: parentId ? 'strategy_choice' : 'prompt_definition', order: 0, description: id, rationale: '', toolCalls: [], status: 'running', createdAt: at, updatedAt: at, children, ...extra }) as DecisionNode;
    const subtasks = [
      { content: 'Read the README', status: 'completed', priority: 'medium' },
      { content: 'Write NOTES.md', status: 'in_progress', priority: 'high' },
      { content: 'Check the notes', status: 'pending', priority: 'medium' },
    ] as const;
    const text = formatTree(node('Root', null, [node('Write notes', 'Root', [], { subtasks: [...subtasks] })]));
    expect(text).toContain('sub-tasks 1/3:');
    expect(text).toContain('● Read the README');
    expect(text).toContain('◐ Write NOTES.md (in progress) [high]');
    expect(text).toContain('○ Check the notes');
  });
});

describe('formatReview', () => {
  it('names a mode changed alone as git does, with the diff git writes for it', () => {
    const script = Buffer.from('#!/bin/sh\necho run\n');
    const entry = toChangeEntry({ operation: 'modify', path: 'run.sh', before: script, after: script, beforeMode: 0o644, mode: 0o755 }, { decisionId: 'D1', invocationId: null });
    const text = formatReview(reviewDiffs(reviewNet([entry], [])).map(({ file, diff }) => ({ file: { ...file, steps: [] }, diff })));
    expect(text.split('\n')).toEqual([
      '1 file changed: 0 applied, 1 remaining',
      '',
      'MODIFY run.sh  mode 100644 \u2192 100755  [not applied yet]',
      'diff --git a/run.sh b/run.sh',
      'old mode 100644',
      'new mode 100755',
      '',
    ]);
  });
});
