import type { StreamEvent } from '../../../shared/events';
import { formatDuration } from './format';

export type EventTone = 'info' | 'progress' | 'good' | 'warn' | 'bad';

const ms = (value: unknown): string => (typeof value === 'number' ? formatDuration(value) : '?');
const str = (value: unknown): string => (typeof value === 'string' ? value : value === undefined || value === null ? '' : JSON.stringify(value));

/** One readable line per event for the log; `describe` names decisions by their description. */
export function summarizeEvent(event: StreamEvent, describe: (decisionId: string) => string | undefined): { text: string; tone: EventTone } {
  const d = event.data;
  const step = () => (typeof d.decisionId === 'string' ? (describe(d.decisionId) ?? d.decisionId) : '');
  switch (event.type) {
    case 'plan_created':
      return { text: `created ${str(d.name)}`, tone: 'info' };
    case 'state_changed':
      return {
        text: `${str(d.from)} → ${str(d.to)} (${str(d.phase)})`,
        tone: d.to === 'errored' ? 'bad' : d.to === 'complete' ? 'good' : d.to === 'paused' ? 'warn' : 'info',
      };
    case 'decision_status':
      return { text: `${step()}: ${str(d.status)}`, tone: d.status === 'failed' ? 'bad' : d.status === 'done' ? 'good' : 'progress' };
    case 'tool_call_started':
      return { text: `${str(d.tool)} started (${step()})`, tone: 'progress' };
    case 'tool_call_finished': {
      const error = d.error && typeof d.error === 'object' ? str((d.error as Record<string, unknown>).message) : '';
      return { text: `${str(d.tool)} ${d.ok ? 'ok' : `failed${error ? `: ${error}` : ''}`} in ${ms(d.durationMs)}`, tone: d.ok ? 'good' : 'bad' };
    }
    case 'change_recorded':
      return { text: `${str(d.operation)} ${str(d.path)}`, tone: 'info' };
    case 'error_recorded':
      return { text: `${str(d.category)} error, attempt ${str(d.attempt)}: ${str(d.message)}`, tone: 'bad' };
    case 'retry_scheduled':
      return { text: `retry ${str(d.attempt)} in ${ms(d.delayMs)}: ${str(d.error)}`, tone: 'warn' };
    case 'paused':
      return { text: `paused (${str(d.reason)}) before step ${str(d.index)} of ${str(d.total)}: ${str(d.description)}`, tone: 'warn' };
    case 'apply_complete':
      return { text: d.ok ? `applied ${Array.isArray(d.applied) ? d.applied.length : ''} files` : `apply stopped by ${Array.isArray(d.conflicts) ? d.conflicts.length : ''} conflicts`, tone: d.ok ? 'good' : 'bad' };
    case 'strategize_decisions':
      return { text: `${str(d.decisionCount)} decisions`, tone: 'info' };
    case 'execute_step':
    case 'runtime_execute_step':
      return { text: `step ${str(d.index)} of ${str(d.total)}: ${str(d.description)}`, tone: 'progress' };
    case 'execute_started':
    case 'runtime_execute_started':
      return { text: `${str(d.decisionCount)} decisions to run`, tone: 'info' };
    case 'runtime_execute_complete':
      return { text: `${str(d.toolCallCount)} tool calls in ${ms(d.executionDurationMs)}`, tone: 'good' };
    case 'approval_requested':
      return { text: `${str(d.tool)} waits for approval (${step()})`, tone: 'warn' };
    case 'approval_resolved':
      return { text: `${str(d.tool)} ${d.approved ? 'approved' : 'rejected'} by ${str(d.answeredBy)}${d.reason ? `: ${str(d.reason)}` : ''}`, tone: d.approved ? 'good' : 'bad' };
    case 'recovery_applied':
      return { text: `${str(d.action).replaceAll('_', ' ')}: ${str(d.description)}`, tone: 'info' };
    case 'execute_complete':
    case 'strategize_complete':
    case 'strategize_started':
      return { text: '', tone: event.type.endsWith('complete') ? 'good' : 'info' };
  }
}
