import { createInterface } from 'node:readline';
import { BUDGET_LIMITS, BudgetAskSchema } from '../../shared/agent';
import type { Approval } from '../../shared/approvals';
import type { Plan } from '../../shared/domain';
import type { StreamEvent } from '../../shared/events';
import { approvalAttention, attentionText, notifiesOf } from '../../shared/attention';
import { eventText } from '../../shared/event-text';
import { statusLabel } from '../../shared/vocabulary';
import type { App } from '../app/open-app';
import { cliOperator } from '../app/operator';
import { formatApproval } from './format';
import { watchCtrlC } from './interrupt';
import { readKey } from './keypress';
import { type Ctx, EXIT, printJson } from './run-command';
import { nextCommand, planWithCommand } from './next-steps';
import { askFields } from './question-prompt';

/**
 * Shows one readable line per event (--stream; NDJSON with --json), worded as the console's event
 * log, and, on a terminal, a live "step k of n" line.
 */
function streamPrinter(ctx: Ctx, planId: string, options: { stream?: boolean; json?: boolean }) {
  let progress = '';
  const descriptions = new Map<string, string>();
  const describe = (decisionId: string): string | undefined => descriptions.get(decisionId);
  /** The plan's decisions are read again when an event names one not known yet (the store is read asynchronously, so before the line is made). */
  const learn = async (event: StreamEvent) => {
    const decisionId = (event.data as { decisionId?: unknown }).decisionId;
    if (typeof decisionId !== 'string' || descriptions.has(decisionId)) return;
    for (const d of await (await ctx.app()).service.decisions(planId)) descriptions.set(d.id, d.description);
  };
  // Lines are printed in event order, each once what it names is known.
  let printed: Promise<void> = Promise.resolve();
  const clear = () => {
    if (progress) ctx.io.stderr('\r\x1b[2K');
  };
  const showProgress = (event: StreamEvent) => {
    if (!ctx.io.isTTY) return;
    // The step (or strategize) line, and what it does now after a dot: each in the event log's words.
    if (event.type === 'runtime_execute_step' || event.type === 'strategize_started') progress = eventText(event, describe).text;
    else if (event.type === 'tool_call_started' || event.type === 'retry_scheduled') progress = `${progress.split(' · ')[0]} · ${eventText(event, describe).text}`;
    else return;
    ctx.io.stderr(`\r\x1b[2K${progress.slice(0, 120)}`);
  };
  return {
    onEvent(event: StreamEvent) {
      if (event.type === 'runtime_execute_step') descriptions.set(event.data.decisionId, event.data.description);
      printed = printed.then(async () => {
        if ((options.stream && !options.json) || ctx.io.isTTY) await learn(event).catch(() => undefined);
        if (options.stream) {
          clear();
          ctx.io.stdout(options.json ? `${JSON.stringify(event)}\n` : `${eventText(event, describe).text}\n`);
        }
        showProgress(event);
      });
    },
    async done() {
      await printed;
      clear();
      progress = '';
    },
  };
}

/** What step mode's keys do, as the prompt at each pause says it. */
export const STEP_KEYS = 'Enter = step, c = continue to the end, Ctrl-C = stop';

/**
 * In step mode, on a terminal: at each pause before a step, one key without Enter (as approvals
 * take it). Ctrl-C, Ctrl-D and Esc stop the run as Ctrl-C does, leaving it resumable.
 */
function stepKeys(ctx: Ctx, app: App, planId: string, printed: () => Promise<void>) {
  let asking: Promise<void> = Promise.resolve();
  const ask = async (event: Extract<StreamEvent, { type: 'paused' }>) => {
    await printed();
    for (;;) {
      ctx.io.stderr(`paused before step ${event.data.index} of ${event.data.total}: ${STEP_KEYS} `);
      const key = await readKey();
      ctx.io.stderr('\n');
      if (!app.service.isRunning(planId)) return;
      const controller = app.service.controller(planId);
      if (key === null) return void process.emit('SIGINT');
      if (key === '\r' || key === '\n' || key === 'return' || key === 's') return controller.step();
      if (key === 'c') return controller.continue();
    }
  };
  return (event: StreamEvent) => {
    if (event.type === 'paused' && event.data.reason !== 'pause') asking = asking.then(() => ask(event));
  };
}

