import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, agentsJson, ROOT, sandboxWorkspace } from './cli-harness';

const server = new ScriptedModelServer();
beforeAll(() => server.start());
afterAll(() => server.close());

// Every file of examples/ is used here as the README tells a newcomer to use it, so an example that
// no longer parses, or a new one nobody tried, fails `npm test`.
describe('every file in examples/', () => {
  const listed = readdirSync(join(ROOT, 'examples'));

  it('is known to this test', () => {
    expect(listed.sort()).toEqual(
      ['add-license.yaml', 'agent-changelog.yaml', 'agent-greeting.yaml', 'broken-docs.yaml', 'demo-project', 'flaky-network.yaml', 'generate-large-plan.cjs', 'large-refactor.yaml'].sort(),
    );
  });

  it.each(listed.filter((f) => /\.(ya?ml|json)$/.test(f)))('%s is created by `agents plan create` (agent plans with the scripted model)', { timeout: 60_000 }, async (file) => {
    const home = join(sandboxWorkspace().home);
    const examples = join(ROOT, 'examples');
    // The plan is created from the `agents demo` copy, as the README does it.
    const demo = await agents(['demo'], home);
    expect(demo.code, demo.stderr).toBe(0);
    const copy = demo.stdout.trim();
    expect(readFileSync(join(copy, file), 'utf8')).toBe(readFileSync(join(examples, file), 'utf8'));
    const model = { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '' };
    const created = await agents(['plan', 'create', join(copy, file)], home, model);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const plan = await agentsJson<{ name: string; projectPath: string; status: string }>(['plan', 'show', created.stdout.trim()], home);
    expect(plan).toMatchObject({ name: file.replace(/\.ya?ml$/, ''), projectPath: join(copy, 'demo-project'), status: 'Ready to run' });
  });

  it("agent-greeting.yaml's first check fails on the demo project as it is, and passes once greet() takes a greeting", async () => {
    const { home, examples } = sandboxWorkspace();
    const model = { AGENTS_MODEL: '', AGENTS_BASE_URL: '', AGENTS_API_KEY: '' };
    const created = await agents(['plan', 'create', join(examples, 'agent-greeting.yaml')], home, model);
    expect(created.code, created.stderr).toBe(0);
    const plan = await agentsJson<{ verify: { checks: { name: string; run: string }[] } }>(['plan', 'show', created.stdout.trim()], home);
    const check = plan.verify.checks.find((c) => c.name === 'greet takes a greeting');
    expect(check).toBeDefined();
    const project = join(examples, 'demo-project');
    const run = () => spawnSync('sh', ['-c', check!.run], { cwd: project }).status;
    expect(run()).toBe(1);
    const greet = join(project, 'src/greet.js');
    writeFileSync(greet, readFileSync(greet, 'utf8').replace("function greet(name) {\n  return 'Hello, ' + name + '!';", "function greet(name, greeting = 'Hello') {\n  return greeting + ', ' + name + '!';"));
    expect(run()).toBe(0);
  });

  it('generate-large-plan.cjs writes, in the demo copy, the large-refactor.yaml it holds, and a smaller one that is created', { timeout: 60_000 }, async () => {
    const { home } = sandboxWorkspace();
    const copy = (await agents(['demo'], home)).stdout.trim();
    execFileSync(process.execPath, [join(copy, 'generate-large-plan.cjs')]);
    expect(readFileSync(join(copy, 'large-refactor.yaml'), 'utf8')).toBe(readFileSync(join(ROOT, 'examples/large-refactor.yaml'), 'utf8'));
    execFileSync(process.execPath, [join(copy, 'generate-large-plan.cjs'), '4', '2']);
    const created = await agents(['plan', 'create', join(copy, 'large-refactor.yaml')], home);
    expect(created.code, created.stderr).toBe(0);
    const tree = await agentsJson<{ definitionOfDone: unknown[] }>(['plan', 'show', created.stdout.trim()], home);
    expect(tree.definitionOfDone).toHaveLength(4);
  });
});
