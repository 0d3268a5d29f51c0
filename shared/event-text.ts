import type { ChangeOperation } from './changes';
import type { StreamEvent } from './events';
import { checksSummaryLine } from './checks';
import { subtaskTally } from './subtasks';
import { formatDuration, plural, statusLabel } from './vocabulary';

export type EventTone = 'info' | 'progress' | 'good' | 'warn' | 'bad';

const CHANGED: Record<ChangeOperation, string> = { create: 'created', modify: 'changed', delete: 'deleted', rename: 'renamed' };

/** What a tool call works on, in a few words: its path, or the command it runs. */
function target(args: Record<string, unknown>): string {
  if (typeof args.command === 'string') return ` $ ${args.command}`;
  if (typeof args.from === 'string' && typeof args.to === 'string') return ` ${args.from} → ${args.to}`;
  if (typeof args.path === 'string') return ` ${args.path}`;
  if (typeof args.pattern === 'string') return ` ${args.pattern}`;
  return '';
}

/**
 * One readable line per event, the same in the console's event log and `agents plan run --stream`.
 * `describe` names decisions by their description.
 */
export function eventText(event: StreamEvent, describe: (decisionId: string) => string | undefined): { text: string; tone: EventTone } {
  const step = (decisionId: string | null) => (decisionId === null ? '' : (describe(decisionId) ?? decisionId));
  switch (event.type) {
    case 'plan_created':
      return { text: `created ${event.data.name}`, tone: 'info' };
    case 'state_changed': {
      const { to, phase, fromPhase, category, waitingFor } = event.data;
      // Between strategize and execute the plan is not ready for the operator to run: the run goes on, or its tree waits for approval.
      if (fromPhase === 'strategize' && to === 'queued') return { text: 'strategize done', tone: 'info' };
      return {
        text: statusLabel({ phase, processingState: to, errorDetails: { category }, waitingFor: waitingFor ?? null }),
        tone: to === 'errored' ? 'bad' : to === 'complete' ? 'good' : to === 'paused' ? 'warn' : 'info',
      };
    }
    case 'decision_status': {
      const { decisionId, status } = event.data;
      return { text: `${step(decisionId)}: ${status}`, tone: status === 'failed' ? 'bad' : status === 'done' ? 'good' : 'progress' };
    }
    case 'tool_call_started':
      return { text: `${event.data.tool}${target(event.data.args)}`, tone: 'progress' };
    case 'tool_call_finished': {
      const { tool, ok, durationMs, error } = event.data;
      return { text: `${tool} ${ok ? 'ok' : `failed${error?.message ? `: ${error.message}` : ''}`} in ${formatDuration(durationMs)}`, tone: ok ? 'good' : 'bad' };
    }
    case 'tool_progress': {
      const { tool, progress, total, message } = event.data;
      const of = total ? `/${total} (${Math.round((100 * progress) / total)}%)` : '';
      return { text: `${tool}: progress ${progress}${of}${message ? `: ${message}` : ''}`, tone: 'progress' };
    }
    case 'tool_log': {
      const { server, level, logger, text } = event.data;
      return { text: `${server} ${level}${logger ? ` (${logger})` : ''}: ${text}`, tone: /^(error|critical|alert|emergency)$/.test(level) ? 'bad' : level === 'warning' ? 'warn' : 'info' };
    }
    case 'change_recorded': {
      const { operation, path, oldPath, insertions, deletions, binary } = event.data.entry;
      const lines = binary ? ' (binary)' : ` (+${insertions} −${deletions})`;
      return { text: `${CHANGED[operation]} ${oldPath ? `${oldPath} → ` : ''}${path}${lines}`, tone: 'info' };
    }
    case 'error_recorded':
      return { text: `${event.data.category} error, attempt ${event.data.attempt}: ${event.data.message}`, tone: 'bad' };
    case 'retry_scheduled':
      // `attempt` is the attempt about to start: number attempts as the failure card does.
      return { text: `attempt ${event.data.attempt - 1} failed; attempt ${event.data.attempt} in ${formatDuration(event.data.delayMs)}: ${event.data.error}`, tone: 'warn' };
    case 'paused': {
      const { reason, index, total, description } = event.data;
      return { text: `paused (${reason}) before step ${index} of ${total}: ${description}`, tone: 'warn' };
    }
    case 'apply_complete': {
      const { ok, applied, conflicts } = event.data;
      return { text: ok ? `applied ${plural(applied.length, 'file')}` : `apply stopped by ${plural(conflicts.length, 'conflict')}`, tone: ok ? 'good' : 'bad' };
    }
    case 'strategize_started':
      return { text: 'strategizing', tone: 'info' };
    case 'strategize_decisions':
      return { text: `${plural(event.data.decisionCount, 'decision')} proposed`, tone: 'info' };
    case 'strategize_complete':
      return { text: 'decision tree complete', tone: 'good' };
    case 'execute_step':
    case 'runtime_execute_step':
      return { text: `step ${event.data.index} of ${event.data.total}: ${event.data.description}`, tone: 'progress' };
    case 'execute_started':
    case 'runtime_execute_started':
      return { text: `${plural(event.data.decisionCount, 'step')} to run`, tone: 'info' };
    case 'execute_complete':
      return { text: `${plural(event.data.toolCallsCount, 'tool call')} run`, tone: 'good' };
    case 'runtime_execute_complete':
      return { text: `${plural(event.data.toolCallCount, 'tool call')} in ${formatDuration(event.data.executionDurationMs)}`, tone: 'good' };
    case 'model_output':
      return { text: `model: ${event.data.text}`, tone: 'info' };
    case 'step_subtasks': {
      const { decisionId, entries } = event.data;
      const now = entries.find((e) => e.status === 'in_progress');
      return { text: `${step(decisionId)}: sub-tasks ${subtaskTally(entries)} done${now ? `, now: ${now.content}` : ''}`, tone: 'progress' };
    }
    case 'model_usage': {
      const d = event.data;
      if (d.error) return { text: `model call failed (${d.error.type}): ${d.error.message}`, tone: 'warn' };
      const cached = d.cachedInputTokens ? ` (${d.cachedInputTokens} cached)` : '';
      return { text: `${d.inputTokens} tokens in${cached}, ${d.outputTokens} out (plan: ${d.planInputTokens} in, ${d.planOutputTokens} out)`, tone: 'info' };
    }
    case 'context_folded': {
      const d = event.data;
      const what = [d.resultsCut ? `${plural(d.resultsCut, 'tool result')} cut to one line` : '', d.turnsFolded ? `${plural(d.turnsFolded, 'turn')} folded into a summary` : '']
        .filter(Boolean)
        .join(', ');
      return { text: `context kept within ${d.contextTokens} tokens: ${what} (about ${d.beforeTokens} -> ${d.afterTokens})`, tone: 'info' };
    }
    case 'approval_requested':
      if (event.data.kind === 'budget') return { text: `${step(event.data.decisionId)} ran out of its budget and asks for more`, tone: 'warn' };
      if (event.data.kind === 'plan') return { text: `${event.data.description}, waiting for the operator's approval`, tone: 'warn' };
      return { text: `${event.data.tool ?? 'the plan'} waits for approval (${step(event.data.decisionId)})`, tone: 'warn' };
    case 'approval_resolved': {
      const { tool, approved, answeredBy, host, reason } = event.data;
      return { text: `${tool ?? 'the plan'} ${approved ? 'approved' : 'rejected'} by ${answeredBy}${host ? ` on ${host}` : ''}${reason ? `: ${reason}` : ''}`, tone: approved ? 'good' : 'bad' };
    }
    case 'recovery_applied':
      return { text: `${event.data.action.replaceAll('_', ' ')}: ${event.data.description}`, tone: 'info' };
    case 'check_started': {
      const { index, total, name, run, decisionId } = event.data;
      return { text: `check ${index} of ${total}: ${name}${name === run ? '' : ` $ ${run}`}${decisionId ? ` (${step(decisionId)})` : ''}`, tone: 'progress' };
    }
    case 'check_output':
      return { text: `${event.data.name}: ${event.data.text.replace(/\n$/, '')}`, tone: 'info' };
    case 'check_finished': {
      const { name, passed, exitCode, timedOut, timeoutSeconds, refused, durationMs } = event.data;
      if (refused !== null) return { text: `check ${name} refused: ${refused}`, tone: 'bad' };
      if (timedOut) return { text: `check ${name} failed: ran past its time limit of ${timeoutSeconds} s`, tone: 'bad' };
      return { text: `check ${name} ${passed ? 'passed' : `failed (exit ${exitCode ?? '?'})`} in ${formatDuration(durationMs)}`, tone: passed ? 'good' : 'bad' };
    }
    case 'checks_complete':
      return { text: checksSummaryLine(event.data.summary), tone: event.data.summary.failed > 0 ? 'bad' : event.data.summary.notChecked > 0 ? 'warn' : 'good' };
    case 'checks_stale':
      return { text: `checks stale: ${event.data.reason}`, tone: 'warn' };
    case 'checkpoint_created':
      return { text: `checkpoint before step ${event.data.step}: ${plural(event.data.filesChanged, 'file')} changed since the previous one`, tone: 'info' };
    case 'plan_rewound': {
      const { toStep, by, files, recovered } = event.data;
      return { text: `rewound to before step ${toStep} by ${by}: ${plural(files, 'file')} put back${recovered ? ' (completed after an interruption)' : ''}`, tone: 'warn' };
    }
    case 'plan_forked': {
      const { forkId, from, atStep, by, sharedSteps } = event.data;
      return { text: `plan ${forkId} forked from plan ${from} at step ${atStep} by ${by}: ${plural(sharedSteps, 'step')} shared`, tone: 'info' };
    }
    case 'sandbox_remade': {
      const { sandboxRoot, base, baseCommit, files, drift, checkpointStep, git, ownGit } = event.data;
      const baseText = base === 'git' ? `commit ${baseCommit?.slice(0, 12) ?? '?'}` : base === 'project' ? 'the project' : 'an empty folder (the project is not on this machine)';
      const from = checkpointStep ? `the checkpoint before step ${checkpointStep} and ${plural(files, 'file')} changed after it` : `${baseText} and ${plural(files, 'changed file')}`;
      const moved = drift.length > 0 ? `; the base differs from the first sandbox's at ${drift.slice(0, 5).join(', ')}${drift.length > 5 ? ` and ${drift.length - 5} more` : ''}` : '';
      // The one line that says the sandbox's own git history did not come along.
      const history =
        git === 'base'
          ? `; its .git is ${base === 'git' ? `the clone at ${baseText}` : "the project's"}, not the first sandbox's (commits made there are not carried)`
          : ownGit
            ? '; the .git made in the first sandbox is not carried (it has none)'
            : '';
      return { text: `sandbox remade at ${sandboxRoot} from ${from}${moved}${history}`, tone: drift.length > 0 ? 'warn' : 'info' };
    }
  }
}
