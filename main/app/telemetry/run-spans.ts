import { createHash } from 'node:crypto';
import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, type Attributes, type Span, SpanKind, SpanStatusCode, type Tracer, TraceFlags, trace } from '@opentelemetry/api';
import type { IdGenerator } from '@opentelemetry/sdk-trace';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_AGENT_VERSION,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_WORKFLOW_NAME,
  ATTR_MCP_METHOD_NAME,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
} from '@opentelemetry/semantic-conventions/incubating';
import type { StreamEvent, StreamEventOf } from '../../../shared/events';
import { redactText } from '../../../shared/redact';

/** The conventions name `plan` as an operation (agent planning) but the package has no constant for it yet. */
export const OPERATION_PLAN = 'plan';
export const AGENT_NAME = 'cleveragents';

/** Our own attributes, beside the conventions' ones. */
export const PLAN_ATTRS = {
  run: 'cleveragents.plan.run',
  attempt: 'cleveragents.plan.attempt',
  profile: 'cleveragents.plan.profile',
  project: 'cleveragents.plan.project',
  status: 'cleveragents.plan.status',
  stepIndex: 'cleveragents.step.index',
  stepDescription: 'cleveragents.step.description',
  mcpServer: 'cleveragents.mcp.server',
} as const;

/** What a plan's spans say of it that its events do not. */
export interface PlanFacts {
  planId: string;
  name: string;
  profile: string | null;
  project: string | null;
  /** The coding agent over ACP that executes the plan, or null for ours. */
  agent: { name: string; version: string | null } | null;
}

/** The trace of a plan's run N: the same wherever and whenever it is made, so a second export is the same trace. */
export function traceIdOf(planId: string, run: number): string {
  return hex(`${planId}:${run}`, 32);
}

function hex(text: string, length: number): string {
  const digest = createHash('sha256').update(text).digest('hex').slice(0, length);
  // An all-zero id is invalid; a digest that starts so is vanishingly rare but must still be valid.
  return /^0+$/.test(digest) ? `${'0'.repeat(length - 1)}1` : digest;
}

/** Hands the SDK the ids the mapping derived, for the span it is about to start. */
export class DerivedIds implements IdGenerator {
  traceId = '';
  spanId = '';
  generateTraceId(): string {
    return this.traceId;
  }
  generateSpanId(): string {
    return this.spanId;
  }
}

interface Run {
  no: number;
  traceId: string;
  /** 1, or more once the run was interrupted (its process died, or it was taken over) and retried. */
  attempt: number;
  /** The attempt's span: the run's root, or a later attempt's span under it. */
  root: Span;
  plan: Span | null;
  step: { span: Span; decisionId: string } | null;
  verify: Map<string, Span>;
  /** The args of the calls started and not yet finished, per step, in order. */
  args: Map<string, Record<string, unknown>[]>;
  /** The model's text since its last call ended, per step (content capture only). */
  text: Map<string, string>;
  lastTs: string;
}

const ENDS_RUN = new Set(['complete', 'errored', 'cancelled']);

/**
 * The one mapping from a plan's stored events to its spans, fed one event at a time in seq order:
 * live as they are appended, or all at once by `agents plan trace`. Every id is derived from the
 * plan, the run and the event that opened the span, so both give the same trace.
 */
export class RunSpans {
  private runs = 0;
  private run: Run | null = null;
  /** The last run's trace and root span, for what happens after it (apply, a verify, a rewind). */
  private last: { no: number; traceId: string } | null = null;
  /** A run whose process stopped (category `interrupted`): its retry goes on in the same trace. */
  private interrupted: { no: number; traceId: string; attempt: number } | null = null;
  private applyStartedAt: string | null = null;

  constructor(
    private readonly tracer: Tracer,
    private readonly ids: DerivedIds,
    private readonly plan: PlanFacts,
    private readonly captureContent: boolean,
  ) {}

  /** The trace id of the run now open or last ended; null before the plan first ran. */
  get traceId(): string | null {
    return this.run?.traceId ?? this.last?.traceId ?? null;
  }

