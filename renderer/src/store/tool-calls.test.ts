// A running call's progress as the tree's bar reads it: the last report per step, gone when the call ends.
import { describe, expect, it } from 'vitest';
import type { EventData, StreamEvent, StreamEventType } from '../../../shared/events';
import { sampleData } from '../../../shared/test-support/sample-events';
import { progressText } from '../views/CallProgressBar';
import { foldToolCalls, initialToolCallsState, type ToolCallsState } from './tool-calls';

let seq = 0;
const event = <T extends StreamEventType>(type: T, data: Partial<EventData<T>>) => ({ planId: 'P1', seq: ++seq, ts: new Date().toISOString(), type, data: sampleData(type, data) }) as StreamEvent;

describe("a running call's progress", () => {
  it('keeps the last report of each step, and drops it when the call finishes or another starts', () => {
    const tool = 'everything.trigger-long-running-operation';
    let state: ToolCallsState = initialToolCallsState;
    const fold = (...events: StreamEvent[]) => {
      state = { ...state, ...foldToolCalls(state, 'P1', events).changes };
    };
    fold(event('tool_call_started', { decisionId: 'D1', tool }), event('tool_progress', { decisionId: 'D1', tool, progress: 1, total: 6, message: undefined }), event('tool_progress', { decisionId: 'D1', tool, progress: 3, total: 6, message: 'copying' }));
    expect(state.callProgress).toEqual({ D1: { tool, progress: 3, total: 6, message: 'copying' } });
    expect(progressText(state.callProgress.D1)).toBe('3/6 (50%)');
    fold(event('tool_progress', { decisionId: 'D2', tool, progress: 7, total: undefined, message: undefined }));
    expect(progressText(state.callProgress.D2)).toBe('7');
    fold(event('tool_call_finished', { decisionId: 'D1', tool, ok: true }));
    expect(Object.keys(state.callProgress)).toEqual(['D2']);
    fold(event('tool_call_started', { decisionId: 'D2', tool: 'file.write' }));
    expect(state.callProgress).toEqual({});
    // Events with no progress to drop change nothing.
    expect(foldToolCalls(state, 'P1', [event('tool_call_started', { decisionId: 'D3', tool })]).changes).toBeNull();
  });
});
