import { describe, expect, it } from 'vitest';
import type { RejectedHunk } from '../../../shared/review-feedback';
import { REVIEW_FEEDBACK_BUDGET, reviewFeedbackText } from './review-feedback';

const hunk = (n: number, reason: string | null = null, size = 40): RejectedHunk => ({
  path: `src/f${n % 3}.ts`,
  hunk: n,
  lines: `@@ -${n},1 +${n},1 @@\n-old ${n}\n+${'new '.repeat(size / 4)}${n}`,
  reason,
  by: 'ana',
  at: '2026-01-01T00:00:00.000Z',
});

describe('reviewFeedbackText', () => {
  it('is empty when the review declined nothing and nothing was edited by hand', () => {
    expect(reviewFeedbackText({ rejected: [], handEdited: [] })).toBe('');
  });

  it('shows each declined hunk with its reason, and names the files edited by hand', () => {
    const text = reviewFeedbackText({ rejected: [hunk(1, 'too wide'), hunk(2)], handEdited: ['a.ts', 'b.ts'] });
    expect(text).toContain('src/f1.ts, hunk 1 (reason: too wide):\n@@ -1,1 +1,1 @@\n-old 1');
    expect(text).toContain('src/f2.ts, hunk 2 (no reason given)');
    expect(text).toContain('keep their edits: a.ts, b.ts.');
  });

  it('keeps within its hunk and character budget, newest first, and counts the rest', () => {
    const many = Array.from({ length: 50 }, (_, i) => hunk(i + 1, 'r'.repeat(500), 800));
    const files = Array.from({ length: 40 }, (_, i) => `file${i}.ts`);
    const text = reviewFeedbackText({ rejected: many, handEdited: files });
    expect(text.length).toBeLessThanOrEqual(REVIEW_FEEDBACK_BUDGET.chars);
    expect(text).toContain('hunk 50 ');
    expect(text).not.toContain('hunk 1 ');
    const shown = text.match(/, hunk \d+ \(/g)?.length ?? 0;
    expect(shown).toBeLessThanOrEqual(REVIEW_FEEDBACK_BUDGET.hunks);
    expect(text).toContain(`… and ${50 - shown} more declined hunks in 3 files, not shown.`);
    expect(text).toMatch(/The operator edited (these files by hand.* and 20 more\.|40 files by hand)/);
  });
});
