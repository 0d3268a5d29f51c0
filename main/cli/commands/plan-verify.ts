import type { PlanChecksView } from '../../../shared/checks';
import { checksSummaryLine } from '../../../shared/checks';
import { formatDuration } from '../../../shared/vocabulary';
import { jsonOption, type Register, streamOption } from '../options';
import { runCommand } from '../run-command';
import { runAndReport } from '../run-report';

/** `agents plan checks`: the summary, each criterion's verdict with its evidence, and each check's result. */
export function formatChecks(view: PlanChecksView): string {
  if (view.checks.length === 0 && view.criteria.every((c) => c.verdict === 'not checked')) {
    return `${view.criteria.length > 0 ? `${view.criteria.length} criteria, ` : ''}no checks: add verify: to the plan file, or check: to a step (README.md, "Verify")`;
  }
  const lines = [view.summary ? checksSummaryLine(view.summary) : 'Checks: not run yet'];
  const kind = { done: 'done', acceptance: 'step', check: 'check' } as const;
  lines.push('', 'criteria:');
  for (const c of view.criteria) {
    const evidence = c.evidence.length > 0 ? `  (${c.evidence.map((e) => `${e.name}: ${e.passed ? 'passed' : 'failed'}`).join(', ')})` : '';
    lines.push(`  ${c.verdict.padEnd(11)} ${kind[c.kind]} ${c.index}: ${c.text}${evidence}`);
  }
  if (view.results.length > 0) lines.push('', 'results:');
  for (const r of view.results) {
    const how = r.refused !== null ? `refused: ${r.refused}` : r.timedOut ? `ran past its time limit of ${r.timeoutSeconds} s` : `exit ${r.exitCode}`;
    lines.push(`  ${r.passed ? 'passed' : 'failed'}  ${r.name}${r.name === r.run ? '' : ` ($ ${r.run})`}: ${how}, ${formatDuration(r.durationMs)}${r.confinement ? `, confined by ${r.confinement}` : ''}`);
    if (!r.passed && r.outputTail.trim()) lines.push(...r.outputTail.trimEnd().split('\n').slice(-10).map((l) => `      | ${l}`));
    if (r.outputPath) lines.push(`      output: ${r.outputPath}`);
  }
  return lines.join('\n');
}

/** The commands of verify before apply: read the verdicts, run the checks again. */
export const planVerifyCommands = {
  checks: (plan, ctx) =>
    plan
      .command('checks <id>')
      .description("show the plan's checks: each criterion's verdict (passed, failed, not checked) with its evidence, and each check's result")
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string) => {
          const view = await (await ctx.app()).service.checks(id);
          return { json: view, text: () => formatChecks(view) };
        }),
      ),

  verify: (plan, ctx) =>
    plan
      .command('verify <id>')
      .description("run the plan's checks again in its sandbox (a plan ready to apply, or whose checks failed)")
      .addOption(streamOption())
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: { stream?: boolean; json?: boolean }) => {
          await runAndReport(ctx, id, opts, async (onEvent) => (await ctx.app()).service.verify(id, { streamCallback: onEvent }));
        }),
      ),
} satisfies Record<string, Register>;
