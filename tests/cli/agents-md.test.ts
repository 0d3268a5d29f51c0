// The project's AGENTS.md reaches the model: the request to a scripted model server carries it in
// strategize, and a step that works in a sub-folder gets the closer one; `instructions: false` turns it off.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inProcessCli } from '../../main/cli/test-support';
import { isStrategize } from '../support/scripted-agent';
import { type ChatRequest, ScriptedModelServer } from '../support/scripted-model-server';

const server = new ScriptedModelServer();
beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = { timeout: 120_000 };
const ROOT_RULES = 'Use tabs for indentation. Run `make check` before finishing.';
const WEB_RULES = 'In web/, every component has a story next to it.';

/** A project with an AGENTS.md at its root and a closer one in web/, and an agent plan over it. */
function project(agent: string, rootRules = ROOT_RULES): string {
  const dir = mkdtempSync(join(tmpdir(), 'agents-md-'));
  const root = join(dir, 'project');
  mkdirSync(join(root, 'web'), { recursive: true });
  writeFileSync(join(root, 'AGENTS.md'), `# Rules\n\n${rootRules}\n`);
  writeFileSync(join(root, 'web', 'AGENTS.md'), `# Web rules\n\n${WEB_RULES}\n`);
  writeFileSync(join(root, 'web', 'button.ts'), 'export const button = 1;\n');
  writeFileSync(join(dir, 'plan.yaml'), `name: rules\nproject: ./project\nagent: ${agent}\ndefinitionOfDone: |\n  - Both steps are done\n`);
  return join(dir, 'plan.yaml');
}

/** Two steps: one at the root (no calls proposed) and one whose proposed call writes in web/. */
function respond(request: ChatRequest) {
  if (isStrategize(request)) {
    const steps = [
      { description: 'Look at the root', rationale: 'asked', acceptance: 'looked' },
      { description: 'Add a story for the button', rationale: 'asked', acceptance: 'it exists', toolCalls: [{ tool: 'file.write', args: { path: 'web/button.stories.ts', content: 'x' } }] },
    ];
    return { toolCalls: [{ name: 'propose_plan', args: { steps } }] };
  }
  return { toolCalls: [{ name: 'finish_step', args: { summary: 'Done.' } }] };
}

const said = (request: ChatRequest) => request.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');

async function run(agent: string, rootRules?: string) {
  const { agents } = inProcessCli();
  for (const [key, value] of [['model', 'openai-compatible:scripted'], ['baseUrl', server.baseUrl], ['apiKey', 'k']]) expect((await agents('config', 'set', key, value)).code).toBe(0);
  server.respondWith(respond);
  const id = (await agents('plan', 'create', project(agent, rootRules), '--profile', 'full-auto')).stdout.trim();
  const ran = await agents('plan', 'run', id);
  expect(ran.code, ran.stderr).toBe(0);
  const strategize = server.requests.filter(isStrategize);
  const steps = server.requests.filter((r) => !isStrategize(r));
  expect(strategize.length).toBeGreaterThan(0);
  expect(steps).toHaveLength(2);
  return { strategize: said(strategize[0]), rootStep: said(steps[0]), webStep: said(steps[1]) };
}

describe("the project's AGENTS.md", () => {
  it('is in the request of strategize and of a step at the root, and a step in web/ gets web/AGENTS.md instead', LONG, async () => {
    const { strategize, rootStep, webStep } = await run('true');
    expect(strategize).toContain(`from AGENTS.md (follow them where they apply)`);
    expect(strategize).toContain(ROOT_RULES);
    expect(rootStep).toContain(ROOT_RULES);
    // The closest one wins.
    expect(webStep).toContain('from web/AGENTS.md');
    expect(webStep).toContain(WEB_RULES);
    expect(webStep).not.toContain(ROOT_RULES);
  });

  it('is cut at its size budget, saying how much was left out', LONG, async () => {
    const long = `${'Keep every line short. '.repeat(500)}THE END`;
    const { strategize } = await run('true', long);
    expect(strategize).toContain('Keep every line short.');
    expect(strategize).not.toContain('THE END');
    expect(strategize).toMatch(/… \(\d+ more characters of AGENTS\.md not shown\)/);
  });

  it('is not given with `agent: { instructions: false }`', LONG, async () => {
    const { strategize, rootStep, webStep } = await run('{ instructions: false }');
    for (const text of [strategize, rootStep, webStep]) {
      expect(text).not.toContain(ROOT_RULES);
      expect(text).not.toContain(WEB_RULES);
    }
  });
});
