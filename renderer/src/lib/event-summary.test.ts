import { describe, expect, it } from 'vitest';
import { makeEvent } from '../test-support/fake-bridge';
import { summarizeEvent } from './event-summary';

describe('event log lines', () => {
  const describeDecision = (id: string) => (id === 's1' ? 'Create the licence file' : undefined);

  it('name the step by its description', () => {
    expect(summarizeEvent(makeEvent(1, 'decision_status', { decisionId: 's1', status: 'failed' }), describeDecision)).toEqual({ text: 'Create the licence file: failed', tone: 'bad' });
  });

  it('show a failed tool call with its error', () => {
    const event = makeEvent(2, 'tool_call_finished', { tool: 'shell.run', ok: false, durationMs: 12, error: { name: 'ToolError', message: 'exit 1' } });
    expect(summarizeEvent(event, describeDecision)).toEqual({ text: 'shell.run failed: exit 1 in 12 ms', tone: 'bad' });
  });

  it('show state changes in the shared vocabulary, never a phase and state pair', () => {
    expect(summarizeEvent(makeEvent(4, 'state_changed', { from: 'processing', to: 'queued', phase: 'apply' }), describeDecision).text).toBe('Ready to apply');
    expect(summarizeEvent(makeEvent(3, 'state_changed', { from: 'processing', to: 'complete', phase: 'apply' }), describeDecision).text).toBe('Applied');
  });
});
