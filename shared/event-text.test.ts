import { describe, expect, it } from 'vitest';
import type { EventData, StreamEvent, StreamEventType } from './events';
import { sampleData } from './test-support/sample-events';
import { eventText } from './event-text';

const makeEvent = <T extends StreamEventType>(seq: number, type: T, data: Partial<EventData<T>>): StreamEvent =>
  ({ planId: 'P1', seq, ts: '2026-01-01T00:00:00.000Z', type, data: sampleData(type, data) }) as StreamEvent;

describe('event lines, as the event log and plan run --stream show them', () => {
  const describeDecision = (id: string) => (id === 's1' ? 'Create the licence file' : undefined);

  it('name the step by its description', () => {
    expect(eventText(makeEvent(1, 'decision_status', { decisionId: 's1', status: 'failed' }), describeDecision)).toEqual({ text: 'Create the licence file: failed', tone: 'bad' });
  });

  it('show a failed tool call with its error', () => {
    const event = makeEvent(2, 'tool_call_finished', { tool: 'shell.run', ok: false, durationMs: 12, error: { name: 'ToolError', message: 'exit 1' } });
    expect(eventText(event, describeDecision)).toEqual({ text: 'shell.run failed: exit 1 in 12 ms', tone: 'bad' });
  });

  it('show a model call that failed, with its category', () => {
    const event = makeEvent(5, 'model_usage', { inputTokens: 0, outputTokens: 0, error: { type: 'transient', message: 'the provider answered 503' } });
    expect(eventText(event, describeDecision)).toEqual({ text: 'model call failed (transient): the provider answered 503', tone: 'warn' });
  });

  it('show state changes in the shared vocabulary, never a phase and state pair', () => {
    expect(eventText(makeEvent(4, 'state_changed', { from: 'processing', to: 'queued', phase: 'apply' }), describeDecision).text).toBe('Ready to apply');
    expect(eventText(makeEvent(3, 'state_changed', { from: 'processing', to: 'complete', phase: 'apply' }), describeDecision).text).toBe('Applied');
  });
});
