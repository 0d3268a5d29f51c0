import { Option } from 'commander';
import { ValidationError } from '../../../shared/errors';
import { otlpTarget } from '../../app/telemetry/otlp';
import { jsonOption, positiveCount, type Register } from '../options';
import { runCommand } from '../run-command';

/** `agents plan trace`: a past run's spans rebuilt from its stored events, sent to the collector or printed as OTLP JSON. */
export const planTraceCommands = {
  trace: (plan, ctx) =>
    plan
      .command('trace <id>')
      .description("rebuild a plan's runs as OpenTelemetry traces from its stored events and send them to the OTLP collector (--json: print them)")
      .addOption(new Option('--run <n>', 'only run N (1 is the first)').argParser(positiveCount('--run')))
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: { json?: boolean; run?: number }) => {
          const app = await ctx.app();
          const plan = await app.service.get(id);
          const settings = app.settings.read();
          const target = otlpTarget(ctx.io.env, settings);
          if (!opts.json && !target) throw new ValidationError('otlpEndpoint', 'traces have nowhere to go: set OTEL_EXPORTER_OTLP_ENDPOINT, or `agents config set otlpEndpoint URL`; or print them with --json');
          const { replayTrace, sendSpans, otlpJson } = await import('../../app/telemetry/plan-traces');
          const events = await app.service.events.log.list(id);
          const trace = await replayTrace(plan, events, { run: opts.run, captureContent: target?.captureContent ?? settings.otlpCaptureContent ?? false, serviceName: target?.serviceName ?? 'cleveragents' });
          if (opts.run !== undefined && !trace.traceIds.has(opts.run)) throw new ValidationError('--run', `plan ${id} has ${trace.runs.length} run${trace.runs.length === 1 ? '' : 's'}`);
          const runs = [...trace.traceIds].filter(([run]) => opts.run === undefined || run === opts.run).map(([run, traceId]) => ({ run, traceId }));
          if (opts.json) return { json: otlpJson(trace.spans) };
          await sendSpans(target!, trace.spans);
          return {
            json: { planId: id, spans: trace.spans.length, runs },
            text: () => `${runs.map((r) => `run ${r.run}: trace ${r.traceId}`).join('\n') || 'no runs yet'}\nsent ${trace.spans.length} spans to ${target!.url}\n`,
          };
        }),
      ),
} satisfies Record<string, Register>;
