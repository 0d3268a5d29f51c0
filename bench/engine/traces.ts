import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LiveTraces } from '../../main/app/telemetry/plan-traces';
import { otlpTarget } from '../../main/app/telemetry/otlp';
import type { Benchmark } from '../bench-result';
import { contents, engineRun } from './executor';
import { paired, ratioFigure } from './util';

const REPS = Number(process.env.BENCH_EXECUTOR_REPS ?? 5);
const RATIO_BUDGET = 1.1;

/**
 * The executor's 10,000 file.write calls with live traces on, sent over OTLP/HTTP (protobuf) to a
 * receiver on 127.0.0.1, against the same run with export off. Only the run is timed: the spans go
 * out batched, off its path, and the last batch is flushed after it.
 */
export const tracesBenchmark: Benchmark = {
  name: 'traces',
  async run() {
    let spans = 0;
    const receiver = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => (spans += chunk.length > 0 ? 1 : 0));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const target = otlpTarget({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}` }, {})!;
    try {
      const files = contents();
      const runs = await paired(
        REPS,
        async () => (await engineRun(files, undefined, (events, lifecycle) => LiveTraces.start(target, events, (id) => lifecycle.getPlan(id), () => undefined))).ms,
        async () => (await engineRun(files)).ms,
      );
      const { ratio, figure, details } = ratioFigure(runs);
      return [{ name: `traces: executor's ${files.length.toLocaleString('en')} calls, export on vs off`, figure, budget: `<= ${RATIO_BUDGET}`, pass: ratio <= RATIO_BUDGET, details: { ...details, exportRequests: spans } }];
    } finally {
      receiver.close();
    }
  },
};
