import type { ToolTally } from '../../../shared/contract';
import type { ToolInvocation } from '../../../shared/tool-calls';
import type { StreamEvent, StreamEventOf } from '../../../shared/events';
import type { LoadStatus } from './state/load-status';

/** What a decision's row shows about its calls. */
export type CallTally = Omit<ToolTally, 'decisionId'>;

/** The calls of a decision that was opened: read once from the host, then moved on by events. */
export interface DecisionCalls {
  status: LoadStatus;
  invocations: ToolInvocation[];
  /** The args of the call that started and has not finished: its tool_call_finished does not repeat them. */
  startedArgs: Record<string, unknown> | null;
  error: string | null;
}

export interface ToolCallsState {
  /** Per decision, the calls that ran and failed: folded from tool_call_finished events over one snapshot. */
  toolTallies: Record<string, CallTally>;
  /** The tallies count every call whose event's seq is at most this (the snapshot's); older events are not folded again. */
  toolTalliesSeq: number;
  /** Calls folded while a snapshot of the tallies is on its way, with their seq: applied again over it. Null when none is. */
  toolTallyBacklog: { seq: number; decisionId: string; ok: boolean }[] | null;
  /** The decisions opened so far, by id. */
  decisionCalls: Record<string, DecisionCalls>;
  /** Per step, the running call's last progress report (an MCP server's), until the call finishes. */
  callProgress: Record<string, CallProgress>;
}

/** How far a running call says it got: `progress` of `total` (if it knows the total), and what it is doing. */
export interface CallProgress {
  tool: string;
  progress: number;
  total?: number;
  message?: string;
}

export const initialToolCallsState: ToolCallsState = {
  toolTallies: {},
  toolTalliesSeq: 0,
  toolTallyBacklog: null,
  decisionCalls: {},
  callProgress: {},
};

const count = (tallies: Record<string, CallTally>, decisionId: string, ok: boolean) => {
  const tally = tallies[decisionId];
  tallies[decisionId] = { ran: (tally?.ran ?? 0) + 1, failed: (tally?.failed ?? 0) + (ok ? 0 : 1) };
};

/** The invocation an opened decision lists for a finished call, from its two events. */
function invocationOf(planId: string, event: StreamEventOf<'tool_call_finished'>, args: Record<string, unknown>): ToolInvocation {
  const { invocationId, decisionId, tool, ok, durationMs, error, startedAt, confinement } = event.data;
  return {
    id: invocationId,
    planId,
    decisionId,
    tool,
    args,
    ok,
    error: error ?? null,
    startedAt: startedAt ?? event.ts,
    durationMs,
    ...(confinement ? { confinement } : {}),
  };
}

/**
 * Folds a frame's events into the tallies and into the decisions that are open: `changes` holds only
 * what changed (null when no event was a tool call), copying each record once per frame. `reload`
 * names the open decisions a call finished in whose start the page did not see (it was opened
 * meanwhile): their calls are read again, so no call is listed without its arguments.
 */
export function foldToolCalls(state: ToolCallsState, planId: string, events: readonly StreamEvent[]): { changes: Partial<ToolCallsState> | null; reload: string[] } {
  const reload = new Set<string>();
  let tallies: Record<string, CallTally> | null = null;
  let backlog: ToolCallsState['toolTallyBacklog'] = null;
  let opened: Record<string, DecisionCalls> | null = null;
  let progress: Record<string, CallProgress> | null = null;
  const openedCalls = (decisionId: string): DecisionCalls | undefined => {
    const calls = (opened ?? state.decisionCalls)[decisionId];
    if (!calls) return undefined;
    opened ??= { ...state.decisionCalls };
    if (opened[decisionId] === state.decisionCalls[decisionId]) opened[decisionId] = { ...calls, invocations: [...calls.invocations] };
    return opened[decisionId];
  };
  for (const event of events) {
    if (event.type === 'tool_progress') {
      const { decisionId, tool, progress: done, total, message } = event.data;
      if (!decisionId) continue;
      progress ??= { ...state.callProgress };
      progress[decisionId] = { tool, progress: done, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) };
      continue;
    }
    // A call that starts or ends has no progress shown (yet, or any more).
    const ended = event.type === 'tool_call_started' || event.type === 'tool_call_finished' ? event.data.decisionId : null;
    if (ended && (progress ?? state.callProgress)[ended]) {
      progress ??= { ...state.callProgress };
      delete progress[ended];
    }
    if (event.type === 'tool_call_started') {
      if (state.decisionCalls[event.data.decisionId]) openedCalls(event.data.decisionId)!.startedArgs = event.data.args;
    } else if (event.type === 'tool_call_finished') {
      const { decisionId, invocationId, ok } = event.data;
      if (event.seq > state.toolTalliesSeq) {
        tallies ??= { ...state.toolTallies };
        count(tallies, decisionId, ok);
        if (state.toolTallyBacklog) {
          backlog ??= [...state.toolTallyBacklog];
          backlog.push({ seq: event.seq, decisionId, ok });
        }
      }
      const calls = state.decisionCalls[decisionId] ? openedCalls(decisionId)! : undefined;
      if (calls && !calls.invocations.some((i) => i.id === invocationId)) {
        if (calls.startedArgs) calls.invocations.push(invocationOf(planId, event, calls.startedArgs));
        else reload.add(decisionId);
        calls.startedArgs = null;
      }
    }
  }
  if (!tallies && !opened && !progress) return { changes: null, reload: [] };
  return {
    changes: { ...(tallies ? { toolTallies: tallies } : {}), ...(backlog ? { toolTallyBacklog: backlog } : {}), ...(opened ? { decisionCalls: opened } : {}), ...(progress ? { callProgress: progress } : {}) },
    reload: [...reload],
  };
}

/** The host's tallies as of `throughSeq`, with the calls folded meanwhile that came after it. */
export function talliesOver(snapshot: readonly ToolTally[], throughSeq: number, backlog: ToolCallsState['toolTallyBacklog']): Record<string, CallTally> {
  const tallies: Record<string, CallTally> = {};
  for (const { decisionId, ran, failed } of snapshot) tallies[decisionId] = { ran, failed };
  for (const call of backlog ?? []) if (call.seq > throughSeq) count(tallies, call.decisionId, call.ok);
  return tallies;
}

/** A decision's calls as the host listed them, followed by those events brought while it was asked. */
export function callsOver(listed: readonly ToolInvocation[], pushed: DecisionCalls | undefined): ToolInvocation[] {
  const known = new Set(listed.map((i) => i.id));
  return [...listed, ...(pushed?.invocations ?? []).filter((i) => !known.has(i.id))];
}
