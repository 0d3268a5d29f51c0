import { userInfo } from 'node:os';
import { createInterface } from 'node:readline';
import { Command, CommanderError, Option } from 'commander';
import type { Plan } from '../../shared/domain';
import { PlanError, ValidationError } from '../../shared/errors';
import type { StreamEvent } from '../../shared/events';
import { eventText } from '../../shared/event-text';
import { PLAN_STATUSES, planStatus, plural, statusLabel } from '../../shared/vocabulary';
import { EXIT_INTERRUPTED, watchCtrlC } from './interrupt';
import { readKey } from './keypress';
import { writeDiffJson } from './diff-json';
import { copyDemo } from './demo-command';
import { errorsWithCommands, nextCommand, planWithCommand } from './next-steps';
import { clientError } from '../app/client-errors';
import { type App, openApp } from '../app/open-app';
import { formatApproval, formatApprovals, formatErrors, formatPlan, formatPlanList, formatReview, formatSettings, formatTree, parseHunkSpec } from './format';
import type { Approval } from '../../shared/domain';
import { CONFIG_KEYS, configPatch } from '../app/settings';

/** Exit statuses of docs/ARCHITECTURE.md "Stable interfaces"; 3 leaves the plan resumable, waiting for the operator's approval. */
export const EXIT = { ok: 0, planFailed: 1, badInput: 2, waitingForApproval: 3, interrupted: EXIT_INTERRUPTED } as const;

function printSettings(ctx: Ctx, json: boolean | undefined): void {
  const view = ctx.app().service.settingsView();
  if (json) return printJson(ctx, view);
  ctx.io.stdout(`${formatSettings(view)}\n`);
}

export interface CliIo {
  /** False when the reader is behind: a long output then waits for `stdoutDrained`. */
  stdout: (text: string) => boolean | void;
  stdoutDrained?: () => Promise<void>;
  stderr: (text: string) => void;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

const defaultIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stdoutDrained: () => new Promise((resolve) => process.stdout.once('drain', resolve)),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
  env: process.env,
};

interface Ctx {
  io: CliIo;
  app(): App;
  exitCode: number;
}

