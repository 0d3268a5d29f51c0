import { describe, expect, it } from 'vitest';
import { attentionKindOfStatus, attentionOf, notifiesOf } from './attention';
import type { StreamEvent } from './events';

const event = (type: string, data: unknown) => ({ planId: 'P1', seq: 1, ts: '2026-01-01T00:00:00.000Z', type, data }) as StreamEvent;

describe('when a plan needs its operator', () => {
  it('is an approval of any kind, a failure, failed checks, or ready to apply; nothing else', () => {
    expect(attentionOf(event('approval_requested', { kind: 'tool', tool: 'shell.run' }))).toEqual({ kind: 'approval', reason: 'waits for approval of shell.run' });
    expect(attentionOf(event('approval_requested', { kind: 'plan', tool: null }))?.reason).toBe('waits for approval of its proposed steps');
    expect(attentionOf(event('approval_requested', { kind: 'budget', tool: null }))?.reason).toBe('reached its budget and waits for more');
    expect(attentionOf(event('state_changed', { from: 'processing', to: 'errored', phase: 'execute' }))).toEqual({ kind: 'failed', reason: 'failed' });
    expect(attentionOf(event('state_changed', { from: 'processing', to: 'queued', phase: 'apply' }))).toEqual({ kind: 'ready', reason: 'is ready to apply' });
    const summary = { total: 3, passed: 1, failed: 2, notChecked: 0, failedChecks: ['lint', 'test'] };
    expect(attentionOf(event('checks_complete', { runId: 'R', summary }))).toEqual({ kind: 'checksFailed', reason: '2 of 3 checks failed: lint, test' });
    expect(attentionOf(event('checks_complete', { runId: 'R', summary: { ...summary, passed: 3, failed: 0, failedChecks: [] } }))).toBeNull();
    expect(attentionOf(event('state_changed', { from: 'queued', to: 'processing', phase: 'execute' }))).toBeNull();
    expect(attentionOf(event('tool_call_started', {}))).toBeNull();
  });

  it('is off by kind only where a switch says false, and a plan\'s status names its kind', () => {
    expect(notifiesOf(undefined, 'failed')).toBe(true);
    expect(notifiesOf({ failed: false, ready: true }, 'failed')).toBe(false);
    expect(notifiesOf({ failed: false }, 'ready')).toBe(true);
    expect(attentionKindOfStatus('waiting_for_approval')).toBe('approval');
    expect(attentionKindOfStatus('interrupted')).toBe('failed');
    expect(attentionKindOfStatus('checks_failed')).toBe('checksFailed');
    expect(attentionKindOfStatus('ready_to_apply')).toBe('ready');
    expect(attentionKindOfStatus('paused')).toBeNull();
  });
});
