// Team mode: a worker runs the plan whose MCP server asks a question; the plan stops for it, the
// question is answered from a client (`plan approve --input`), and a worker runs the call again
// with the answer.
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresSuiteName, testPostgres, useFreshDatabase } from '../../main/persistence/postgres/test-support/database';
import { ROOT } from '../cli/cli-harness';
import { scriptedModelEnv } from '../cli/plan-files';
import { isStrategize, toolResults } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { Team } from './team-harness';

const EVERYTHING = join(ROOT, 'node_modules/.bin/mcp-server-everything');

describe.skipIf(!testPostgres().url)(postgresSuiteName("team mode: an MCP server's question answered from a client"), () => {
  const database = useFreshDatabase();
  const model = new ScriptedModelServer();
  let team: Team | undefined;
  beforeAll(async () => {
    await model.start();
    model.respondWith((request) => {
      if (isStrategize(request)) return { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Ask the operator', rationale: 'asked', acceptance: 'answered' }] } }] };
      if (toolResults(request) === 0) return { toolCalls: [{ name: 'everything_trigger-elicitation-request', args: {} }] };
      return { toolCalls: [{ name: 'finish_step', args: { summary: 'Asked.' } }] };
    });
  });
  afterAll(async () => {
    await team?.dispose();
    await model.close();
  });

  it('stops on the worker, is answered by a client with --input, and a worker runs the call with the answer', { timeout: 240_000 }, async () => {
    team = new Team(database.url(), scriptedModelEnv(model));
    const project = join(team.base, 'project');
    cpSync(join(ROOT, 'examples', 'demo-project'), project, { recursive: true });
    const file = join(team.base, 'elicit.yaml');
    writeFileSync(file, `name: elicit\nproject: ${JSON.stringify(project)}\nagent: true\nautomationProfile: { base: trusted, allow: ["everything.*"] }\ndefinitionOfDone: |\n  - It asked\nmcp:\n  servers:\n    everything: { command: ${JSON.stringify(EVERYTHING)}, args: [] }\n`);
    await team.worker('worker-a');
    const id = await team.create(file);
    expect((await team.agents(['plan', 'run', id])).code).toBe(3);
    const asked = await team.agents(['plan', 'approve', id]);
    expect(asked.code, asked.stderr).toBe(3);
    expect(asked.stderr).toContain('the MCP server "everything" asks: Please provide inputs for the following fields:');
    const answered = await team.agents(['plan', 'approve', id, '--input', '{"name": "Grace"}']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stderr).toContain('elicit: Ready to apply');
    const told = String(model.requests.filter((r) => !isStrategize(r)).at(-1)?.messages.filter((m) => m.role === 'tool').at(-1)?.content);
    expect(told).toContain('- Name: Grace');
    expect(told).toContain('- Favorite Integer: 42');
  });
});
