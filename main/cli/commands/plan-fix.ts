import type { Plan } from '../../../shared/domain';
import { statusLabel } from '../../../shared/vocabulary';
import { actionOption, jsonOption, type Register } from '../options';
import { type Ctx, type Output, runCommand } from '../run-command';
import { operator } from '../run-report';
import { planWithCommand } from '../next-steps';

/** What a change to a stopped plan prints: what was done, and how to go on when the plan can run again. */
function recovered(ctx: Ctx, p: Plan, what: string): Output {
  return {
    json: planWithCommand(p),
    print: () => {
      ctx.io.stdout(`${what}; ${p.id} is ${statusLabel(p)}\n`);
      if (p.processingState === 'queued') ctx.io.stderr(`go on with: agents plan run ${p.id}\n`);
    },
  };
}

/** The commands that change a stopped plan in place, before it runs on. */
export const planFixCommands = {
  skip: (plan, ctx) =>
    plan
      .command('skip <id>')
      .description('mark the failed step (or --step N) skipped and go on with the next one')
      .addOption(actionOption('skip', 'step', 'the step to skip, numbered from 1 as plan tree shows them'))
      .addOption(jsonOption())
      .action(runCommand(ctx, async (id: string, opts: { step?: number }) => recovered(ctx, await (await ctx.app()).service.skip(id, { by: operator(), step: opts.step }), 'step skipped'))),

  'edit-step': (plan, ctx) =>
    plan
      .command('edit-step <id>')
      .description('replace the tool calls of a step that has not completed (a file with step: and tools:)')
      .addOption(actionOption('edit_step', 'step', 'the step to edit, numbered from 1 as plan tree shows them'))
      .addOption(actionOption('edit_step', 'file', 'one step in the plan-file format', '<step.yaml>'))
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: { step: number; file: string }) =>
          recovered(ctx, await (await ctx.app()).service.editStep(id, { by: operator(), step: opts.step, file: opts.file }), `step ${opts.step} edited`),
        ),
      ),

  profile: (plan, ctx) =>
    plan
      .command('profile <id> <profile>')
      .description('change the automation profile: a name (manual, restricted, supervised, trusted, full-auto) or a profile file')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, profile: string) => {
          const p = await (await ctx.app()).service.setProfile(id, { by: operator(), profile });
          return recovered(ctx, p, `profile is now ${p.automationProfile.name}`);
        }),
      ),

  replan: (plan, ctx) =>
    plan
      .command('replan <id>')
      .description('go back to strategize for the steps not done: they are replaced by the steps of --file, or (an agent plan) proposed again by the model')
      .addOption(actionOption('replan', 'file', 'a plan file whose definitionOfDone holds the new steps (required for a scripted plan)', '<plan.yaml>'))
      .addOption(jsonOption())
      .action(runCommand(ctx, async (id: string, opts: { file?: string }) => recovered(ctx, await (await ctx.app()).service.replan(id, { by: operator(), file: opts.file }), 'replanned'))),

  reset: (plan, ctx) =>
    plan
      .command('reset <id>')
      .description('a Failed or Interrupted plan becomes Ready to run again, for manual recovery')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string) => {
          const p = await (await ctx.app()).service.reset(id);
          return { json: planWithCommand(p), text: `${p.id} is ${statusLabel(p)}` };
        }),
      ),
} satisfies Record<string, Register>;