/** Who answered at the command line, as the decision tree records it: the settings' operator name, else the OS user. */
export function operator(): string {
  return cliOperator();
}

type Reply = { approve: true; all: boolean; input?: Record<string, unknown> } | { approve: false; reason?: string; cancel?: boolean };

/** Asks on the terminal: y approves the call, a every call of its tool, n rejects it with a reason. */
/** The terminal's question for an approval, and its help line. A cost ask is the plan's; turns and tokens are the step's. */
export function approvalPrompt(approval: Pick<Approval, 'kind' | 'tool' | 'args'>): { question: string; help: string } {
  if (approval.kind === 'input') return { question: 'answer? [y]es (fill in the fields), [n]o (decline), [c]ancel, [?] help: ', help: 'y: answer field by field, the call goes on with it · n: decline (the server is told so) · c: cancel the question (the server is told it was cancelled)' };
  if (approval.kind === 'plan') return { question: 'approve the proposed tree? [y]es, [n]o, [?] help: ', help: 'y: approve the tree and execute it · n: reject it (the model is told why)' };
  if (approval.kind === 'budget') {
    const whose = (approval.args as { limit?: unknown } | undefined)?.limit === 'costUsd' ? 'plan' : 'step';
    return {
      question: `give the ${whose === 'plan' ? 'plan more dollars' : 'step more'}? [y]es, [n]o, [?] help: `,
      help: `y: give the ${whose} what it asks for and go on · n: refuse (the step fails)`,
    };
  }
  return {
    question: `approve? [y]es, [n]o, [a]ll ${approval.tool} calls, [?] help: `,
    help: `y: run this call once · a: run it and every later ${approval.tool} call of the plan · n: reject it (the step fails)`,
  };
}

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
    const { question, help } = approvalPrompt(approval);
    for (;;) {
      const key = (await askKey(question))?.toLowerCase();
      if (key === null || key === undefined) return null;
      if ((key === 'y' || key === 'yes') && approval.kind === 'input' && approval.elicitation) {
        const input = await askFields(approval.elicitation.requestedSchema, ask, (text) => ctx.io.stderr(text));
        if (input === null) return null;
        return { approve: true, all: false, input };
      }
      if (key === 'y' || key === 'yes') return { approve: true, all: false };
      if ((key === 'c' || key === 'cancel') && approval.kind === 'input') return { approve: false, cancel: true };
      if ((key === 'a' || key === 'all') && approval.kind === 'tool') return { approve: true, all: true };
      if (key === 'n' || key === 'no') {
        const reason = await ask(approval.kind === 'input' ? 'reason for declining: ' : 'reason for rejecting: ');
        if (reason) return { approve: false, reason };
        ctx.io.stderr('a rejection needs a reason\n');
        continue;
      }
      ctx.io.stderr(`${help} · leave with Ctrl-D or Esc: the plan stays waiting for approval\n`);
    }
  } finally {
    rl?.close();
  }
}

/**
 * The terminal is told the plan waits: its bell, and the desktop-notification sequences of the
 * terminals that have one (OSC 9: iTerm2, Windows Terminal, kitty; OSC 777: foot, WezTerm, Ghostty,
 * rxvt); others ignore them. Off with `agents config set notifyTerminal off` (or notifyApproval off).
 */
export function ringTerminal(ctx: Ctx, app: App, text: string): void {
  let on = true;
  try {
    const notify = app.settings.read().notify;
    // The terminal rings for a wait for an answer only: the approval kind.
    on = notify?.terminal !== false && notifiesOf(notify, 'approval');
  } catch {
    // A broken settings file is reported where the settings are used.
  }
  if (!on || !ctx.io.isTTY) return;
  // A plan's name comes from its file: no control character of it reaches the terminal.
  const safe = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  ctx.io.stderr(`\u0007\u001b]9;${safe}\u0007\u001b]777;notify;CleverAgents;${safe}\u0007`);
}

/** A line for a command that queues a run while no worker is live: else it would seem to hang. */
export async function noteWithoutWorkers(ctx: Ctx, app: App): Promise<void> {
  if (!app.team) return;
  const workers = await (await app.team.queue()).listWorkers();
  if (!workers.some((w) => w.live)) ctx.io.stderr('note: no worker is live on the team database; the run waits in the queue until one starts (agents worker)\n');
}

