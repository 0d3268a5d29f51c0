import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { ATTR_GEN_AI_OPERATION_NAME, GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT } from '@opentelemetry/semantic-conventions/incubating';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import { traceIdOf } from '../../main/app/telemetry/run-spans';
import { receiver, tree } from '../support/otlp-receiver';
import { Team } from './team-harness';

/** Three steps; the second sleeps long enough to kill its worker in the middle of it. */
function slowPlan(project: string): string {
  return [
    'name: slow-traced',
    `project: ${JSON.stringify(project)}`,
    'automationProfile: trusted',
    'definitionOfDone:',
    '  - step: Write the first file',
    '    tools: [{ tool: file.write, args: { path: one.txt, content: "1\\n" } }]',
    '  - step: Take a while, then write the middle file',
    '    tools:',
    '      - { tool: shell.run, args: { command: "sleep 8" } }',
    '      - { tool: file.write, args: { path: middle.txt, content: "m\\n" } }',
    '  - step: Write the second file',
    '    tools: [{ tool: file.write, args: { path: two.txt, content: "2\\n" } }]',
    '',
  ].join('\n');
}

const ERROR = 2;

describe.skipIf(!testPostgres().url)(postgresSuiteName('team mode: the trace of a run two workers shared'), () => {
  const database = useFreshDatabase();
  let team: Team | undefined;
  afterEach(() => team?.dispose());

  it('a run taken over from a killed worker is one trace: both workers\' spans, the interrupted step failed, the second attempt under the run, as `plan trace` rebuilds it', async () => {
    const live = await receiver();
    team = new Team(database.url(), { OTEL_EXPORTER_OTLP_ENDPOINT: live.url });
    const project = join(team.base, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Demo\n');
    const file = join(team.base, 'slow.yaml');
    writeFileSync(file, slowPlan(project));
    // Each worker names itself as a service, so the receiver can tell whose spans it got.
    const workers = await Promise.all(['worker-a', 'worker-b'].map((name) => team!.worker(name, { env: { OTEL_SERVICE_NAME: name } })));
    const id = await team.create(file);
    const following = team.agents(['plan', 'run', id, '--stream']);
    await team.until('shell.run started', 60_000, async () => {
      const rows = await team!.query(`SELECT 1 FROM events WHERE plan_id = $1 AND type = 'tool_call_started' AND data->>'tool' = 'shell.run'`, [id]);
      return rows.length > 0 ? true : undefined;
    }, 200);
    const holder = workers.find((w) => w.ran().has(id))!;
    expect(holder, workers.map((w) => w.log()).join('\n')).toBeDefined();
    const other = workers.find((w) => w !== holder)!;
    // The first step's spans leave in the holder's next batch (a second after they end); then it dies mid-step.
    await team.until("the holder's first step exported", 10_000, async () => (live.spans.some((s) => s.service === holder.name && s.name === 'execute_tool file.write') ? true : undefined), 100);
    await team.query("UPDATE plan_leases SET hostname = 'another-machine', heartbeat_at = $2 WHERE plan_id = $1", [id, new Date().toISOString()]);
    holder.child.kill('SIGKILL');
    await holder.exited;

    await team.allReadyToApply([id], 90_000);
    expect((await following).code).toBe(0);
    expect(other.log()).toMatch(new RegExp(`plan ${id}: taken over`));
    const root = await team.until('the run span', 10_000, async () => live.spans.find((s) => s.parentSpanId === ''), 200);
    // The survivor's last batch: everything up to the end of the run.
    await team.until('the last step exported', 10_000, async () => (live.spans.some((s) => s.attributes['cleveragents.step.index'] === 3) ? true : undefined), 200);

    // One trace, derived from the plan and its run, made by both workers.
    expect(new Set(live.spans.map((s) => s.traceId))).toEqual(new Set([traceIdOf(id, 1)]));
    expect(new Set(live.spans.map((s) => s.service))).toEqual(new Set([holder.name, other.name]));
    expect(live.spans.filter((s) => s.parentSpanId === '')).toHaveLength(1);
    // The run's span was opened by the holder and closed by the taker, at the interruption.
    expect(root).toMatchObject({ name: 'invoke_workflow slow-traced', service: other.name, status: ERROR });
    expect(root.attributes['cleveragents.plan.status']).toBe('errored: interrupted');
    const attempt = live.spans.find((s) => s.attributes['cleveragents.plan.attempt'] === 2)!;
    expect(attempt).toMatchObject({ name: 'invoke_workflow slow-traced', parentSpanId: root.spanId, service: other.name });
    expect(attempt.attributes['cleveragents.plan.status']).toBe('ready to apply');

    const steps = live.spans.filter((s) => s.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT);
    const step = (index: number, parent: string) => steps.find((s) => s.attributes['cleveragents.step.index'] === index && s.parentSpanId === parent);
    expect(step(1, root.spanId)?.service).toBe(holder.name);
    // The step the holder died in: failed, interrupted, ended by the taker.
    expect(step(2, root.spanId)).toMatchObject({ service: other.name, status: ERROR, attributes: { [ATTR_ERROR_TYPE]: 'interrupted' } });
    expect(step(2, attempt.spanId)?.service).toBe(other.name);
    expect(step(3, attempt.spanId)?.service).toBe(other.name);
    const writes = live.spans.filter((s) => s.name === 'execute_tool file.write');
    expect(writes.map((w) => [steps.find((s) => s.spanId === w.parentSpanId)?.attributes['cleveragents.step.index'], w.service])).toEqual([
      [1, holder.name],
      [2, other.name],
      [3, other.name],
    ]);

    // After the fact, from the client: the same tree and trace.
    const later = await receiver();
    const replay = await team.agents(['plan', 'trace', id], { OTEL_EXPORTER_OTLP_ENDPOINT: later.url });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`run 1: trace ${traceIdOf(id, 1)}`);
    expect(tree(later.spans)).toEqual(tree(live.spans));
  }, 180_000);
});
