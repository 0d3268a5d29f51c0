// file.search with a pattern that a backtracking engine would never finish, through the CLI as a
// subprocess: the model's search in strategize, and a scripted step's in execute.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { searchingAgent } from '../support/scripted-agent';
import { ScriptedModelServer, transcript } from '../support/scripted-model-server';
import { CATASTROPHIC_PATTERN, searchProject } from '../support/search-project';
import { agents } from './cli-harness';

const server = new ScriptedModelServer();
beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

// A CLI start takes seconds on a busy machine; a backtracking search would take longer than the universe.
const LONG = { timeout: 120_000 };
const PROMPT_MS = 60_000;

function workspace(planYaml: (project: string) => string): { home: string; file: string } {
  const base = mkdtempSync(join(tmpdir(), 'agents-cli-search-'));
  const project = join(base, 'project');
  searchProject(project, 500);
  const file = join(base, 'plan.yaml');
  writeFileSync(file, planYaml(project));
  return { home: join(base, 'home'), file };
}

describe('agents plan run: file.search with ^(a+)+$ over a line of 40 a and a !', () => {
  it('in strategize, the model gets the one matching line at once, and a backreference back as one line', LONG, async () => {
    const env = { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '' };
    server.respondWith(searchingAgent([CATASTROPHIC_PATTERN, '(a)\\1']));
    const { home, file } = workspace((project) => `name: search\nproject: ${JSON.stringify(project)}\nagent: true\nautomationProfile: full-auto\ndefinitionOfDone: "- Report the lines that are a run of a"\n`);
    const id = (await agents(['plan', 'create', file], home, env)).stdout.trim();
    const started = performance.now();
    const run = await agents(['plan', 'run', id, '--stream'], home, env);
    expect(performance.now() - started).toBeLessThan(PROMPT_MS);
    expect(run.code, run.stderr).toBe(0);
    const proposing = server.requests.find((r) => r.tools?.some((t) => t.function.name === 'propose_plan') && r.messages.filter((m) => m.role === 'tool').length === 2);
    expect(proposing).toBeDefined();
    const said = transcript(proposing as never);
    expect(said).toContain('strings.txt:2');
    expect(said).toContain('tool: file.search: args.pattern: "(a)\\\\1" is not a valid regular expression in RE2 syntax: backreferences');
  });

  it('in execute, a scripted step searches and the plan completes; a backreference fails its step with one line', LONG, async () => {
    const step = (pattern: string) => `definitionOfDone:\n  - step: Find the runs of a\n    tools:\n      - { tool: file.search, args: { pattern: ${JSON.stringify(pattern)} } }\n`;
    const { home, file } = workspace((project) => `name: search\nproject: ${JSON.stringify(project)}\n${step(CATASTROPHIC_PATTERN)}`);
    const id = (await agents(['plan', 'create', file], home)).stdout.trim();
    const started = performance.now();
    const run = await agents(['plan', 'run', id, '--stream'], home);
    expect(performance.now() - started).toBeLessThan(PROMPT_MS);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^file\.search ok in /m);

    const bad = workspace((project) => `name: search\nproject: ${JSON.stringify(project)}\n${step('(a)\\1')}`);
    const badId = (await agents(['plan', 'create', bad.file], bad.home)).stdout.trim();
    const failed = await agents(['plan', 'run', badId], bad.home);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('backreferences');
    expect(failed.stderr).not.toMatch(/internal/i);
    const errors = JSON.parse((await agents(['plan', 'errors', badId, '--json'], bad.home)).stdout) as { errors: { category: string; message: string }[] };
    expect(errors.errors[0]).toMatchObject({ category: 'validation' });
    expect(errors.errors[0].message).not.toContain('\n');
  });
});