function printJson(ctx: Ctx, value: unknown): void {
  ctx.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Shows one readable line per event (--stream; NDJSON with --json), worded as the console's event
 * log, and, on a terminal, a live "step k of n" line.
 */
function streamPrinter(ctx: Ctx, planId: string, options: { stream?: boolean; json?: boolean }) {
  let progress = '';
  const descriptions = new Map<string, string>();
  const describe = (decisionId: string): string | undefined => {
    if (!descriptions.has(decisionId)) for (const d of ctx.app().service.decisions(planId)) descriptions.set(d.id, d.description);
    return descriptions.get(decisionId);
  };
  const clear = () => {
    if (progress) ctx.io.stderr('\r\x1b[2K');
  };
  const showProgress = (event: StreamEvent) => {
    if (!ctx.io.isTTY) return;
    if (event.type === 'runtime_execute_step') progress = `step ${event.data.index} of ${event.data.total}: ${event.data.description}`;
    else if (event.type === 'tool_call_started') progress = `${progress.split(' · ')[0]} · ${event.data.tool}`;
    else if (event.type === 'retry_scheduled') progress = `${progress.split(' · ')[0]} · retry ${event.data.attempt} in ${event.data.delayMs} ms`;
    else if (event.type === 'strategize_started') progress = 'strategizing…';
    else return;
    ctx.io.stderr(`\r\x1b[2K${progress.slice(0, 120)}`);
  };
  return {
    onEvent(event: StreamEvent) {
      if (event.type === 'runtime_execute_step') descriptions.set(event.data.decisionId, event.data.description);
      if (options.stream) {
        clear();
        ctx.io.stdout(options.json ? `${JSON.stringify(event)}\n` : `${eventText(event, describe).text}\n`);
      }
      showProgress(event);
    },
    done() {
      clear();
      progress = '';
    },
  };
}

/** In step mode on a terminal: Enter steps one decision, c continues, q leaves it paused... */
function attachStepKeys(ctx: Ctx, app: App, planId: string): () => void {
  const rl = createInterface({ input: process.stdin });
  ctx.io.stderr('step mode: Enter = step, c = continue to the end, p = pause\n');
  rl.on('line', (line) => {
    const controller = app.service.isRunning(planId) ? app.service.controller(planId) : null;
    const key = line.trim().toLowerCase();
    if (!controller) return;
    if (key === 'c') controller.continue();
    else if (key === 'p') controller.pause();
    else controller.step();
  });
  rl.on('close', () => {
    if (app.service.isRunning(planId)) app.service.controller(planId).continue();
  });
  return () => rl.close();
}

/** The OS user, as the decision tree records who answered at the command line. */
function operator(): string {
  try {
    return userInfo().username;
  } catch {
    return 'cli';
  }
}

type Reply = { approve: true; all: boolean } | { approve: false; reason: string };

/** Asks on the terminal: y approves the call, a every call of its tool, n rejects it with a reason. */
async function askApproval(ctx: Ctx, approval: Approval): Promise<Reply | null> {
  // Made at the first line asked for: on a terminal the keys are read raw until then.
  let rl: ReturnType<typeof createInterface> | undefined;
  let lines: AsyncIterator<string> | undefined;
  const ask = async (question: string): Promise<string | null> => {
    ctx.io.stderr(question);
    rl ??= createInterface({ input: process.stdin, output: process.stderr, terminal: false });
    lines ??= rl[Symbol.asyncIterator]();
    const next = await lines.next();
    return next.done ? null : String(next.value).trim();
  };
  // On a terminal one key answers, without Enter; piped answers come a line each.
  const askKey = async (question: string): Promise<string | null> => {
    if (!process.stdin.isTTY) return ask(question);
    ctx.io.stderr(question);
    const key = await readKey();
    ctx.io.stderr(`${key ?? ''}\n`);
    return key;
  };
  try {
    ctx.io.stderr(`${formatApproval(approval)}\n`);
    for (;;) {
      const key = (await askKey(approval.kind === 'plan' ? 'approve the proposed tree? [y]es, [n]o, [?] help: ' : `approve? [y]es, [n]o, [a]ll ${approval.tool} calls, [?] help: `))?.toLowerCase();
      if (key === null || key === undefined) return null;
      if (key === 'y' || key === 'yes') return { approve: true, all: false };
      if ((key === 'a' || key === 'all') && approval.kind === 'tool') return { approve: true, all: true };
      if (key === 'n' || key === 'no') {
        const reason = await ask('reason for rejecting: ');
        if (reason) return { approve: false, reason };
        ctx.io.stderr('a rejection needs a reason\n');
        continue;
      }
      ctx.io.stderr(`y: run this call once · a: run it and every later ${approval.tool} call of the plan · n: reject it (the step fails) · leave with Ctrl-D or Esc: the plan stays waiting for approval\n`);
    }
  } finally {
    rl?.close();
  }
}

async function runAndReport(ctx: Ctx, planId: string, opts: { stream?: boolean; json?: boolean; step?: boolean }, start: (onEvent: (e: StreamEvent) => void) => Promise<Plan>) {
  const printer = streamPrinter(ctx, planId, opts);
  const app = ctx.app();
  const detach = opts.step ? attachStepKeys(ctx, app, planId) : () => undefined;
  const ctrlC = watchCtrlC(app, planId, (line) => ctx.io.stderr(`${line}\n`));
  let plan: Plan;
  try {
    const ended = await Promise.race([start(printer.onEvent), ctrlC.stopped.then(() => null)]);
    if (ended === null) {
      printer.done();
      const stopped = app.service.interrupt(planId);
      ctx.exitCode = EXIT.interrupted;
      if (opts.json && !opts.stream) printJson(ctx, planWithCommand(stopped));
      ctx.io.stderr(`${stopped.name}: ${statusLabel(stopped)} — ${stopped.errorMessage ?? ''}\nresume with: agents plan retry ${planId}\n`);
      return;
    }
    plan = ended;
    // On a terminal, each call that waits for approval is asked about inline and the run goes on.
    while (plan.waitingFor === 'approval' && ctx.io.isTTY && !opts.json) {
      const pending = app.service.approvals(planId).pending;
      const reply = pending ? await askApproval(ctx, pending) : null;
      if (!reply) break;
      const by = operator();
      const options = { streamCallback: printer.onEvent, step: opts.step ?? false };
      plan = reply.approve
        ? await app.service.approve(planId, { by, all: reply.all }, options)
        : await app.service.reject(planId, { by, reason: reply.reason }, options);
    }
  } finally {
    printer.done();
    detach();
    ctrlC.dispose();
  }
  if (plan.waitingFor === 'approval') {
    ctx.exitCode = EXIT.waitingForApproval;
    if (opts.json && !opts.stream) printJson(ctx, planWithCommand(plan));
    else if (!opts.json) {
      const pending = app.service.approvals(planId).pending;
      ctx.io.stderr(`${plan.name}: ${statusLabel(plan)}${pending ? `\n${formatApproval(pending)}` : ''}\n`);
      ctx.io.stderr(`approve with: agents plan approve ${planId} [--all]\nreject with:  agents plan reject ${planId} --reason TEXT\n`);
    }
    return;
  }
  if (opts.json && !opts.stream) printJson(ctx, planWithCommand(plan));
  else if (!opts.json) ctx.io.stderr(`${plan.name}: ${statusLabel(plan)}${plan.errorMessage && plan.processingState === 'errored' ? ` — ${plan.errorMessage}` : ''}\n`);
  if (plan.processingState === 'errored') {
    ctx.exitCode = EXIT.planFailed;
    const next = nextCommand(plan.id, plan.errorDetails.next);
    if (!opts.json && next) ctx.io.stderr(`hint: ${String(plan.errorDetails.hint)}\nnext: ${next}\n`);
  } else if (!opts.json && plan.phase === 'apply' && plan.processingState === 'queued') {
    ctx.io.stderr(`review with: agents plan diff ${plan.id}\napply with:  agents plan apply ${plan.id}\n`);
  }
}

/** The engine refused `run` because the plan waits for an answer: exit 3, as a run that stops for one does. */
class WaitingForApproval extends Error {}

export function buildProgram(ctx: Ctx): Command {
  const program = new Command('agents')
    .description('Run AI-agent plans: strategize, execute in a sandbox, review the changeset, apply.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr })
    .exitOverride();

  const plan = program
    .command('plan')
    .description('create, run, inspect, recover and apply plans')
    .addHelpText('after', '\nTypical flow:\n  agents plan create examples/add-license.yaml\n  agents plan run <id> --stream\n  agents plan diff <id>\n  agents plan apply <id>');
  plan.exitOverride().configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr }).showHelpAfterError('(run with --help for usage)');
  const json = () => new Option('--json', 'print one JSON document on stdout');

  plan
    .command('create <plan-file>')
    .description('validate a plan file (YAML or JSON) and store it; prints the new plan id')
    .option('--project <dir>', 'project directory (overrides the plan file)')
    .option('--profile <name>', 'automation profile: manual, restricted, supervised, trusted, full-auto')
    .addOption(json())
    .action((file: string, opts: { project?: string; profile?: string; json?: boolean }) => {
      const created = ctx.app().service.createFromFile(file, opts);
      if (opts.json) printJson(ctx, created);
      else ctx.io.stdout(`${created.id}\n`);
    });

  plan
    .command('list')
    .description('list plans, newest first')
    .addOption(new Option('--state <status>', `only plans with this status: ${PLAN_STATUSES.join(', ')} (or a processing state)`))
    .addOption(json())
    .action((opts: { state?: string; json?: boolean }) => {
      const plans = ctx.app().service.list().filter((p) => !opts.state || planStatus(p) === opts.state || p.processingState === opts.state);
      if (opts.json) printJson(ctx, { plans });
      else ctx.io.stdout(`${formatPlanList(plans)}\n`);
    });

  plan
    .command('show <id>')
    .description("show a plan's status, model, sandbox, changeset and last error")
    .addOption(json())
    .action((id: string, opts: { json?: boolean }) => {
      const service = ctx.app().service;
      const p = service.get(id);
      // sandboxPath: where the operator fixes a file by hand before a retry; model: the plan's own, and whether this process can use it.
      const model = service.planModel(p);
      // actions: what the plan allows now, and why not, from the same rules the engine enforces.
      if (opts.json) printJson(ctx, { ...planWithCommand(p), status: statusLabel(p), sandboxPath: p.sandboxRefs[0] ?? null, ...(model ? { model } : {}), actions: service.actions(id) });
      else {
        const descriptions = new Map(service.decisions(id).map((d) => [d.id, d.description]));
        ctx.io.stdout(`${formatPlan(p, service.settingsView().price, (decisionId) => descriptions.get(decisionId), model)}\n`);
      }
    });

  plan
    .command('tree <id>')
    .description('show the decision tree, with each decision\'s status and recovery decisions')
    .addOption(json())
    .action((id: string, opts: { json?: boolean }) => {
      const service = ctx.app().service;
      const root = service.tree(id);
      const invocations = service.invocations(id);
      const { approvals } = service.approvals(id);
      if (opts.json) {
        const ran = invocations.map(({ id: invocationId, decisionId, tool, ok, confinement, error }) => ({
          id: invocationId,
          decisionId,
          tool,
          ok,
          confinement: confinement ?? null,
          commandRule: error?.commandRule ?? null,
        }));
        const asked = approvals.filter((a) => a.commandRule).map(({ id: approvalId, decisionId, status, commandRule }) => ({ id: approvalId, decisionId, status, commandRule }));
        printJson(ctx, { planId: id, root, invocations: ran, commandApprovals: asked });
      } else ctx.io.stdout(`${formatTree(root, invocations, approvals)}\n`);
    });

  plan
    .command('diff <id>')
    .description('show each changed file (netted across steps) with its diff, and what is applied and what remains')
    .option('--patch', 'print the whole changeset as one patch for git apply')
    .addOption(json())
    .action(async (id: string, opts: { json?: boolean; patch?: boolean }) => {
      const service = ctx.app().service;
      if (opts.patch) ctx.io.stdout(service.patch(id));
      else if (opts.json) await writeDiffJson(service, id, { write: ctx.io.stdout, drained: ctx.io.stdoutDrained });
      else ctx.io.stdout(`${formatReview(service.reviewWithDiffs(id))}\n`);
    });

  plan
    .command('errors <id>')
    .description('show the error history and what to do next')
    .addOption(json())
    .action((id: string, opts: { json?: boolean }) => {
      const result = ctx.app().service.errors(id);
      if (opts.json) printJson(ctx, errorsWithCommands(result));
      else ctx.io.stdout(`${formatErrors(result.errors, result.recoveryDecisions, result.recoveryHints)}\n`);
    });

  plan
    .command('run <id>')
    .description('strategize and execute a queued plan; stops before apply')
    .option('--stream', 'print one line per event as it happens (NDJSON with --json)')
    .option('--step', 'pause before each decision: Enter steps, c continues')
    .addOption(json())
    .action(async (id: string, opts: { stream?: boolean; json?: boolean; step?: boolean }) => {
      // `manual` pauses before each decision where someone can press Enter; elsewhere only its approvals stop the run.
      if (opts.step === undefined && ctx.io.isTTY && !opts.json && ctx.app().service.get(id).automationProfile.pauseBeforeEachDecision) opts.step = true;
      await runAndReport(ctx, id, opts, (onEvent) => {
        const service = ctx.app().service;
        try {
          return service.run(id, { streamCallback: onEvent, step: opts.step ?? false });
        } catch (error) {
          if (error instanceof PlanError && service.get(id).waitingFor === 'approval') throw new WaitingForApproval(error.message);
          throw error;
        }
      });
    });

  plan
    .command('retry <id>')
    .description('re-run the failed phase of an errored plan from the failed step')
    .option('--stream', 'print one line per event as it happens (NDJSON with --json)')
    .addOption(json())
    .action(async (id: string, opts: { stream?: boolean; json?: boolean }) => {
      await runAndReport(ctx, id, opts, (onEvent) => ctx.app().service.retry(id, { streamCallback: onEvent }));
    });

  plan
    .command('correct <id>')
    .description('ask the agent to fix the failed step: it runs again with the failure (and your note) in the model\'s context')
    .option('--note <text>', 'what the model should do differently')
    .option('--stream', 'print one line per event as it happens (NDJSON with --json)')
    .addOption(json())
    .action(async (id: string, opts: { note?: string; stream?: boolean; json?: boolean }) => {
      await runAndReport(ctx, id, opts, (onEvent) => ctx.app().service.correct(id, { by: operator(), reason: opts.note }, { streamCallback: onEvent }));
    });

  plan
    .command('approvals <id>')
    .description('show the call the plan waits for, and every earlier answer')
    .addOption(json())
    .action((id: string, opts: { json?: boolean }) => {
      const result = ctx.app().service.approvals(id);
      if (opts.json) printJson(ctx, result);
      else ctx.io.stdout(`${formatApprovals(result.pending, result.approvals)}\n`);
    });

  plan
    .command('approve <id>')
    .description('approve the call the plan waits for, then go on with the run in the foreground')
    .option('--all', 'approve every later call of the same tool in this plan too')
    .option('--stream', 'print one line per event as it happens (NDJSON with --json)')
    .addOption(json())
    .action(async (id: string, opts: { all?: boolean; stream?: boolean; json?: boolean }) => {
      await runAndReport(ctx, id, opts, (onEvent) => ctx.app().service.approve(id, { by: operator(), all: opts.all }, { streamCallback: onEvent, step: false }));
    });

  plan
    .command('reject <id>')
    .description('reject the call the plan waits for; the run goes on and the step fails (exit 1)')
    .requiredOption('--reason <text>', 'why, recorded in the decision tree')
    .option('--stream', 'print one line per event as it happens (NDJSON with --json)')
    .addOption(json())
    .action(async (id: string, opts: { reason: string; stream?: boolean; json?: boolean }) => {
      await runAndReport(ctx, id, opts, (onEvent) => ctx.app().service.reject(id, { by: operator(), reason: opts.reason }, { streamCallback: onEvent, step: false }));
    });

  const recovered = (p: Plan, opts: { json?: boolean }, what: string) => {
    if (opts.json) return printJson(ctx, planWithCommand(p));
    ctx.io.stdout(`${what}; ${p.id} is ${statusLabel(p)}\n`);
    if (p.processingState === 'queued') ctx.io.stderr(`go on with: agents plan run ${p.id}\n`);
  };
  const stepNumber = (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new ValidationError('--step', `must be a step number (1, 2, ...), not "${value}"`);
    return n;
  };

  plan
    .command('skip <id>')
    .description('mark the failed step (or --step N) skipped and go on with the next one')
    .option('--step <n>', 'the step to skip, numbered from 1 as plan tree shows them', stepNumber)
    .addOption(json())
    .action((id: string, opts: { step?: number; json?: boolean }) => {
      recovered(ctx.app().service.skip(id, { by: operator(), step: opts.step }), opts, 'step skipped');
    });

  plan
    .command('edit-step <id>')
    .description("replace the tool calls of a step that has not completed (a file with step: and tools:)")
    .requiredOption('--step <n>', 'the step to edit, numbered from 1 as plan tree shows them', stepNumber)
    .requiredOption('--file <step.yaml>', 'one step in the plan-file format')
    .addOption(json())
    .action((id: string, opts: { step: number; file: string; json?: boolean }) => {
      recovered(ctx.app().service.editStep(id, { by: operator(), step: opts.step, file: opts.file }), opts, `step ${opts.step} edited`);
    });

  plan
    .command('profile <id> <profile>')
    .description('change the automation profile: a name (manual, restricted, supervised, trusted, full-auto) or a profile file')
    .addOption(json())
    .action((id: string, profile: string, opts: { json?: boolean }) => {
      const p = ctx.app().service.setProfile(id, { by: operator(), profile });
      recovered(p, opts, `profile is now ${p.automationProfile.name}`);
    });

  plan
    .command('replan <id>')
    .description('go back to strategize for the steps not done: they are replaced by the steps of --file, or (an agent plan) proposed again by the model')
    .option('--file <plan.yaml>', 'a plan file whose definitionOfDone holds the new steps (required for a scripted plan)')
    .addOption(json())
    .action((id: string, opts: { file?: string; json?: boolean }) => {
      recovered(ctx.app().service.replan(id, { by: operator(), file: opts.file }), opts, 'replanned');
    });

  plan
    .command('reset <id>')
    .description('a Failed or Interrupted plan becomes Ready to run again, for manual recovery')
    .addOption(json())
    .action((id: string, opts: { json?: boolean }) => {
      const p = ctx.app().service.reset(id);
      if (opts.json) printJson(ctx, planWithCommand(p));
      else ctx.io.stdout(`${p.id} is ${statusLabel(p)}\n`);
    });

  plan
    .command('apply <id>')
    .description('write the changeset, or the files and hunks named, into the project; conflicts stop it unless --force. Repeat to apply the rest')
    .option('--path <path...>', 'apply only these files')
    .option('--hunks <file:n,m...>', 'apply only these hunks of a file (numbered as agents plan diff shows them), e.g. README.md:1,3')
    .option('--force', 'write every selected file as the review shows it, over the project\'s own changes')
    .addOption(json())
    .action(async (id: string, opts: { json?: boolean; path?: string[]; hunks?: string[]; force?: boolean }) => {
      let hunks: Record<string, number[]> | undefined;
      for (const spec of opts.hunks ?? []) {
        const parsed = parseHunkSpec(spec);
        if (!parsed) throw new ValidationError('--hunks', `"${spec}" is not FILE:N[,N...], e.g. README.md:1,3`);
        hunks = { ...hunks, [parsed[0]]: [...(hunks?.[parsed[0]] ?? []), ...parsed[1]] };
      }
      const result = await ctx.app().service.apply(id, { paths: opts.path, hunks, force: opts.force });
      if (result.conflicts.length > 0) ctx.exitCode = EXIT.planFailed;
      if (opts.json) return printJson(ctx, result);
      for (const c of result.conflicts) ctx.io.stderr(`conflict: ${c.path}: ${c.reason ?? 'changed in the project since the plan ran'}\n`);
      if (result.conflicts.length > 0 && !opts.force) ctx.io.stderr('nothing was written; resolve the conflicts, or use --force to write the files as the review shows them\n');
      else {
        ctx.io.stdout(`applied ${plural(result.applied.length, 'file')}${result.skipped.length ? `, skipped ${result.skipped.length}` : ''}\n`);
        if (result.remaining.length > 0) {
          ctx.io.stdout(`${plural(result.remaining.length, 'file')} ${result.remaining.length === 1 ? 'remains' : 'remain'}: agents plan apply ${id} to apply them, agents plan discard ${id} to drop them\n`);
        }
      }
    });

  plan
    .command('discard <id>')
    .description('remove the sandbox and cancel the plan')
    .addOption(json())
    .action(async (id: string, opts: { json?: boolean }) => {
      const p = await ctx.app().service.discard(id);
      if (opts.json) printJson(ctx, planWithCommand(p));
      else ctx.io.stdout(`${p.id} discarded\n`);
    });

  const config = program
    .command('config')
    .description(`the model settings in the data directory (mode 0600): ${CONFIG_KEYS.join(', ')}`)
    .addHelpText('after', '\nThe environment (AGENTS_MODEL, AGENTS_BASE_URL, AGENTS_API_KEY) wins over these; a plan\'s agent.model wins over both.\nExample:\n  agents config set model ollama:qwen2.5-coder');
  config.exitOverride().configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr }).showHelpAfterError('(run with --help for usage)');

  config
    .command('list')
    .description('every setting, the model in effect and where it comes from; the API key only as set or not')
    .addOption(json())
    .action((opts: { json?: boolean }) => printSettings(ctx, opts.json));

  config
    .command('get <key>')
    .description('one setting (apiKey prints only whether one is set)')
    .action((key: string) => {
      const view = ctx.app().service.settingsView();
      const values: Record<string, unknown> = {
        model: view.model,
        baseUrl: view.baseUrl,
        apiKey: view.apiKeySet ? '(set)' : '(not set)',
        priceInput: view.price?.inputPerMTok ?? null,
        priceOutput: view.price?.outputPerMTok ?? null,
      };
      if (!(key in values)) throw new ValidationError('key', `unknown setting "${key}"; the settings are ${Object.keys(values).join(', ')}`);
      ctx.io.stdout(`${values[key] ?? ''}\n`);
    });

  config
    .command('set <key> <value>')
    .description('change a setting; an empty value clears it')
    .action((key: string, value: string) => {
      const app = ctx.app();
      const settingsFile = app.settings.read();
      app.settings.patch(configPatch(key, value, settingsFile));
      ctx.io.stdout(`${key} ${value === '' ? 'cleared' : 'set'}\n`);
    });

  config
    .command('unset <key>')
    .description('clear a setting')
    .action((key: string) => {
      const app = ctx.app();
      app.settings.patch(configPatch(key, '', app.settings.read()));
      ctx.io.stdout(`${key} cleared\n`);
    });

  program
    .command('demo [dir]')
    .description('copy the example plans and their demo project into DIR (default: a new temporary folder) and print its path')
    .action((dir: string | undefined) => {
      ctx.io.stdout(`${copyDemo(dir)}\n`);
    });

  program
    .command('serve')
    .description('serve the operator console to a browser')
    .option('--host <host>', 'address to bind (anything but loopback needs --allow-remote)', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '4477')
    .option('--allow-remote <names>', 'serve beyond this machine, answering these comma-separated host names (the token travels in clear text)')
    .option('--project-root <dir>', 'a folder the projects of plans created in the console must lie inside (repeatable; default: your home)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--open', 'open a browser')
    .action(async (opts: { host: string; port: string; open?: boolean; allowRemote?: string; projectRoot?: string[] }) => {
      // Loaded on demand: the web host (ws, http, static files) is most of what a start would read.
      const { serveCommand } = await import('./serve-command');
      await serveCommand(ctx.app(), opts, ctx.io);
    });

  return program;
}