  push(event: StreamEvent): void {
    const run = this.run;
    if (run) run.lastTs = event.ts;
    switch (event.type) {
      case 'state_changed':
        return this.stateChanged(event);
      case 'strategize_started':
        if (run && !run.plan) run.plan = this.start(run, 'plan', OPERATION_PLAN, event.ts, { [ATTR_GEN_AI_OPERATION_NAME]: OPERATION_PLAN, ...this.agentAttrs() }, run.root);
        return;
      case 'strategize_complete':
        if (run?.plan) this.end(run.plan, event.ts);
        if (run) run.plan = null;
        return;
      case 'execute_step':
      case 'runtime_execute_step':
        return this.stepStarted(event);
      case 'decision_status':
        if (run?.step && run.step.decisionId === event.data.decisionId && event.data.status !== 'running') {
          if (event.data.status === 'failed') run.step.span.setStatus({ code: SpanStatusCode.ERROR });
          this.end(run.step.span, event.ts);
          run.step = null;
        }
        return;
      case 'tool_call_started':
        if (run) run.args.set(event.data.decisionId, [...(run.args.get(event.data.decisionId) ?? []), event.data.args]);
        return;
      case 'tool_call_finished':
        return this.toolCall(event);
      case 'model_output':
        if (run && this.captureContent) {
          const key = event.data.decisionId ?? event.data.phase;
          run.text.set(key, (run.text.get(key) ?? '') + event.data.text);
        }
        return;
      case 'model_usage':
        return this.modelCall(event);
      case 'change_recorded':
        return this.note(event, 'cleveragents.file.changed', { 'cleveragents.file.path': event.data.entry.path, 'cleveragents.file.operation': event.data.entry.operation });
      case 'approval_requested':
        return this.note(event, 'cleveragents.approval.requested', {
          'cleveragents.approval.id': event.data.approvalId,
          'cleveragents.approval.kind': event.data.kind ?? 'tool',
          ...(event.data.tool ? { [ATTR_GEN_AI_TOOL_NAME]: event.data.tool } : {}),
        });
      case 'approval_resolved':
        return this.note(event, 'cleveragents.approval.resolved', {
          'cleveragents.approval.id': event.data.approvalId,
          'cleveragents.approval.approved': event.data.approved,
          'cleveragents.approval.by': event.data.answeredBy,
          ...(event.data.host ? { 'cleveragents.approval.host': event.data.host } : {}),
          ...(event.data.scope ? { 'cleveragents.approval.scope': event.data.scope } : {}),
        });
      case 'retry_scheduled':
        return this.note(event, 'cleveragents.retry', {
          'cleveragents.retry.attempt': event.data.attempt,
          'cleveragents.retry.delay_ms': event.data.delayMs,
          ...(event.data.category ? { [ATTR_ERROR_TYPE]: event.data.category } : {}),
        });
      case 'checkpoint_created':
        return this.note(event, 'cleveragents.checkpoint', { 'cleveragents.checkpoint.id': event.data.id, [PLAN_ATTRS.stepIndex]: event.data.step });
      case 'error_recorded':
        if (run?.step) run.step.span.setAttribute(ATTR_ERROR_TYPE, event.data.category);
        return;
      case 'check_started':
        return this.checkStarted(event);
      case 'check_finished':
        this.run?.verify.get(event.data.runId)?.addEvent('cleveragents.check', { 'cleveragents.check.name': event.data.name, 'cleveragents.check.passed': event.data.passed }, new Date(event.ts));
        return;
      case 'checks_complete':
        return this.checksComplete(event);
      case 'plan_rewound':
        return this.instant(event, 'rewind', { [PLAN_ATTRS.stepIndex]: event.data.toStep, 'cleveragents.rewind.by': event.data.by });
      case 'plan_forked':
        return this.instant(event, 'fork', { 'cleveragents.fork.id': event.data.forkId, [PLAN_ATTRS.stepIndex]: event.data.atStep, 'cleveragents.fork.by': event.data.by });
      case 'apply_complete':
        return this.instant(event, 'apply', { 'cleveragents.apply.files': event.data.applied.length, 'cleveragents.apply.complete': event.data.complete }, this.applyStartedAt ?? event.ts, !event.data.ok);
      default:
        return;
    }
  }

