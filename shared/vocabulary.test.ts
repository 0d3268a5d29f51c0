import { describe, expect, it } from 'vitest';
import { PHASES, PROCESSING_STATES } from './domain';
import { eventText } from './event-text';
import type { StreamEvent } from './events';
import { STATUS_LABELS, planStatus, plural, requiredStatuses, statusLabel, wrongStateMessage } from './vocabulary';

describe('one vocabulary for where a plan stands', () => {
  it('names every phase and state as a status, never as the pair', () => {
    for (const phase of PHASES) {
      for (const processingState of PROCESSING_STATES) {
        const label = statusLabel({ phase, processingState });
        expect(Object.values(STATUS_LABELS)).toContain(label);
        expect(label).not.toMatch(/queued|processing|errored|strategize|execute/);
      }
    }
    expect(statusLabel({ phase: 'apply', processingState: 'queued' })).toBe('Ready to apply');
    expect(statusLabel({ phase: 'execute', processingState: 'queued' })).toBe('Ready to run');
    expect(statusLabel({ phase: 'apply', processingState: 'complete' })).toBe('Applied');
    expect(statusLabel({ phase: 'execute', processingState: 'paused', waitingFor: 'approval' })).toBe('Waiting for approval');
    expect(planStatus({ phase: 'execute', processingState: 'errored', errorDetails: { category: 'interrupted' } })).toBe('interrupted');
    expect(planStatus({ phase: 'execute', processingState: 'errored', errorDetails: { category: 'permanent' } })).toBe('failed');
  });

  it('says what state a plan is in and what an action needs', () => {
    const needs = requiredStatuses('apply', ['queued', 'errored']);
    expect(wrongStateMessage({ id: 'P1', phase: 'apply', processingState: 'complete' }, 'apply', needs)).toBe('plan P1 is Applied; apply needs a plan that is Ready to apply or Failed');
  });

  it('counts in words', () => {
    expect(plural(1, 'tool call')).toBe('1 tool call');
    expect(plural(3, 'tool call')).toBe('3 tool calls');
  });

  it("words an event once for the console's log and the CLI's stream", () => {
    const base = { planId: 'P1', seq: 1, ts: '2026-01-01T00:00:00.000Z' };
    const change: StreamEvent = {
      ...base,
      type: 'change_recorded',
      data: {
        entry: { id: 'e1', path: 'README.md', oldPath: null, operation: 'modify', beforeHash: 'a', afterHash: 'b', binary: false, decisionId: 's1', invocationId: 'i1', insertions: 2, deletions: 0 },
      },
    };
    expect(eventText(change, () => undefined).text).toBe('changed README.md (+2 −0)');
    const step: StreamEvent = { ...base, type: 'runtime_execute_step', data: { decisionId: 's2', index: 2, total: 3, description: 'Mention it in the README' } };
    expect(eventText(step, () => undefined).text).toBe('step 2 of 3: Mention it in the README');
    const done: StreamEvent = { ...base, type: 'runtime_execute_complete', data: { changesetId: 'c', toolCallCount: 1, executionDurationMs: 12, sandboxRefs: [], decisionsProcessed: [] } as never };
    expect(eventText(done, () => undefined).text).toBe('1 tool call in 12 ms');
    const stopped: StreamEvent = { ...base, type: 'state_changed', data: { from: 'paused', to: 'errored', phase: 'execute', category: 'interrupted' } };
    expect(eventText(stopped, () => undefined).text).toBe('Interrupted');
  });
});
