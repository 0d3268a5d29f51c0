import type { CompareSide, PlanCompare } from '../../../shared/plan-compare';
import { formatDuration } from '../../../shared/vocabulary';
import { actionOption, jsonOption, type Register } from '../options';
import { runCommand } from '../run-command';
import { operator } from '../run-report';

const OPERATION_MARK = { create: 'A', modify: 'M', delete: 'D', rename: 'R' } as const;

/** Two runs side by side: their figures, the files only one changed, and how the results differ where both changed a file. */
export function formatCompare(c: PlanCompare): string {
  const { a, b } = c;
  const tokens = (s: CompareSide) => `${s.inputTokens} in, ${s.outputTokens} out`;
  const rows: [string, (s: CompareSide) => string][] = [
    ['plan', (s) => s.planId],
    ['status', (s) => s.status],
    ['steps done', (s) => `${s.stepsDone} of ${s.steps}`],
    ['tool calls', (s) => String(s.toolCalls)],
    ['tokens', tokens],
    ['cost', (s) => (s.cost === null ? '-' : s.cost.toFixed(4))],
    ['time', (s) => formatDuration(s.durationMs)],
    // The paths listed below: a rename is its old path and its new one.
    ['paths changed', (s) => String((s === a ? c.onlyA : c.onlyB).length + c.both.length)],
  ];
  const width = Math.max(...rows.map(([, f]) => f(a).length));
  const lines = [`compare ${a.planId} (${a.name}) and ${b.planId} (${b.name}) over ${c.projectPath ?? 'no project'}`, ''];
  for (const [label, f] of rows) lines.push(`  ${label.padEnd(14)}${f(a).padEnd(width + 2)}${f(b)}`);
  const fileLine = (s: CompareSide, path: string) => {
    const f = s.files.find((x) => x.path === path || x.oldPath === path);
    return f ? `  ${OPERATION_MARK[f.operation]} ${path}${f.binary ? ' (binary)' : ` (+${f.insertions} -${f.deletions})`}` : `  ${path}`;
  };
  lines.push('', `changed only by ${a.planId}: ${c.onlyA.length === 0 ? 'none' : ''}`, ...c.onlyA.map((p) => fileLine(a, p)));
  lines.push(`changed only by ${b.planId}: ${c.onlyB.length === 0 ? 'none' : ''}`, ...c.onlyB.map((p) => fileLine(b, p)));
  const same = c.both.filter((f) => f.same);
  const differ = c.both.filter((f) => !f.same);
  lines.push(`changed by both, same result: ${same.length === 0 ? 'none' : ''}`, ...same.map((f) => `  ${f.path}`));
  lines.push(`changed by both, different results (a/: ${a.planId}, b/: ${b.planId}): ${differ.length === 0 ? 'none' : ''}`);
  for (const f of differ) lines.push(f.diff === null ? `  ${f.path}: binary files differ` : f.diff.trimEnd());
  return lines.map((l) => l.trimEnd()).join('\n');
}

/** Fork and compare. */
export const planForkCommands = {
  fork: (plan, ctx) =>
    plan
      .command('fork <id>')
      .description('make a new plan that shares the steps before N and goes on from its checkpoint, with another profile, model or steps; prints the new plan id (it is not run)')
      .addOption(actionOption('fork', 'atStep', 'the step the new plan goes on from (numbered as agents plan tree shows them)'))
      .addOption(actionOption('fork', 'profile', 'another automation profile: manual, restricted, supervised, trusted, full-auto, or a profile file', '<name>'))
      .addOption(actionOption('fork', 'model', 'another model (an agent plan)', '<provider:model>'))
      .option('--agent <name>', 'another coding agent over ACP (agents acp list), so two agents\' runs of the same steps can be compared')
      .addOption(actionOption('fork', 'file', 'other steps: a plan file whose definition of done holds the steps from N on (as replan --file takes)', '<plan-file>'))
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: { atStep: number; profile?: string; model?: string; agent?: string; file?: string }) => {
          const { plan: forked, fork } = await (await ctx.app()).service.fork(id, { by: operator(), atStep: opts.atStep, profile: opts.profile, model: opts.model, agent: opts.agent, file: opts.file });
          return { json: { ...forked, fork }, text: forked.id };
        }),
      ),

  compare: (plan, ctx) =>
    plan
      .command('compare <a> <b>')
      .description(`two plans over the same project side by side: the files each changed, the diff between their results where both changed a file, and the steps done, tool calls, tokens, cost and time of each`)
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (a: string, b: string) => {
          const compared = await (await ctx.app()).service.compare(a, b);
          return { json: compared, text: () => formatCompare(compared) };
        }),
      ),
} satisfies Record<string, Register>;


