import { ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { Plan } from '../../../shared/domain';
import type { StreamEvent } from '../../../shared/events';
import type { EventLog, EventPublisher } from '../../engine/ports/event-stream';
import { batchProcessor, otlpExporter, type OtlpTarget, tracePipeline, warnOnce } from './otlp';
import { type PlanFacts, RunSpans } from './run-spans';

export function planFacts(plan: Plan): PlanFacts {
  return {
    planId: plan.id,
    name: plan.name,
    profile: plan.automationProfile.name,
    project: plan.projectPath ?? plan.projectSource?.git ?? null,
    agent: plan.acp ? { name: plan.acp.name, version: plan.acp.version } : null,
  };
}

/**
 * Live export: follows every plan's events as they are appended and hands the spans they end to a
 * batching processor. Off the run's path: a listener only queues, and nothing it does can fail a run.
 */
export class LiveTraces {
  private readonly plans = new Map<string, { spans: Promise<RunSpans | null>; chain: Promise<void> }>();
  private unsubscribe: (() => void) | null = null;

  private constructor(
    private readonly pipeline: ReturnType<typeof tracePipeline>,
    private readonly target: OtlpTarget,
    private readonly log: EventLog,
    private readonly planOf: (planId: string) => Promise<Plan>,
  ) {}

  static async start(target: OtlpTarget, events: EventPublisher, planOf: (planId: string) => Promise<Plan>, warn: (line: string) => void): Promise<LiveTraces> {
    warnOnce(warn, target);
    const live = new LiveTraces(tracePipeline(target.serviceName, batchProcessor(await otlpExporter(target))), target, events.log, planOf);
    live.unsubscribe = events.subscribe((event) => live.follow(event));
    return live;
  }

  private follow(event: StreamEvent): void {
    let entry = this.plans.get(event.planId);
    if (!entry) {
      // First sight of a plan here (a new plan, or one this process takes over): its earlier events set the run's place, exported by whoever saw them.
      const spans = this.primed(event.planId, event.seq);
      entry = { spans, chain: spans.then(() => undefined) };
      this.plans.set(event.planId, entry);
    }
    const { spans } = entry;
    entry.chain = entry.chain.then(async () => (await spans)?.push(event)).catch(() => undefined);
  }

  private async primed(planId: string, seq: number): Promise<RunSpans | null> {
    try {
      const mute = { on: true };
      const { tracer, ids } = this.pipeline;
      const spans = new RunSpans(muted(tracer, mute), ids, planFacts(await this.planOf(planId)), this.target.captureContent);
      if (seq > 1) for (const earlier of await this.log.list(planId, 0, seq - 1)) spans.push(earlier);
      mute.on = false;
      return spans;
    } catch {
      return null;
    }
  }

  /** Waits for what is queued to be sent, at most `ms`: a collector that never answers must not hold a process open. */
  async close(ms = 2_000): Promise<void> {
    this.unsubscribe?.();
    await Promise.all([...this.plans.values()].map((p) => p.chain));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.pipeline.provider.shutdown().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms)).unref())]);
    clearTimeout(timer);
  }
}

/**
 * A tracer whose spans are dropped while `mute.on`: the events before the first one this process
 * sees are replayed only to know the run and its open spans, not exported twice.
 */
function muted(tracer: ReturnType<typeof tracePipeline>['tracer'], mute: { on: boolean }): ReturnType<typeof tracePipeline>['tracer'] {
  return {
    startSpan: (name, options, context) => {
      const span = tracer.startSpan(name, options, context);
      if (!mute.on) return span;
      // Started while replaying: ended then, it was another process's to send; ended later, it is ours.
      return new Proxy(span, {
        get(target, key) {
          if (key === 'end') return (time?: Parameters<typeof span.end>[0]) => (mute.on ? undefined : target.end(time));
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
    startActiveSpan: tracer.startActiveSpan.bind(tracer),
  } as ReturnType<typeof tracePipeline>['tracer'];
}

/** The runs of a plan rebuilt from its stored events through the same mapping as live export. */
export async function replayTrace(plan: Plan, events: readonly StreamEvent[], options: { run?: number; captureContent: boolean; serviceName: string }) {
  const memory = new InMemorySpanExporter();
  const pipeline = tracePipeline(options.serviceName, new SimpleSpanProcessor({ exporter: memory }));
  const spans = new RunSpans(pipeline.tracer, pipeline.ids, planFacts(plan), options.captureContent);
  for (const event of events) spans.push(event);
  spans.finish();
  await pipeline.provider.forceFlush();
  const all = memory.getFinishedSpans();
  const runs = [...new Set(all.map((s) => Number(s.attributes['cleveragents.plan.run'] ?? 0)).filter((n) => n > 0))];
  const traceIds = new Map(all.filter((s) => !s.parentSpanContext).map((s) => [Number(s.attributes['cleveragents.plan.run']), s.spanContext().traceId]));
  const wanted = options.run === undefined ? null : traceIds.get(options.run);
  const chosen = options.run === undefined ? all : all.filter((s) => s.spanContext().traceId === wanted);
  return { spans: chosen, runs, traceIds };
}

/** Spans as one OTLP/JSON export request, as a collector would receive it. */
export function otlpJson(spans: ReadableSpan[]): unknown {
  const bytes = JsonTraceSerializer.serializeRequest(spans);
  return bytes ? JSON.parse(new TextDecoder().decode(bytes)) : { resourceSpans: [] };
}

/** Sends spans with OpenTelemetry's exporter; a failure is the command's error. */
export async function sendSpans(target: OtlpTarget, spans: ReadableSpan[]): Promise<void> {
  const exporter = await otlpExporter(target);
  try {
    const result = await new Promise<{ code: ExportResultCode; error?: Error }>((resolve) => exporter.export(spans, resolve));
    if (result.code !== ExportResultCode.SUCCESS) throw new Error(`the collector at ${target.url} did not take the spans: ${result.error?.message ?? 'export failed'}`);
  } finally {
    await exporter.shutdown();
  }
}