/**
 * Runs a plan in the foreground, answering its approvals on a terminal, and reports how it ended:
 * exit 1 failed, 3 waiting for approval, 130 interrupted by Ctrl-C.
 */
export async function runAndReport(ctx: Ctx, planId: string, opts: { stream?: boolean; json?: boolean; step?: boolean }, start: (onEvent: (e: StreamEvent) => void) => Promise<Plan>) {
  const printer = streamPrinter(ctx, planId, opts);
  const app = await ctx.app();
  // In team mode a worker runs it: say so at once when none is there to take it.
  if (app.team) await noteWithoutWorkers(ctx, app);
  // In team mode a worker runs the plan: there is no run here to step (the engine refuses --step there).
  const onPause = opts.step && !app.team ? stepKeys(ctx, app, planId, () => printer.done()) : () => undefined;
  const onEvent = (event: StreamEvent) => {
    printer.onEvent(event);
    onPause(event);
  };
  const ctrlC = watchCtrlC(app, planId, (line) => ctx.io.stderr(`${line}\n`));
  let plan: Plan;
  try {
    const ended = await Promise.race([start(onEvent), ctrlC.stopped.then(() => null)]);
    if (ended === null) {
      await printer.done();
      const stopped = await app.service.interrupt(planId);
      ctx.exitCode = EXIT.interrupted;
      if (opts.json && !opts.stream) printJson(ctx, planWithCommand(stopped));
      ctx.io.stderr(`${stopped.name}: ${statusLabel(stopped)} — ${stopped.errorMessage ?? ''}\nresume with: agents plan retry ${planId}\n`);
      return;
    }
    plan = ended;
    // On a terminal, each call that waits for approval is asked about inline and the run goes on.
    while (plan.waitingFor === 'approval' && ctx.io.isTTY && !opts.json) {
      await printer.done();
      const pending = (await app.service.approvals(planId)).pending;
      if (pending) ringTerminal(ctx, app, attentionText(plan.name, approvalAttention(pending.kind, pending.tool)));
      // A sign-in is given by `agents mcp login`, which goes on with the plan: nothing to answer here.
      const reply = pending && pending.kind !== 'signin' ? await askApproval(ctx, pending) : null;
      if (!reply) break;
      const by = operator();
      const options = { streamCallback: onEvent, step: opts.step ?? false };
      plan = reply.approve
        ? await app.service.approve(planId, { by, all: reply.all, input: reply.input }, options)
        : await app.service.reject(planId, { by, reason: reply.reason, cancel: reply.cancel }, options);
    }
  } finally {
    await printer.done();
    ctrlC.dispose();
  }
  if (plan.waitingFor === 'approval') {
    ctx.exitCode = EXIT.waitingForApproval;
    if (opts.json && !opts.stream) printJson(ctx, planWithCommand(plan));
    else if (!opts.json) {
      const pending = (await app.service.approvals(planId)).pending;
      ctx.io.stderr(`${plan.name}: ${statusLabel(plan)}${pending ? `\n${formatApproval(pending)}` : ''}\n`);
      const limit = pending?.kind === 'budget' ? BudgetAskSchema.parse(pending.args).limit : null;
      // --all is for a tool's calls: a proposed tree is approved whole.
      const more = limit ? ` [${BUDGET_LIMITS[limit].flag} ${limit === 'costUsd' ? 'USD' : 'N'}]` : pending?.kind === 'plan' ? '' : pending?.kind === 'input' ? " --input '{...}'" : ' [--all]';
      if (pending?.kind === 'signin') ctx.io.stderr(`sign in with: agents mcp login ${pending.tool} (the plan goes on once signed in)\nreject with:  agents plan reject ${planId} --reason TEXT\n`);
      else ctx.io.stderr(`${pending?.kind === 'input' ? 'answer with:' : 'approve with:'} agents plan approve ${planId}${more}\n${pending?.kind === 'input' ? 'decline with:' : 'reject with: '} agents plan reject ${planId} --reason TEXT\n${pending?.kind === 'input' ? `cancel with:  agents plan reject ${planId} --cancel\n` : ''}`);
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
