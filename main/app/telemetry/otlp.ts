import { setGlobalErrorHandler } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Tracer } from '@opentelemetry/api';
import { ValidationError } from '../../../shared/errors';
import { DerivedIds } from './run-spans';

/** Where and how spans are sent, from the standard OTEL_* variables over the settings. */
export interface OtlpTarget {
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  serviceName: string;
  captureContent: boolean;
}

export interface TraceSettings {
  otlpEndpoint?: string;
  otlpHeaders?: string;
  otlpCaptureContent?: boolean;
}

/** `k=v,k2=v2` as OTEL_EXPORTER_OTLP_HEADERS spells it, values percent-decoded. */
export function parseOtlpHeaders(text: string | undefined, name = 'otlpHeaders'): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? '').split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    if (at <= 0) throw new ValidationError(name, 'must be name=value pairs separated by commas');
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

const nonEmpty = (v: string | undefined) => (v && v.trim() !== '' ? v.trim() : undefined);

/** The traces' target, or null when export is off (no endpoint anywhere). */
export function otlpTarget(env: NodeJS.ProcessEnv, settings: TraceSettings): OtlpTarget | null {
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) ?? nonEmpty(settings.otlpEndpoint);
  const url = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (!url) return null;
  const protocol = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') throw new ValidationError('OTEL_EXPORTER_OTLP_PROTOCOL', `"${protocol}" is not supported; use http/protobuf or http/json`);
  return {
    url,
    protocol,
    headers: { ...parseOtlpHeaders(settings.otlpHeaders), ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'), ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') },
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? 'cleveragents',
    captureContent: settings.otlpCaptureContent ?? false,
  };
}

/** OpenTelemetry's own OTLP/HTTP exporter for the target's protocol; loaded only when export is on. */
export async function otlpExporter(target: OtlpTarget): Promise<SpanExporter> {
  const config = { url: target.url, headers: target.headers, timeoutMillis: 5_000 };
  if (target.protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter(config);
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter(config);
}

/** A tracer whose span ids the mapping derives, over one processor. */
export interface TracePipeline {
  tracer: Tracer;
  ids: DerivedIds;
  provider: TracerProvider;
}

export function tracePipeline(serviceName: string, processor: SpanProcessor): TracePipeline {
  const ids = new DerivedIds();
  const provider = new TracerProvider({ resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }), idGenerator: ids, spanProcessors: [processor] });
  return { tracer: provider.getTracer('cleveragents'), ids, provider };
}

/** Batched, off the run's path: a run only queues its ended spans. */
export function batchProcessor(exporter: SpanExporter): SpanProcessor {
  return new BatchSpanProcessor({ exporter, scheduledDelayMillis: 1_000, maxQueueSize: 8_192, maxExportBatchSize: 512, exportTimeoutMillis: 5_000 });
}

/** A collector that is down or slow is said once, then nothing more: the run goes on regardless. */
export function warnOnce(warn: (line: string) => void, target: OtlpTarget): void {
  let said = false;
  setGlobalErrorHandler((error) => {
    if (said) return;
    said = true;
    const why = error instanceof Error ? error.message : String(error);
    warn(`warning: traces could not be sent to ${new URL(target.url).origin} (${why.split('\n')[0]}); runs go on, further failures are not reported`);
  });
}

/**
 * Whether `url` is the trace viewer's address for some trace: the `traceUrl` template with
 * `{traceId}` a trace id, over http(s). The desktop app opens only such a link in the browser.
 */
export function isTraceViewerLink(url: string, template: string | undefined): boolean {
  if (!template || !/^https?:\/\//i.test(url)) return false;
  const pattern = template.split('{traceId}').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[0-9a-f]{32}');
  return new RegExp(`^${pattern}$`).test(url);
}
