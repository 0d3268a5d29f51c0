import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { LiveTraces } from '../../main/app/telemetry/plan-traces';
import { otlpTarget } from '../../main/app/telemetry/otlp';
import { type Benchmark, median } from '../bench-result';
import { contents, engineRun } from './executor';
import { paired, ratioFigure } from './util';

const REPS = Number(process.env.BENCH_EXECUTOR_REPS ?? 5);
const RATIO_BUDGET = 1.1;

/** The OTLP protobuf schema (as tests/support/otlp-receiver.ts decodes it), to count the spans that arrived. */
const proto = createRequire(import.meta.url)('otlp-proto-root/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode(b: Uint8Array): { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] } } } } } } };
};

/**
 * The executor's 10,000 file.write calls with live traces on, sent over OTLP/HTTP (protobuf) to a
 * receiver on 127.0.0.1, against the same run with export off. Only the run is timed: the spans go
 * out batched, off its path, and the last batch is flushed after it. The receiver keeps the bodies
 * and decodes them after the last repetition (decoding in the timed run would charge it to export),
 * and the figure passes only if every run's spans arrived.
 */
export const tracesBenchmark: Benchmark = {
  name: 'traces',
  async run() {
    const bodies: Buffer[] = [];
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const target = otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` }, {})!;
    try {
      const files = contents();
      // CPU time (every thread of the process) beside the wall time: on a loaded machine the wall time says more of the neighbours than of export.
      const cpu = { on: [] as number[], off: [] as number[] };
      const timed = async (side: number[], run: () => Promise<{ ms: number }>) => {
        const before = process.cpuUsage();
        const { ms } = await run();
        const used = process.cpuUsage(before);
        side.push((used.user + used.system) / 1000);
        return ms;
      };
      const runs = await paired(
        REPS,
        () => timed(cpu.on, () => engineRun(files, undefined, (events, lifecycle) => LiveTraces.start(target, events, (id) => lifecycle.getPlan(id), () => undefined))),
        () => timed(cpu.off, () => engineRun(files)),
      );
      const { ratio, figure, details } = ratioFigure(runs);
      const cpuRatio = median(cpu.on.map((on, i) => on / cpu.off[i]!));
      const decode = proto.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.decode;
      const spans = bodies.reduce((n, body) => n + (decode(body).resourceSpans ?? []).flatMap((r) => r.scopeSpans ?? []).reduce((m, s) => m + (s.spans?.length ?? 0), 0), 0);
      // A tool span per call at least, in every repetition with export on.
      const produced = spans >= files.length * runs.subject.length;
      return [
        {
          name: `traces: executor's ${files.length.toLocaleString('en')} calls, export on vs off`,
          figure: `${figure}; CPU time ratio ${cpuRatio.toFixed(2)}; ${spans.toLocaleString('en')} spans received`,
          budget: `<= ${RATIO_BUDGET}, every call's span received`,
          pass: ratio <= RATIO_BUDGET && produced,
          details: { ...details, cpuRatioMedian: Number(cpuRatio.toFixed(3)), cpuOnMedianMs: Math.round(median(cpu.on)), cpuOffMedianMs: Math.round(median(cpu.off)), exportRequests: bodies.length, spansReceived: spans, spansPerRun: Math.round(spans / runs.subject.length) },
        },
      ];
    } finally {
      receiver.close();
    }
  },
};
