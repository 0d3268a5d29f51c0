import type { Plan, StrategyDecision } from '../../../shared/domain';
import type { StepUsage } from '../../../shared/agent';
import { parseDefinitionOfDone } from '../run/strategize-actor';

function definitionOfDone(plan: Pick<Plan, 'definitionOfDone'>): string {
  if (typeof plan.definitionOfDone === 'string') return plan.definitionOfDone;
  return parseDefinitionOfDone(plan.definitionOfDone)
    .map((step) => `- ${step.step}`)
    .join('\n');
}

function invariants(plan: Pick<Plan, 'invariants'>, projectInvariants: readonly string[]): string {
  const all = [...projectInvariants, ...plan.invariants];
  return all.length > 0 ? `\nInvariants that must hold after every step:\n${all.map((i) => `- ${i}`).join('\n')}\n` : '';
}

export const STRATEGIZE_SYSTEM = `You plan changes to a software project. You may read the project with file_read, file_list
and file_search; you cannot change anything now. When you know enough, call propose_plan once
with the ordered steps that meet the definition of done. Each step has a description, a rationale
and an acceptance check, with the shell command that checks it as check where one can; it may list
the tool calls you expect it to make. Keep steps small: each
is carried out later by an agent with the tools file.read, file.write, file.edit, file.delete,
file.rename, file.list, file.search and shell.run.`;

/** `review`: what the operator's review declined and edited (review-feedback.ts), for a plan proposed again. */
export function strategizePrompt(plan: Plan, projectInvariants: readonly string[], rejection?: { reason: string; previous: string }, review = ''): string {
  const lines = [
    `Plan: ${plan.name}`,
    plan.description ? `Description: ${plan.description}` : '',
    `Definition of done:\n${definitionOfDone(plan)}`,
    invariants(plan, projectInvariants),
    review,
  ];
  if (rejection) {
    lines.push(`The operator rejected your previous proposal:\n${rejection.previous}\nTheir reason: ${rejection.reason}\nPropose a new plan that addresses it.`);
  }
  return lines.filter(Boolean).join('\n');
}

export const EXECUTE_SYSTEM = `You carry out one step of a plan in a sandbox copy of a project. Use the tools to make the
change; paths are relative to the project root. Check your work (read the file back, or run a
command when the shell is allowed). When the step is done, call finish_step with a short summary.
Do only this step: later steps are done separately.`;

export interface CorrectionContext {
  failure: string;
  note: string | null;
  /** Nothing failed: the operator reviewed the changes and asks for a correction. */
  reviewed?: boolean;
}

export function executePrompt(input: {
  plan: Plan;
  decision: StrategyDecision;
  index: number;
  total: number;
  earlier: readonly StepUsage[];
  steps: readonly StrategyDecision[];
  correction?: CorrectionContext;
  /** What the operator's review declined and edited (review-feedback.ts), already within its budget. */
  review?: string;
  /** The project's AGENTS.md that applies to the step's folder, as instructionsSection makes it. */
  instructions?: string;
}): string {
  const { plan, decision } = input;
  const summaries = new Map(input.earlier.filter((u) => u.summary).map((u) => [u.decisionId, u.summary]));
  const earlier = input.steps
    .filter((s) => s.order < decision.order)
    .map((s) => `- ${s.description}: ${summaries.get(s.id) ?? (s.status === 'done' ? 'done' : s.status)}`);
  const proposed = decision.toolCalls.length > 0 ? `\nProposed tool calls (a suggestion, not an order):\n${decision.toolCalls.map((c) => `- ${c.tool} ${JSON.stringify(c.args)}`).join('\n')}` : '';
  const lines = [
    `Plan: ${plan.name}${plan.description ? ` — ${plan.description}` : ''}`,
    `Definition of done:\n${definitionOfDone(plan)}`,
    invariants(plan, []),
    earlier.length > 0 ? `Earlier steps:\n${earlier.join('\n')}` : '',
    `Your step (${input.index} of ${input.total}): ${decision.description}\nWhy: ${decision.rationale}${proposed}`,
    input.review ?? '',
    input.instructions ?? '',
  ];
  if (input.correction) {
    lines.push(
      (input.correction.reviewed ? 'The operator reviewed what this step changed and asks you to correct it.' : `An earlier attempt at this step failed: ${input.correction.failure}`) +
        (input.correction.note ? `\nThe operator's note: ${input.correction.note}` : '') +
        '\nThe sandbox keeps what the earlier attempt changed. Fix the step.',
    );
  }
  return lines.filter(Boolean).join('\n\n');
}
