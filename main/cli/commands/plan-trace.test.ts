import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_WORKFLOW_NAME,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
} from '@opentelemetry/semantic-conventions/incubating';
import { type OtlpRequest, receiver, tree } from '../../../tests/support/otlp-receiver';
import { runCli } from '../program';

function cli(extraEnv: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), 'agents-traces-'));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  const agents = async (env: Record<string, string>, ...args: string[]) => {
    const out = { stdout: '', stderr: '' };
    const started = performance.now();
    const code = await runCli(args, {
      stdout: (t) => void (out.stdout += t),
      stderr: (t) => void (out.stderr += t),
      isTTY: false,
      env: { AGENTS_HOME: home, AGENTS_RETRY_BASE_MS: '1', ...extraEnv, ...env },
    });
    return { code, ...out, ms: performance.now() - started };
  };
  return { home, agents };
}

async function scriptedRun(env: Record<string, string>) {
  const { home, agents } = cli(env);
  await agents({}, 'demo', join(home, 'demo'));
  const id = (await agents({}, 'plan', 'create', join(home, 'demo', 'add-license.yaml'))).stdout.trim();
  const run = await agents({}, 'plan', 'run', id);
  return { home, agents, id, run };
}

describe('traces of a plan run', () => {
  it('a scripted plan is exported live in the GenAI conventions, and `plan trace` rebuilds the same tree and trace id', async () => {
    const live = await receiver();
    const { id, run, agents } = await scriptedRun({ OTEL_EXPORTER_OTLP_ENDPOINT: live.url });
    expect(run.code, run.stderr).toBe(0);
    expect(live.requests[0]).toBe('/v1/traces application/x-protobuf');

    const root = live.spans.find((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW)!;
    expect(root.name).toBe('invoke_workflow add-license');
    expect(root.parentSpanId).toBe('');
    expect(root.attributes[ATTR_GEN_AI_WORKFLOW_NAME]).toBe('add-license');
    expect(root.attributes[ATTR_GEN_AI_CONVERSATION_ID]).toBe(id);
    expect(root.attributes['cleveragents.plan.status']).toBe('ready to apply');
    expect(new Set(live.spans.map((s) => s.traceId))).toEqual(new Set([root.traceId]));

    const plan = live.spans.find((s) => s.name === 'plan')!;
    expect(plan.parentSpanId).toBe(root.spanId);
    const steps = live.spans.filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT);
    expect(steps.map((s) => s.attributes['cleveragents.step.index'])).toEqual([1, 2, 3, 4, 5, 6]);
    expect(steps.every((s) => s.parentSpanId === root.spanId)).toBe(true);
    const tools = live.spans.filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
    expect(tools.map((t) => t.name)).toEqual(['execute_tool file.write', 'execute_tool file.edit', 'execute_tool file.edit', 'execute_tool file.rename', 'execute_tool file.edit', 'execute_tool file.edit', 'execute_tool shell.run']);
    const write = tools[0]!;
    expect(write.parentSpanId).toBe(steps[0]!.spanId);
    expect(write.attributes[ATTR_GEN_AI_TOOL_NAME]).toBe('file.write');
    expect(write.attributes[ATTR_GEN_AI_TOOL_TYPE]).toBe('function');
    expect(write.attributes[ATTR_GEN_AI_TOOL_CALL_ID]).toMatch(/^[0-9A-Z]{26}$/);
    // Content only when asked for.
    expect(tools.some((t) => ATTR_GEN_AI_TOOL_CALL_ARGUMENTS in t.attributes)).toBe(false);
    expect(steps[0]!.events).toContain('cleveragents.file.changed');
    expect(live.spans.find((s) => s.name === 'verify')?.parentSpanId).toBe(root.spanId);

    // After the fact, to a collector taking JSON: the same spans under the same ids.
    const later = await receiver();
    const replay = await agents({ OTEL_EXPORTER_OTLP_ENDPOINT: later.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 'plan', 'trace', id);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`run 1: trace ${root.traceId}`);
    expect(later.requests[0]).toBe('/v1/traces application/json');
    expect(tree(later.spans)).toEqual(tree(live.spans));

    const printed = await agents({}, 'plan', 'trace', id, '--json', '--run', '1');
    expect(printed.code, printed.stderr).toBe(0);
    const doc = JSON.parse(printed.stdout) as OtlpRequest;
    expect(doc.resourceSpans![0]!.scopeSpans![0]!.spans!.length).toBe(live.spans.length);
    expect((await agents({}, 'plan', 'trace', id, '--run', '2', '--json')).stderr).toContain('has 1 run');
  });

  it('tool arguments go only with otlpCaptureContent, with secrets hidden', async () => {
    const live = await receiver();
    const { home, agents } = cli({ OTEL_EXPORTER_OTLP_ENDPOINT: live.url });
    expect((await agents({}, 'config', 'set', 'otlpCaptureContent', 'on')).code).toBe(0);
    await agents({}, 'demo', join(home, 'demo'));
    const id = (await agents({}, 'plan', 'create', join(home, 'demo', 'add-license.yaml'))).stdout.trim();
    expect((await agents({}, 'plan', 'run', id)).code).toBe(0);
    const write = live.spans.find((s) => s.name === 'execute_tool file.write')!;
    expect(JSON.parse(String(write.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]))).toMatchObject({ path: 'LICENSE' });
  });

  it.each([[500 as const], ['never' as const]])('a collector answering %s changes nothing of the run but one warning line', async (answer) => {
    const down = await receiver(answer);
    const { run } = await scriptedRun({ OTEL_EXPORTER_OTLP_ENDPOINT: down.url });
    expect(run.code, run.stderr).toBe(0);
    expect(`${run.stdout}${run.stderr}`).toContain('Ready to apply');
    expect(run.stderr.split('\n').filter((l) => l.includes('traces')).length).toBeLessThanOrEqual(1);
    expect(run.ms).toBeLessThan(30_000);
  });

  it('the settings keep the headers secret', async () => {
    const { agents } = cli();
    expect((await agents({}, 'config', 'set', 'otlpHeaders', 'Authorization=Bearer s3cret,x-team=a')).code).toBe(0);
    const shown = await agents({}, 'config', 'get', 'otlpHeaders');
    expect(shown.stdout).toBe('Authorization=(set),x-team=(set)\n');
    expect((await agents({}, 'config', 'set', 'traceUrl', 'http://jaeger/trace')).stderr).toContain('{traceId}');
    expect((await agents({}, 'config', 'set', 'otlpEndpoint', 'not a url')).code).not.toBe(0);
  });
});