/** Runs the CLI; resolves to the exit status. */
export async function runCli(argv: string[], io: CliIo = defaultIo): Promise<number> {
  let app: App | undefined;
  const ctx: Ctx = {
    io,
    exitCode: EXIT.ok,
    app: () =>
      (app ??= openApp({
        dataDir: io.env.AGENTS_HOME || undefined,
        env: io.env,
        // Lets tests and demos shorten the automatic-retry backoff.
        recovery: io.env.AGENTS_RETRY_BASE_MS ? { baseDelayMs: Number(io.env.AGENTS_RETRY_BASE_MS) } : undefined,
      })),
  };
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      return EXIT.badInput;
    }
    if (error instanceof WaitingForApproval) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT.waitingForApproval;
    }
    const known = clientError(error);
    // A rule's refusal is not bad input: what stands in the way is in the project (README, exit status).
    if (known instanceof PlanError && known.code === 'policy') {
      io.stderr(`error: ${known.message}\n`);
      return EXIT.planFailed;
    }
    if (known instanceof ValidationError || known instanceof PlanError) {
      // A plan file's check may find several problems: one line each.
      io.stderr(known.message.split('\n').map((line) => `error: ${line}\n`).join(''));
      return EXIT.badInput;
    }
    io.stderr(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.planFailed;
  } finally {
    app?.close();
  }
}