  /** Ends what is still open at the last event seen: a replay of a run that never ended (its process died). */
  finish(): void {
    if (this.run) this.endRun(this.run.lastTs, 'interrupted', true);
  }

  private stateChanged(event: StreamEventOf<'state_changed'>): void {
    const { from, to, phase, fromPhase, waitingFor, category } = event.data;
    if (to === 'processing' && phase === 'apply' && !this.run) {
      this.applyStartedAt = event.ts;
      return;
    }
    if (to === 'processing' && !this.run) return this.startRun(event);
    if (!this.run) return;
    // Strategize handing over to execute is one run; reaching apply (ready to apply, or checks to run) ends it.
    const handOff = to === 'queued' && fromPhase !== undefined && phase !== 'apply';
    if (ENDS_RUN.has(to) || (to === 'paused' && waitingFor !== 'approval') || (to === 'queued' && from === 'processing' && !handOff)) {
      this.endRun(event.ts, to === 'queued' ? `ready to ${phase}` : category ? `${to}: ${category}` : to, to === 'errored', to === 'errored' && category === 'interrupted');
    }
  }

  private startRun(event: StreamEvent): void {
    if (this.interrupted) return this.resumeRun(event, this.interrupted);
    this.runs += 1;
    const no = this.runs;
    const traceId = traceIdOf(this.plan.planId, no);
    this.ids.traceId = traceId;
    this.ids.spanId = hex(`${traceId}:run`, 16);
    const attrs: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
      [ATTR_GEN_AI_WORKFLOW_NAME]: this.plan.name,
      [ATTR_GEN_AI_CONVERSATION_ID]: this.plan.planId,
      [PLAN_ATTRS.run]: no,
      ...(this.plan.profile ? { [PLAN_ATTRS.profile]: this.plan.profile } : {}),
      ...(this.plan.project ? { [PLAN_ATTRS.project]: this.plan.project } : {}),
    };
    const root = this.tracer.startSpan(`${GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW} ${this.plan.name}`, { kind: SpanKind.INTERNAL, attributes: attrs, startTime: new Date(event.ts), root: true });
    this.open({ no, traceId, attempt: 1, root }, event.ts);
  }

  /**
   * The retry of an interrupted run: a later attempt of the same run, its span under the run's root
   * in the same trace, whichever process (or team worker) picked it up.
   */
  private resumeRun(event: StreamEvent, interrupted: { no: number; traceId: string; attempt: number }): void {
    const { no, traceId } = interrupted;
    const attempt = interrupted.attempt + 1;
    this.ids.traceId = traceId;
    this.ids.spanId = hex(`${traceId}:run:${attempt}`, 16);
    const first = { traceId, spanId: hex(`${traceId}:run`, 16), traceFlags: TraceFlags.SAMPLED };
    const attrs: Attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
      [ATTR_GEN_AI_WORKFLOW_NAME]: this.plan.name,
      [ATTR_GEN_AI_CONVERSATION_ID]: this.plan.planId,
      [PLAN_ATTRS.run]: no,
      [PLAN_ATTRS.attempt]: attempt,
    };
    const root = this.tracer.startSpan(`${GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW} ${this.plan.name}`, { kind: SpanKind.INTERNAL, attributes: attrs, startTime: new Date(event.ts) }, trace.setSpanContext(ROOT_CONTEXT, first));
    this.open({ no, traceId, attempt, root }, event.ts);
  }

  private open(run: Pick<Run, 'no' | 'traceId' | 'attempt' | 'root'>, ts: string): void {
    this.run = { ...run, plan: null, step: null, verify: new Map(), args: new Map(), text: new Map(), lastTs: ts };
    this.last = { no: run.no, traceId: run.traceId };
    this.interrupted = null;
    this.applyStartedAt = null;
  }

  private endRun(ts: string, status: string, failed: boolean, interrupted = false): void {
    const run = this.run;
    if (!run) return;
    // The step a run failed or stopped in failed with it.
    if (failed && run.step) run.step.span.setStatus({ code: SpanStatusCode.ERROR, message: status });
    for (const span of [run.step?.span, run.plan, ...run.verify.values()]) if (span) this.end(span, ts);
    run.root.setAttribute(PLAN_ATTRS.status, status);
    if (failed) run.root.setStatus({ code: SpanStatusCode.ERROR, message: status });
    this.end(run.root, ts);
    this.run = null;
    this.interrupted = interrupted ? { no: run.no, traceId: run.traceId, attempt: run.attempt } : null;
  }

  private stepStarted(event: StreamEventOf<'execute_step'> | StreamEventOf<'runtime_execute_step'>): void {
    const run = this.run;
    if (!run) return;
    if (run.step) this.end(run.step.span, event.ts);
    const agent = this.plan.agent?.name ?? AGENT_NAME;
    const span = this.start(run, `step:${event.seq}`, `${GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${agent}`, event.ts, {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
      ...this.agentAttrs(),
      [PLAN_ATTRS.stepIndex]: event.data.index,
      [PLAN_ATTRS.stepDescription]: event.data.description,
    }, run.root);
    run.step = { span, decisionId: event.data.decisionId };
  }

  private agentAttrs(): Attributes {
    const agent = this.plan.agent;
    return { [ATTR_GEN_AI_AGENT_NAME]: agent?.name ?? AGENT_NAME, ...(agent?.version ? { [ATTR_GEN_AI_AGENT_VERSION]: agent.version } : {}) };
  }

  private toolCall(event: StreamEventOf<'tool_call_finished'>): void {
    const run = this.run;
    if (!run) return;
    const { data } = event;
    const pending = run.args.get(data.decisionId) ?? [];
    const args = pending.shift();
    const started = data.startedAt ?? event.ts;
    const parent = run.step?.decisionId === data.decisionId ? run.step.span : run.root;
    const span = this.start(run, `tool:${event.seq}`, `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${data.tool}`, started, {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
      [ATTR_GEN_AI_TOOL_NAME]: data.tool,
      [ATTR_GEN_AI_TOOL_CALL_ID]: data.invocationId,
      [ATTR_GEN_AI_TOOL_TYPE]: data.mcpServer ? 'extension' : 'function',
      ...(data.mcpServer ? { [ATTR_MCP_METHOD_NAME]: 'tools/call', [PLAN_ATTRS.mcpServer]: data.mcpServer } : {}),
      ...(this.captureContent && args ? { [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: redactText(JSON.stringify(args)) } : {}),
      ...(data.ok ? {} : { [ATTR_ERROR_TYPE]: data.error?.category ?? data.error?.name ?? '_OTHER' }),
    }, parent);
    if (!data.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: data.error?.message });
    this.end(span, new Date(Date.parse(started) + data.durationMs).toISOString());
  }

  private modelCall(event: StreamEventOf<'model_usage'>): void {
    const run = this.run;
    if (!run) return;
    const { data } = event;
    const parent = data.phase === 'strategize' ? (run.plan ?? run.root) : run.step?.decisionId === data.decisionId ? run.step.span : run.root;
    const model = data.model ?? 'unknown';
    const key = data.decisionId ?? data.phase;
    const text = run.text.get(key);
    run.text.delete(key);
    const span = this.start(run, `chat:${event.seq}`, `${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${model}`, data.startedAt ?? event.ts, {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
      ...(data.provider ? { [ATTR_GEN_AI_PROVIDER_NAME]: data.provider } : {}),
      ...(data.model ? { [ATTR_GEN_AI_REQUEST_MODEL]: data.model } : {}),
      ...(data.responseModel ? { [ATTR_GEN_AI_RESPONSE_MODEL]: data.responseModel } : {}),
      ...(data.finishReason ? { [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: [data.finishReason] } : {}),
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: data.inputTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: data.outputTokens,
      ...(data.cachedInputTokens !== undefined ? { [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: data.cachedInputTokens } : {}),
      // A coding agent's own reckoning of its cost (gen_ai has no cost attribute).
      ...(data.costUsd !== undefined ? { 'cleveragents.usage.cost_usd': data.costUsd } : {}),
      ...(data.error ? { [ATTR_ERROR_TYPE]: data.error.type } : {}),
      ...(text ? { [ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: redactText(text) }] }]) } : {}),
    }, parent, SpanKind.CLIENT);
    if (data.error) span.setStatus({ code: SpanStatusCode.ERROR, message: data.error.message });
    this.end(span, event.ts);
  }

  /** A span event on the step now running, else on the run. */
  private note(event: StreamEvent, name: string, attrs: Attributes): void {
    const run = this.run;
    if (!run) return;
    (run.step?.span ?? run.root).addEvent(name, attrs, new Date(event.ts));
  }

  private checkStarted(event: StreamEventOf<'check_started'>): void {
    const run = this.run;
    if (run) {
      if (!run.verify.has(event.data.runId)) run.verify.set(event.data.runId, this.start(run, `verify:${event.data.runId}`, 'verify', event.ts, { 'cleveragents.checks.total': event.data.total }, run.root));
      return;
    }
    this.verifyOutside ??= { runId: event.data.runId, startedAt: event.ts };
  }

  /** A verify pass outside a run: made whole at its end, under the last run. */
  private verifyOutside: { runId: string; startedAt: string } | null = null;

  private checksComplete(event: StreamEventOf<'checks_complete'>): void {
    const summary = { 'cleveragents.checks.passed': event.data.summary.passed, 'cleveragents.checks.failed': event.data.summary.failed };
    const span = this.run?.verify.get(event.data.runId);
    if (span) {
      span.setAttributes(summary);
      if (event.data.summary.failed > 0) span.setStatus({ code: SpanStatusCode.ERROR });
      this.end(span, event.ts);
      this.run?.verify.delete(event.data.runId);
      return;
    }
    const started = this.verifyOutside?.runId === event.data.runId ? this.verifyOutside.startedAt : event.ts;
    this.verifyOutside = null;
    this.instant(event, 'verify', summary, started, event.data.summary.failed > 0);
  }

  /** A span of its own under the run open now, or under the last run's root (an apply, a rewind, a fork). */
  private instant(event: StreamEvent, name: string, attrs: Attributes, startedAt = event.ts, failed = false): void {
    const owner = this.run ?? this.last;
    if (!owner) return;
    if (name === 'apply') this.applyStartedAt = null;
    const span = this.startUnder(owner.traceId, `${name}:${event.seq}`, name, startedAt, attrs);
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    this.end(span, event.ts);
  }

  private start(run: Run, key: string, name: string, ts: string, attrs: Attributes, _parent: Span, kind: SpanKind = SpanKind.INTERNAL): Span {
    const parent = _parent.spanContext();
    this.ids.traceId = run.traceId;
    this.ids.spanId = hex(`${run.traceId}:${key}`, 16);
    return this.tracer.startSpan(name, { kind, attributes: attrs, startTime: new Date(ts) }, trace.setSpanContext(ROOT_CONTEXT, parent));
  }

  private startUnder(traceId: string, key: string, name: string, ts: string, attrs: Attributes): Span {
    this.ids.traceId = traceId;
    this.ids.spanId = hex(`${traceId}:${key}`, 16);
    const root = { traceId, spanId: hex(`${traceId}:run`, 16), traceFlags: TraceFlags.SAMPLED };
    return this.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes: attrs, startTime: new Date(ts) }, trace.setSpanContext(ROOT_CONTEXT, root));
  }

  private end(span: Span, ts: string): void {
    span.end(new Date(ts));
  }
}

/** A tracer that makes no spans: following a plan's events only to know its runs. */
const NO_SPANS = { startSpan: () => trace.wrapSpanContext(INVALID_SPAN_CONTEXT) } as unknown as Tracer;

/**
 * The trace id of a plan's current or last run, kept up to date from the events after the last
 * ones it read: the console asks at every refresh of a plan, and must not read its whole history.
 */
export class TraceIdFollower {
  private readonly spans: RunSpans;
  seq = 0;

  constructor(planId: string) {
    this.spans = new RunSpans(NO_SPANS, new DerivedIds(), { planId, name: '', profile: null, project: null, agent: null }, false);
  }

  follow(events: readonly StreamEvent[]): void {
    for (const event of events) {
      if (event.seq <= this.seq) continue;
      this.seq = event.seq;
      // Only a state change starts or ends a run.
      if (event.type === 'state_changed') this.spans.push(event);
    }
  }

  get traceId(): string | null {
    return this.spans.traceId;
  }
}
