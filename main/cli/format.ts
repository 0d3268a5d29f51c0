import { unfinishedRewind } from '../../shared/action-rules';
import { SUBTASK_MARKS, subtaskTally } from '../../shared/subtasks';
import { isRejection } from '../../shared/decision-tree';
import { checksSummaryLine } from '../../shared/checks';
import type { Approval } from '../../shared/approvals';
import type { Confinement, ToolInvocation } from '../../shared/tool-calls';
import type { Plan, StrategyDecision } from '../../shared/domain';
import type { ErrorRecord } from '../../shared/error-records';
import { describePlanAgent } from '../../shared/acp';
import { BudgetAskSchema, type PlanModelView, type Price, usd } from '../../shared/agent';
import { plural, statusLabel } from '../../shared/vocabulary';
import { describeProfile, describeUsage, failuresOf, priceOfPlan } from '../../shared/describe';
import { projectLabel } from '../../shared/git-source';
import { formatNextSteps, nextCommand } from './next-steps';
import { questionLines } from './question-prompt';
import type { DecisionNode } from '../app/plan-service';
import type { RecoveryHint, ReviewFile } from '../../shared/contract';

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
  const named = new Map<string, number>();
  for (const p of plans) named.set(p.name, (named.get(p.name) ?? 0) + 1);
  // Plans of one name are told apart by when they were made and the end of their id.
  const name = (p: Plan) => (named.get(p.name) === 1 ? p.name : `${p.name} (created ${p.createdAt.slice(0, 19).replace('T', ' ')}, …${p.id.slice(-6)})`);
  const rows = plans.map((p) => [p.id, statusLabel(p), age(p.createdAt), name(p)]);
  const header = ['ID', 'STATUS', 'AGE', 'NAME'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

export function formatUsage(usage: Pick<NonNullable<Plan['usage']>, 'inputTokens' | 'outputTokens' | 'cachedInputTokens' | 'costUsd'>, price: Price | null | undefined): string {
  const { tokens, cost } = describeUsage(usage, price);
  return `${tokens}${cost !== null ? ` (cost ${cost})` : ''}`;
}

/** What the operator is asked, by the kind of the approval a plan waits for. */
const WAITING_FOR: Record<Approval['kind'], string> = {
  tool: 'to approve a tool call',
  plan: 'to approve the proposed steps',
  budget: 'to allow a step (or the plan) more of its budget',
  input: "to answer an MCP server's question",
  signin: 'to sign in to an MCP server',
};

export function formatPlan(
  plan: Plan,
  price?: Price | null,
  describe: (decisionId: string) => string | undefined = () => undefined,
  model?: PlanModelView | null,
  waitingKind?: Approval['kind'],
): string {
  const lines = [
    `${plan.name}  (${plan.id})`,
    `  status:     ${statusLabel(plan)}`,
    `  profile:    ${plan.automationProfile.name} (${describeProfile(plan.automationProfile)})`,
    `  project:    ${projectLabel(plan) ?? '(none)'}`,
    `  sandbox:    ${plan.sandboxRefs.join(', ') || '(none yet)'}`,
    `  changeset:  ${plan.changesetId ?? '(none yet)'}`,
    `  created:    ${plan.createdAt}`,
  ];
  if (plan.agent) {
    const at = model?.baseUrl ?? plan.agent.baseUrl;
    lines.push(`  model:      ${model?.model ?? plan.agent.model ?? '(none recorded yet)'}${at ? ` at ${at}` : ''}${model && !model.usable ? ` (not usable here: ${model.problem})` : ''}`);
    lines.push(`  agent:      ${plan.agent.maxTurnsPerStep} turns and ${plan.agent.maxOutputTokens} output tokens per step`);
  }
  // A coding agent over ACP: its name, the version its initialize reported, and its command.
  if (plan.acp) lines.push(`  agent:      ${describePlanAgent(plan.acp)}`);
  const acpBudgets = [plan.acp?.maxOutputTokens ? `${plan.acp.maxOutputTokens} output tokens per step` : '', plan.acp?.maxCostUsd ? `${usd(plan.acp.maxCostUsd)} for the plan` : ''].filter(Boolean);
  if (acpBudgets.length > 0) lines.push(`  budgets:    ${acpBudgets.join(', ')} (as the agent reports them)`);
  if (plan.usage) {
    price = priceOfPlan(plan, price);
    lines.push(`  tokens:     ${formatUsage(plan.usage, price)}`);
    for (const step of plan.usage.steps) {
      const name = step.phase === 'strategize' ? 'strategize' : `"${(step.decisionId && describe(step.decisionId)) ?? step.decisionId}"`;
      lines.push(`    ${name}: ${formatUsage(step, price)}, ${plural(step.turns, 'turn')}`);
    }
  }
  if (plan.description) lines.splice(1, 0, `  ${plan.description}`);
  for (const invariant of plan.invariants) lines.push(`  invariant:  ${invariant}`);
  const project = plan.projectInvariants;
  if (project) {
    for (const glob of project.protect) lines.push(`  protect:    ${glob}  (.agents/invariants.yaml)`);
    for (const glob of project.denyCommands) lines.push(`  deny:       ${glob}  (.agents/invariants.yaml)`);
    for (const glob of project.allowCommands ?? []) lines.push(`  allow:      ${glob}  (.agents/invariants.yaml)`);
    for (const note of project.notes) lines.push(`  note:       ${note}  (.agents/invariants.yaml)`);
  }
  if (plan.checks) lines.push(`  checks:     ${checksSummaryLine(plan.checks).slice('Checks: '.length)}  (agents plan checks ${plan.id})`);
  if (plan.lastRewind) {
    const { toStep, by, at, recovered } = plan.lastRewind;
    lines.push(`  rewound:    to before step ${toStep} by ${by} at ${at}${recovered ? ' (completed after an interruption)' : ''}`);
  }
  const unfinished = unfinishedRewind(plan);
  if (unfinished !== null) {
    lines.push(`  rewind:     unfinished: ${plan.errorMessage ?? `to before step ${unfinished}`}`, `  next:       agents plan rewind ${plan.id} --to-step ${unfinished} to finish it, or agents plan discard ${plan.id}`);
  }
  if (plan.forkedFrom) {
    const { planId, atStep, by, at } = plan.forkedFrom;
    lines.push(`  forked:     from plan ${planId} at step ${atStep} by ${by} at ${at} (steps 1 to ${atStep - 1} shared)`);
  }
  for (const fork of plan.forks ?? []) lines.push(`  fork:       plan ${fork.planId} at step ${fork.atStep} by ${fork.by} at ${fork.at}`);
  if (plan.waitingFor === 'approval') {
    lines.push(`  waiting:    for the operator ${WAITING_FOR[waitingKind ?? 'tool']}`, `  next:       agents plan approvals ${plan.id}`);
  }
  // Only an errored plan has a current error; an earlier one stays in errorDetails.history and plan errors. An unfinished rewind's is said above.
  if (plan.processingState === 'errored' && unfinished === null) {
    if (plan.errorMessage) lines.push(`  error:      ${plan.errorMessage}`);
    if (typeof plan.errorDetails.hint === 'string') lines.push(`  hint:       ${plan.errorDetails.hint}`);
    const next = nextCommand(plan.id, plan.errorDetails.next);
    if (next) lines.push(`  next:       ${next}`);
  }
  return lines.join('\n');
}

const SHELL_CONFINEMENT: Record<Confinement, string> = {
  'bwrap-nobody': 'confined by bwrap as nobody',
  bwrap: 'confined by bwrap',
  'sandbox-exec': 'confined by sandbox-exec',
  none: 'unconfined',
};

/** Tool calls that ran commands, by decision: how each was confined, so the tree says what ran where. */
function confinementsByDecision(invocations: readonly ToolInvocation[]): Map<string, Confinement[]> {
  const byDecision = new Map<string, Confinement[]>();
  for (const invocation of invocations) {
    if (!invocation.confinement || invocation.decisionId === null) continue;
    const list = byDecision.get(invocation.decisionId) ?? [];
    if (!list.includes(invocation.confinement)) list.push(invocation.confinement);
    byDecision.set(invocation.decisionId, list);
  }
  return byDecision;
}

/** Per decision: each shell command a rule refused, or that waited for the operator because no rule could check it. */
function commandRulesByDecision(invocations: readonly ToolInvocation[], approvals: readonly Approval[]): Map<string, string[]> {
  const byDecision = new Map<string, string[]>();
  const add = (decisionId: string | null, line: string) => {
    if (decisionId !== null) byDecision.set(decisionId, [...(byDecision.get(decisionId) ?? []), line]);
  };
  for (const { decisionId, error } of invocations) {
    if (error?.commandRule) add(decisionId, `refused: "${error.commandRule.command}" (${error.commandRule.rule})`);
  }
  for (const { decisionId, commandRule, status } of approvals) {
    if (commandRule) add(decisionId, `approval ${status === 'pending' ? 'needed' : status}: "${commandRule.command}" (${commandRule.rule})`);
  }
  return byDecision;
}

export function formatTree(root: DecisionNode | null, invocations: readonly ToolInvocation[] = [], approvals: readonly Approval[] = []): string {
  if (!root) return 'No decision tree yet: run the plan to strategize it.';
  const confinements = confinementsByDecision(invocations);
  const commandRules = commandRulesByDecision(invocations, approvals);
  const lines: string[] = [];
  const walk = (node: DecisionNode, prefix: string, last: boolean, isRoot: boolean) => {
    const branch = isRoot ? '' : last ? '└─ ' : '├─ ';
    const kind = node.type === 'error_recovery' ? '[recovery] ' : node.type === 'approval' ? '[approval] ' : '';
    const tools = node.toolCalls.length > 0 ? `  (${node.toolCalls.map((t) => t.tool).join(', ')})` : '';
    const ran = confinements.get(node.id);
    const confined = ran ? `  [shell: ${ran.map((c) => SHELL_CONFINEMENT[c]).join(', ')}]` : '';
    // An answer is marked by what it answered: a rejection is no failed step, but no check mark either.
    const mark = isRejection(node) ? '✕' : (STATUS_MARK[node.status] ?? '?');
    lines.push(`${prefix}${branch}${mark} ${kind}${node.description}${tools}${confined}`);
    const below = `${prefix}${isRoot ? '' : last ? '   ' : '│  '}   `;
    if (node.type === 'error_recovery' || node.type === 'approval') lines.push(`${below}${node.rationale}`);
    for (const line of commandRules.get(node.id) ?? []) lines.push(`${below}${line}`);
    // A coding agent's sub-tasks for the step, as its last plan update listed them.
    if (node.subtasks?.length) {
      lines.push(`${below}sub-tasks ${subtaskTally(node.subtasks)}:`);
      for (const task of node.subtasks) lines.push(`${below}  ${SUBTASK_MARKS[task.status]} ${task.content}${task.status === 'in_progress' ? ' (in progress)' : ''}${task.priority === 'high' ? ' [high]' : ''}`);
    }
    const childPrefix = isRoot ? '' : prefix + (last ? '   ' : '│  ');
    node.children.forEach((child, i) => walk(child, childPrefix, i === node.children.length - 1, false));
  };
  walk(root, '', true, true);
  return lines.join('\n');
}

const REVIEW_STATE: Record<ReviewFile['state'], string> = { applied: 'applied', partial: 'partly applied', remaining: 'not applied yet' };

/**
 * The changeset file by file, as applied so far: each file's state, and each hunk header marked
 * with its number and whether it is applied (`--hunks FILE:N` picks hunk N).
 */
export function formatReview(files: { file: Omit<ReviewFile, 'steps'>; diff: string | null }[]): string {
  if (files.length === 0) return 'No changes.';
  const applied = files.filter((f) => f.file.state === 'applied').length;
  const left = files.length - applied;
  const head = `${plural(files.length, 'file')} changed: ${applied} applied, ${left} remaining`;
  const sections = files.map(({ file, diff }) => {
    const mode = file.modeChange ? `  mode ${file.modeChange.from} \u2192 ${file.modeChange.to}` : '';
    const title = `${file.operation.toUpperCase()} ${file.oldPath ? `${file.oldPath} -> ` : ''}${file.path}${mode}  [${REVIEW_STATE[file.state]}]${file.editedByOperator ? '  Edited by you' : ''}`;
    if (diff === null) return `${title}\n  (binary file, no text diff)`;
    let hunk = 0;
    const body = diff
      .split('\n')
      .map((line) => {
        if (!line.startsWith('@@ ')) return line;
        hunk += 1;
        const done = file.appliedHunks.includes(hunk);
        return `${line} hunk ${hunk} of ${file.hunks.length}: ${done ? 'applied' : 'remaining'}`;
      })
      .join('\n');
    return `${title}\n${body}`;
  });
  return [head, '', ...sections].join('\n');
}

/** `README.md:1,3` -> ['README.md', [1, 3]]; the last colon separates the path from the hunk numbers. */
export function parseHunkSpec(spec: string): [string, number[]] | null {
  const at = spec.lastIndexOf(':');
  if (at <= 0) return null;
  const numbers = spec.slice(at + 1).split(',').map((n) => n.trim());
  if (numbers.some((n) => !/^[1-9]\d*$/.test(n))) return null;
  return [spec.slice(0, at), numbers.map(Number)];
}

/**
 * Per failure (the attempts at one step, or at one phase before any step): its category, each
 * attempt with its time, the tree's recovery decisions for it, and what to do now.
 */
export function formatErrors(errors: ErrorRecord[], recoveries: StrategyDecision[], hints: RecoveryHint[]): string {
  // A rewind is history of its own, failure or not: what it put back and which changes it made history.
  const rewinds = recoveries.filter((d) => REWIND.test(d.description)).map((d) => `[rewind] ${d.description}: ${d.rationale}`);
  if (errors.length === 0) return rewinds.length > 0 ? ['No errors recorded.', ...rewinds].join('\n') : 'No errors recorded.';
  const failures = failuresOf(errors);
  const lines: string[] = [];
  failures.forEach((attempts, index) => {
    const first = attempts[0];
    const lastAttempt = attempts.at(-1) as ErrorRecord;
    lines.push(`failure ${index + 1}: ${first.category}${first.retriable ? ' (retriable)' : ''} in ${first.phase}, ${lastAttempt.outcome === 'gave_up' ? 'gave up' : 'retried'}`);
    for (const e of attempts) lines.push(`  attempt ${e.attempt}  ${e.createdAt}  ${e.message}`);
    lines.push(`  hint: ${lastAttempt.hint}`);
    // This failure's decisions: from its first attempt until the step's next failure.
    const next = failures.slice(index + 1).find((f) => f[0].decisionId === first.decisionId)?.[0].createdAt;
    const decided = recoveries.filter((d) => !REWIND.test(d.description) && d.parentId === first.decisionId && d.createdAt >= first.createdAt && (next === undefined || d.createdAt < next));
    for (const d of decided) lines.push(`  [recovery] ${d.rationale.startsWith(d.description) ? d.rationale : `${d.description}: ${d.rationale}`}`);
  });
  lines.push(...rewinds);
  if (hints.length > 0) {
    lines.push('', 'What to do now:', ...formatNextSteps(errors[0].planId, hints));
  }
  return lines.join('\n');
}

/** The description of a rewind's decision (main/app/use-cases/checkpoints.ts). */
const REWIND = /^Rewound to before step \d+/;

/** One call that waits for the operator: the tool, its arguments, the step, and the diff it would make. */
export function formatApproval(approval: Approval): string {
  if (approval.kind === 'plan') {
    return [`${approval.description}; approve to execute ${/ 1 step$/.test(approval.description) ? 'it' : 'them'}, or reject with a reason for a new proposal:`, approval.rationale.replace(/^/gm, '  ')].join('\n');
  }
  if (approval.kind === 'signin') return approval.rationale;
  if (approval.kind === 'budget') return `${approval.rationale} Approve to go on in the same conversation, or reject to fail the step.`;
  if (approval.kind === 'input' && approval.elicitation) {
    const expires = approval.status === 'pending' && approval.expiresAt ? [`  unanswered, it is cancelled at ${approval.expiresAt}`] : [];
    return [...questionLines(approval.elicitation), `  (during ${approval.tool ?? 'a call'} in step "${approval.description}")`, ...expires].join('\n');
  }
  const args = approval.tool === 'shell.run' && typeof approval.args.command === 'string' ? `$ ${approval.args.command}` : JSON.stringify(approval.args);
  const lines = [`${approval.tool ?? approval.kind} wants to run in step "${approval.description}"`, `  ${args}`];
  if (approval.mcp) {
    const { server, tool, description, readOnly } = approval.mcp;
    lines.push(`  MCP server ${server}, tool ${tool}${readOnly ? ' (marked read-only by its server)' : ''}${description ? `: ${description.split('\n')[0].slice(0, 200)}` : ''}`);
  }
  if (approval.rationale) lines.push(`  why: ${approval.rationale}`);
  if (approval.commandRule) lines.push(`  asks because: "${approval.commandRule.command}" (${approval.commandRule.rule})`);
  if (approval.diff) lines.push(approval.diff.trimEnd());
  return lines.join('\n');
}

export function formatApprovals(pending: Approval | null, approvals: Approval[]): string {
  const answered = approvals.filter((a) => a.status !== 'pending');
  const lines = pending ? ['Waiting for approval:', formatApproval(pending)] : ['Nothing waits for approval.'];
  if (answered.length > 0) {
    lines.push('', 'Answered:');
    for (const a of answered) {
      lines.push(`  ${a.answeredAt ?? ''}  ${a.cancelled ? 'cancelled' : a.status}${a.scope === 'all' ? ' (all calls)' : ''}  ${a.kind === 'input' ? `answer to ${a.elicitation?.server ?? 'a server'}'s question${a.status === 'approved' ? ` ${JSON.stringify(a.args)}` : ''}` : a.tool ?? (a.kind === 'budget' ? `more for ${BudgetAskSchema.parse(a.args).limit === 'costUsd' ? 'the plan' : 'a step'}` : 'the proposed tree')}  by ${a.answeredBy ?? '?'}${a.reason ? `: ${a.reason}` : ''}`);
    }
  }
  return lines.join('\n');
}
