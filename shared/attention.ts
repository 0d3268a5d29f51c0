import type { ApprovalKind } from './approvals';
import type { StreamEvent } from './events';
import type { PlanStatus } from './vocabulary';

/** Why a plan needs its operator: what every notification (desktop, browser, terminal, webhook) is about. */
export type AttentionKind = 'approval' | 'failed' | 'checksFailed' | 'ready';

/** Each kind by the switch that turns it off (the `notify` settings), as Settings names it. */
export const ATTENTION_KINDS = {
  approval: 'Approval needed',
  failed: 'Failed',
  checksFailed: 'Checks failed',
  ready: 'Ready to apply',
} as const satisfies Record<AttentionKind, string>;

/** The per-kind switches; a kind is on unless set to false. */
export type AttentionSwitches = Partial<Record<AttentionKind, boolean>>;

export function notifiesOf(switches: AttentionSwitches | undefined, kind: AttentionKind): boolean {
  return switches?.[kind] !== false;
}

/** The kind a plan in this status needs its operator for (the browser's notifications read a status); null: none. */
export function attentionKindOfStatus(status: PlanStatus): AttentionKind | null {
  switch (status) {
    case 'waiting_for_approval':
      return 'approval';
    case 'failed':
    case 'interrupted':
      return 'failed';
    case 'checks_failed':
      return 'checksFailed';
    case 'ready_to_apply':
      return 'ready';
    case 'ready_to_run':
    case 'running':
    case 'paused':
    case 'applied':
    case 'discarded':
      return null;
  }
}

export interface Attention {
  kind: AttentionKind;
  /** One line: "waits for approval of shell.run", "failed", "2 of 3 checks failed: lint, test". */
  reason: string;
}

/** What a wait for the operator's answer is about, by its kind: a new kind does not compile until it is worded here. */
const WAITS_FOR: Record<ApprovalKind, (tool: string | null) => string> = {
  tool: (tool) => `waits for approval of ${tool ?? 'a tool call'}`,
  plan: () => 'waits for approval of its proposed steps',
  budget: () => 'reached its budget and waits for more',
  input: (tool) => `waits for your answer to ${tool ? `${tool}'s` : "a server's"} question`,
  signin: (server) => `waits for you to sign in to ${server ?? 'an MCP server'}`,
};

/** A wait for the operator's answer, by what is asked: a tool call, a proposed tree, a budget, a server's question. */
export function approvalAttention(kind: ApprovalKind, tool: string | null): Attention {
  return { kind: 'approval', reason: WAITS_FOR[kind](tool) };
}

/**
 * The moment a plan starts to need its operator, read from one event: an approval of any kind is
 * requested, the plan fails, its checks fail, or it becomes ready to apply. Null for every other event.
 */
export function attentionOf(event: StreamEvent): Attention | null {
  switch (event.type) {
    case 'approval_requested': {
      const data = event.data as { kind?: ApprovalKind; tool: string | null };
      return approvalAttention(data.kind ?? 'tool', data.tool);
    }
    case 'state_changed': {
      const data = event.data as { to: string; phase: string };
      if (data.to === 'errored') return { kind: 'failed', reason: 'failed' };
      if (data.phase === 'apply' && data.to === 'queued') return { kind: 'ready', reason: 'is ready to apply' };
      return null;
    }
    case 'checks_complete': {
      const { summary } = event.data as { summary: { total: number; failed: number; failedChecks: string[] } };
      if (summary.failed === 0) return null;
      const names = summary.failedChecks.length > 0 ? `: ${summary.failedChecks.join(', ')}` : '';
      return { kind: 'checksFailed', reason: `${summary.failed} of ${summary.total} checks failed${names}` };
    }
    default:
      return null;
  }
}

/** A notification's one line, Slack- and ntfy-compatible: "add-license waits for approval of shell.run". */
export function attentionText(planName: string, attention: Attention): string {
  return `${planName} ${attention.reason}`;
}
