import { Option } from 'commander';
import { comparePlansForList } from '../../../shared/plan-order';
import { PLAN_STATUSES, planStatus, statusLabel } from '../../../shared/vocabulary';
import { writeDiffJson } from '../diff-json';
import { formatApprovals, formatErrors, formatPlan, formatPlanList, formatReview, formatTree } from '../format';
import { jsonOption, type Register } from '../options';
import { runCommand } from '../run-command';
import { errorsWithCommands, planWithCommand } from '../next-steps';

/** The commands that read a plan and change nothing. */
export const planReadCommands = {
  list: (plan, ctx) =>
    plan
      .command('list')
      .description('list plans: those that need attention first, then newest first')
      .addOption(new Option('--state <status>', `only plans with this status: ${PLAN_STATUSES.join(', ')} (or a processing state)`))
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (opts: { state?: string }) => {
          const plans = (await (await ctx.app()).service.list())
            .filter((p) => !opts.state || planStatus(p) === opts.state || p.processingState === opts.state)
            .sort(comparePlansForList);
          return { json: { plans: plans.map(planWithCommand) }, text: () => formatPlanList(plans) };
        }),
      ),

  show: (plan, ctx) =>
    plan
      .command('show <id>')
      .description("show a plan's status, model, sandbox, changeset and last error")
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: { json?: boolean }) => {
          const service = (await ctx.app()).service;
          // Checks whose sandbox was edited by hand since they ran read stale.
          let p = await service.get(id);
          if (p.checks) p = await service.noticeSandboxEdits(id);
          // sandboxPath: where the operator fixes a file by hand before a retry; model: the plan's own, and whether this process can use it.
          const model = service.planModel(p);
          // actions: what the plan allows now and, if not, why: the rules the engine enforces.
          if (opts.json) return { json: { ...planWithCommand(p), status: statusLabel(p), sandboxPath: p.sandboxRefs[0] ?? null, ...(model ? { model } : {}), actions: await service.actions(id) } };
          const descriptions = new Map((await service.decisions(id)).map((d) => [d.id, d.description]));
          const waiting = p.waitingFor === 'approval' ? (await service.approvals(id)).pending?.kind : undefined;
          return { text: formatPlan(p, service.settingsView().price, (decisionId) => descriptions.get(decisionId), model, waiting) };
        }),
      ),

  tree: (plan, ctx) =>
    plan
      .command('tree <id>')
      .description("show the decision tree, with each decision's status and recovery decisions")
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string) => {
          const service = (await ctx.app()).service;
          const root = await service.tree(id);
          const invocations = await service.invocations(id);
          const { approvals } = await service.approvals(id);
          const ran = invocations.map(({ id: invocationId, decisionId, tool, ok, confinement, error }) => ({
            id: invocationId,
            decisionId,
            tool,
            ok,
            confinement: confinement ?? null,
            commandRule: error?.commandRule ?? null,
          }));
          const asked = approvals.filter((a) => a.commandRule).map(({ id: approvalId, decisionId, status, commandRule }) => ({ id: approvalId, decisionId, status, commandRule }));
          return { json: { planId: id, root, invocations: ran, commandApprovals: asked }, text: () => formatTree(root, invocations, approvals) };
        }),
      ),

  diff: (plan, ctx) =>
    plan
      .command('diff <id>')
      .description('show each changed file (netted across steps) with its diff, and what is applied and what remains')
      .option('--patch', 'print the whole changeset as one patch for git apply')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: { json?: boolean; patch?: boolean }) => {
          const service = (await ctx.app()).service;
          if (opts.patch) ctx.io.stdout(await service.patch(id));
          // Streamed as it is read: a changeset may be larger than memory.
          else if (opts.json) await writeDiffJson(service, id, { write: ctx.io.stdout, drained: ctx.io.stdoutDrained });
          else return { text: formatReview(await service.reviewWithDiffs(id)) };
        }),
      ),

  errors: (plan, ctx) =>
    plan
      .command('errors <id>')
      .description('show the error history and what to do next')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string) => {
          const result = await (await ctx.app()).service.errors(id);
          return { json: errorsWithCommands(result), text: () => formatErrors(result.errors, result.recoveryDecisions, result.recoveryHints) };
        }),
      ),

  approvals: (plan, ctx) =>
    plan
      .command('approvals <id>')
      .description('show the call the plan waits for, and every earlier answer')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string) => {
          const result = await (await ctx.app()).service.approvals(id);
          return { json: result, text: () => formatApprovals(result.pending, result.approvals) };
        }),
      ),
} satisfies Record<string, Register>;
