import { actionOption, dollars, jsonOption, positiveCount, type Register, streamOption } from '../options';
import { Option } from 'commander';
import { PlanError, ValidationError } from '../../../shared/errors';
import { WaitingForApproval, runCommand } from '../run-command';
import { noteWithoutWorkers, operator, runAndReport } from '../run-report';

type RunOptions = { stream?: boolean; json?: boolean };

/** The commands that create a plan and run it in the foreground, answering its approvals. */
export const planRunCommands = {
  create: (plan, ctx) =>
    plan
      .command('create <plan-file>')
      .description('validate a plan file (YAML or JSON) and store it; prints the new plan id')
      .option('--project <dir>', 'project directory (overrides the plan file)')
      .option('--profile <name>', 'automation profile: manual, restricted, supervised, trusted, full-auto')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (file: string, opts: { project?: string; profile?: string }) => {
          const created = await (await ctx.app()).service.createFromFile(file, opts);
          return { json: created, text: created.id };
        }),
      ),

  run: (plan, ctx) =>
    plan
      .command('run <id>')
      .description('strategize and execute a queued plan; stops before apply')
      .addOption(streamOption())
      .addOption(actionOption('run', 'step', 'on a terminal, pause before each decision: Enter steps, c continues to the end (one key, no Enter)'))
      .option('--detach', 'team mode: return once the run is queued, without following it')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: RunOptions & { step?: boolean; detach?: boolean }) => {
          const app = await ctx.app();
          const service = app.service;
          if (opts.detach) {
            const queued = await service.run(id, { detach: true });
            await noteWithoutWorkers(ctx, app);
            return { json: queued, text: `${queued.id} queued; follow it with: agents plan show ${queued.id} (or the console)` };
          }
          // The keys that step come from a terminal: without one, a stepped run would wait for keys nobody can type.
          if (opts.step && !app.team && !process.stdin.isTTY) {
            throw new ValidationError('--step', 'reads a key at each pause from a terminal, and stdin is not one: run it in a terminal, or step through the plan in the console');
          }
          // `manual` pauses before each decision where someone can press a key (in this process, not on a team's worker); elsewhere only its approvals stop the run.
          if (opts.step === undefined && !app.team && process.stdin.isTTY && ctx.io.isTTY && !opts.json && (await service.get(id)).automationProfile.pauseBeforeEachDecision) opts.step = true;
          await runAndReport(ctx, id, opts, async (onEvent) => {
            try {
              return await service.run(id, { streamCallback: onEvent, step: opts.step ?? false });
            } catch (error) {
              // The engine's refusal, with exit 3 when the plan waits for an answer, as for a run that stops for one.
              if (error instanceof PlanError && (await service.get(id)).waitingFor === 'approval') throw new WaitingForApproval(id, error.message);
              throw error;
            }
          });
        }),
      ),

  retry: (plan, ctx) =>
    plan
      .command('retry <id>')
      .description('re-run the failed phase of an errored plan from the failed step')
      .addOption(streamOption())
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: RunOptions) => {
          await runAndReport(ctx, id, opts, async (onEvent) => (await ctx.app()).service.retry(id, { streamCallback: onEvent }));
        }),
      ),

  correct: (plan, ctx) =>
    plan
      .command('correct <id>')
      .description("ask the agent to fix the failed step: it runs again with the failure (and your note) in the model's context")
      .addOption(actionOption('correct', 'note', 'what the model should do differently'))
      .addOption(streamOption())
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: RunOptions & { note?: string }) => {
          await runAndReport(ctx, id, opts, async (onEvent) => (await ctx.app()).service.correct(id, { by: operator(), reason: opts.note }, { streamCallback: onEvent }));
        }),
      ),

  approve: (plan, ctx) =>
    plan
      .command('approve <id>')
      .description('approve the call the plan waits for, then go on with the run in the foreground')
      .addOption(actionOption('approve', 'all', 'approve every later call of the same tool in this plan too'))
      .option('--turns <n>', 'for a step out of turns: how many more it may take (default: its budget again)', positiveCount('--turns'))
      .option('--tokens <n>', 'for a step out of output tokens: how many more it may use (default: its budget again)', positiveCount('--tokens'))
      .option('--cost <usd>', 'for a plan over its maxCostUsd: how many more US dollars it may cost (default: its budget again)', dollars('--cost'))
      .addOption(actionOption('approve', 'input', "for an MCP server's question: the answer, a JSON object of its fields (its defaults fill the rest)"))
      .addOption(streamOption())
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: RunOptions & { all?: boolean; turns?: number; tokens?: number; cost?: number; input?: Record<string, unknown> }) => {
          const more = { turns: opts.turns, outputTokens: opts.tokens, costUsd: opts.cost };
          await runAndReport(ctx, id, opts, async (onEvent) => (await ctx.app()).service.approve(id, { by: operator(), all: opts.all, more, input: opts.input }, { streamCallback: onEvent, step: false }));
        }),
      ),

  reject: (plan, ctx) =>
    plan
      .command('reject <id>')
      .description("reject the call the plan waits for; the run goes on and the step fails (exit 1). An MCP server's question is declined, or cancelled with --cancel")
      // Not required with --cancel: the use case asks for it otherwise.
      .addOption(new Option('--reason <text>', 'why, recorded in the decision tree (required, except with --cancel)'))
      .addOption(new Option('--cancel', "an MCP server's question: cancel it (the server hears cancel, not decline)"))
      .addOption(streamOption())
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: RunOptions & { reason?: string; cancel?: boolean }) => {
          await runAndReport(ctx, id, opts, async (onEvent) => (await ctx.app()).service.reject(id, { by: operator(), reason: opts.reason, cancel: opts.cancel }, { streamCallback: onEvent, step: false }));
        }),
      ),
} satisfies Record<string, Register>;
