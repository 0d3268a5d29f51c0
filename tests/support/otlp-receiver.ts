import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { onTestFinished } from 'vitest';

/** The OTLP protobuf schema as OpenTelemetry's transformer once shipped it (a protobufjs root), to decode what the exporter sends. */
const proto = createRequire(import.meta.url)('otlp-proto-root/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode(b: Uint8Array): unknown; toObject(m: unknown, o: object): unknown } } } } } };
};

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  events: string[];
  /** The `service.name` of the process that sent it. */
  service: string;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
}

export type Answer = 'ok' | 500 | 'never';

/** A collector on 127.0.0.1 taking OTLP/HTTP in protobuf and JSON, keeping every span it decoded. */
export async function receiver(answer: Answer = 'ok'): Promise<{ url: string; spans: ReceivedSpan[]; requests: string[]; server: Server }> {
  const spans: ReceivedSpan[] = [];
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = req.headers['content-type'] ?? '';
      requests.push(`${req.url} ${type}`);
      if (answer === 'never') return;
      if (answer === 500) return void res.writeHead(500).end('down');
      const request = type.includes('json')
        ? (JSON.parse(body.toString('utf8')) as OtlpRequest)
        : (proto.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.toObject(proto.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.decode(body), { longs: String, bytes: String, defaults: false }) as OtlpRequest);
      const id = (v: string | undefined) => (!v ? '' : /^[0-9a-f]+$/.test(v) && (v.length === 32 || v.length === 16) ? v : Buffer.from(v, 'base64').toString('hex'));
      for (const rs of request.resourceSpans ?? []) {
        const service = String(valueOf(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value ?? {}) ?? '');
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: id(s.traceId),
              spanId: id(s.spanId),
              parentSpanId: id(s.parentSpanId),
              name: s.name,
              attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value ?? {})])),
              events: (s.events ?? []).map((e) => e.name),
              service,
              status: statusCode(s.status?.code),
            });
      }
      res.writeHead(200, { 'content-type': type }).end(type.includes('json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, spans, requests, server };
}
/** An OTLP AnyValue as a plain value (protobuf's 64-bit ints arrive as strings). */
function valueOf(value: { intValue?: unknown; [k: string]: unknown }): unknown {
  return 'intValue' in value ? Number(value.intValue) : Object.values(value)[0];
}
/** Protobuf's enum arrives by name (toObject without `enums`: its number), JSON's as a number. */
function statusCode(code: unknown): number {
  if (typeof code === 'number') return code;
  return code === 'STATUS_CODE_ERROR' ? 2 : code === 'STATUS_CODE_OK' ? 1 : Number(code ?? 0) || 0;
}
type OtlpAttribute = { key: string; value?: Record<string, unknown> };
export interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: { traceId?: string; spanId?: string; parentSpanId?: string; name: string; attributes?: OtlpAttribute[]; events?: { name: string }[]; status?: { code?: unknown } }[] }[];
  }[];
}

/** The tree as names under their parents, each span keyed by its id: what two exports of one run must share. */
export function tree(spans: ReceivedSpan[]): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const path = (s: ReceivedSpan): string => (s.parentSpanId && byId.has(s.parentSpanId) ? `${path(byId.get(s.parentSpanId)!)} > ` : '') + `${s.name}#${s.spanId}`;
  return spans.map((s) => `${s.traceId} ${path(s)}`).sort();
}

