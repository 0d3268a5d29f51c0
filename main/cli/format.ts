import type { ErrorRecord, Plan } from '../../shared/domain';
import type { StreamEvent } from '../../shared/events';
import type { DecisionNode, DiffEntry } from '../app/plan-service';
import type { RecoveryHint } from '../../shared/contract';

const STATUS_MARK: Record<string, string> = { pending: '·', running: '▶', done: '✓', failed: '✗', skipped: '–' };

export function age(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

export function formatPlanList(plans: Plan[]): string {
  if (plans.length === 0) return 'No plans yet. Create one with: agents plan create <plan-file>';
  const rows = plans.map((p) => [p.id, p.phase, p.processingState, age(p.createdAt), p.name]);
  const header = ['ID', 'PHASE', 'STATE', 'AGE', 'NAME'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

export function formatPlan(plan: Plan): string {
  const lines = [
    `${plan.name}  (${plan.id})`,
    `  phase:      ${plan.phase}`,
    `  state:      ${plan.processingState}`,
    `  profile:    ${plan.automationProfile.name} (auto-retry ${plan.automationProfile.autoRetryTransient}, shell ${plan.automationProfile.allowShell ? 'allowed' : 'denied'})`,
    `  project:    ${plan.projectPath ?? '(none)'}`,
    `  sandbox:    ${plan.sandboxRefs.join(', ') || '(none yet)'}`,
    `  changeset:  ${plan.changesetId ?? '(none yet)'}`,
    `  created:    ${plan.createdAt}`,
  ];
  if (plan.description) lines.splice(1, 0, `  ${plan.description}`);
  if (plan.errorMessage) lines.push(`  error:      ${plan.errorMessage}`);
  if (typeof plan.errorDetails.hint === 'string') lines.push(`  hint:       ${plan.errorDetails.hint}`);
  if (typeof plan.errorDetails.recoveryCommand === 'string') lines.push(`  next:       ${plan.errorDetails.recoveryCommand}`);
  return lines.join('\n');
}

export function formatTree(root: DecisionNode | null): string {
  if (!root) return 'No decision tree yet: run the plan to strategize it.';
  const lines: string[] = [];
  const walk = (node: DecisionNode, prefix: string, last: boolean, isRoot: boolean) => {
    const branch = isRoot ? '' : last ? '└─ ' : '├─ ';
    const kind = node.type === 'error_recovery' ? '[recovery] ' : '';
    const tools = node.toolCalls.length > 0 ? `  (${node.toolCalls.map((t) => t.tool).join(', ')})` : '';
    lines.push(`${prefix}${branch}${STATUS_MARK[node.status] ?? '?'} ${kind}${node.description}${tools}`);
    if (node.type === 'error_recovery') lines.push(`${prefix}${isRoot ? '' : last ? '   ' : '│  '}   ${node.rationale}`);
    const childPrefix = isRoot ? '' : prefix + (last ? '   ' : '│  ');
    node.children.forEach((child, i) => walk(child, childPrefix, i === node.children.length - 1, false));
  };
  walk(root, '', true, true);
  return lines.join('\n');
}

export function formatDiff(entries: DiffEntry[]): string {
  if (entries.length === 0) return 'No changes.';
  return entries
    .map((e) => {
      const title = `${e.operation.toUpperCase()} ${e.oldPath ? `${e.oldPath} -> ` : ''}${e.path}`;
      return e.binary ? `${title}\n  (binary file, no text diff)` : `${title}\n${e.diff ?? ''}`;
    })
    .join('\n');
}

export function formatErrors(errors: ErrorRecord[], hints: RecoveryHint[]): string {
  if (errors.length === 0) return 'No errors recorded.';
  const lines = errors.map(
    (e) => `${e.createdAt}  ${e.phase}  attempt ${e.attempt}  ${e.category}${e.retriable ? ' (retriable)' : ''}  ${e.outcome}\n    ${e.message}`,
  );
  if (hints.length > 0) {
    lines.push('', 'What to do:');
    for (const hint of hints) lines.push(`  ${hint.message}\n    $ ${hint.command}`);
  }
  return lines.join('\n');
}

function summarize(data: Record<string, unknown>): string {
  const step = typeof data.index === 'number' && typeof data.total === 'number' ? `step ${data.index}/${data.total} ` : '';
  return step + summarizeFields(data);
}

function summarizeFields(data: Record<string, unknown>): string {
  const pick = ['phase', 'from', 'to', 'description', 'tool', 'path', 'operation', 'status', 'ok', 'reason', 'message', 'error', 'delayMs', 'attempt', 'category'];
  return pick
    .filter((k) => data[k] !== undefined && data[k] !== null)
    .map((k) => `${k}=${typeof data[k] === 'object' ? JSON.stringify(data[k]) : String(data[k])}`)
    .join(' ');
}

export function formatEvent(event: StreamEvent): string {
  const time = event.ts.slice(11, 19);
  return `${String(event.seq).padStart(4)} ${time} ${event.type.padEnd(24)} ${summarize(event.data)}`.trimEnd();
}
