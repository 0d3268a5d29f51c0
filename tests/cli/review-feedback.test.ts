import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PlanSchema } from '../../shared/domain';
import { inProcessCli } from '../../main/cli/test-support';
import { REVIEW_FEEDBACK_BUDGET } from '../../main/engine/model/review-feedback';
import { fileWritingAgent, isStrategize, stepOf } from '../support/scripted-agent';
import { type ChatRequest, ScriptedModelServer } from '../support/scripted-model-server';

const server = new ScriptedModelServer();
beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const LONG = { timeout: 120_000 };

/** `count` lines of text; `changed` lines (0-based) say so, far enough apart to be hunks of their own. */
function lines(count: number, changed: readonly number[] = []): string {
  return `${Array.from({ length: count }, (_, i) => (changed.includes(i) ? `line ${i} rewritten by the agent` : `line ${i} as the project has it`)).join('\n')}\n`;
}

/** A project with README.md of `count` lines, and an agent plan whose definition of done names `files`. */
function project(count: number, files: readonly string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'agents-review-'));
  mkdirSync(join(dir, 'project'));
  writeFileSync(join(dir, 'project', 'README.md'), lines(count));
  writeFileSync(join(dir, 'plan.yaml'), `name: review\nproject: ./project\nagent: {}\ndefinitionOfDone: |\n${files.map((f) => `  - ${f} is written\n`).join('')}`);
  return join(dir, 'plan.yaml');
}

/** The first message of a step's conversation: its prompt. */
const promptOf = (request: ChatRequest) => String(request.messages.find((m) => m.role === 'user')?.content ?? '');
const stepRequests = (step: string) => server.requests.filter((r) => !isStrategize(r) && stepOf(r) === step);

async function setUp(files: Record<string, string>) {
  const cli = inProcessCli();
  const { agents } = cli;
  for (const [key, value] of [['model', 'openai-compatible:scripted'], ['baseUrl', server.baseUrl], ['apiKey', 'test-key']]) {
    expect((await agents('config', 'set', key, value)).code).toBe(0);
  }
  server.respondWith(fileWritingAgent(files));
  const show = async (id: string) => PlanSchema.parse(JSON.parse((await agents('plan', 'show', id, '--json')).stdout));
  return { ...cli, show };
}

describe('the review reaches the model', () => {
  it('a correction of a plan ready to apply is told the declined hunk, its reason and the files edited by hand', LONG, async () => {
    const { agents, show } = await setUp({ 'README.md': lines(30, [1, 25]) });
    const id = (await agents('plan', 'create', project(30, ['README.md']), '--profile', 'full-auto')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(0);
    expect((await show(id)).phase).toBe('apply');

    const declined = await agents('plan', 'reject-hunks', id, 'README.md:2', '--reason', 'keep line 25 as it was');
    expect(declined.stderr).toBe('');
    expect(declined.stdout.trim()).toBe('1 hunk declined; 1 hunk declined in all');
    const stored = (await show(id)).rejectedHunks ?? [];
    expect(stored).toMatchObject([{ path: 'README.md', hunk: 2, reason: 'keep line 25 as it was' }]);
    expect(stored[0].lines).toContain('+line 25 rewritten by the agent');

    // The operator's own change in the sandbox.
    writeFileSync(join((await show(id)).sandboxRefs[0], 'NOTES.md'), 'my own notes\n');

    const before = server.requests.length;
    const corrected = await agents('plan', 'correct', id, '--note', 'leave the footer alone');
    expect(corrected.code, corrected.stderr).toBe(0);
    const prompt = promptOf(server.requests.slice(before).find((r) => !isStrategize(r))!);
    expect(prompt).toContain('declined these hunks');
    expect(prompt).toContain('README.md, hunk 2 (reason: keep line 25 as it was)');
    expect(prompt).toContain('+line 25 rewritten by the agent');
    expect(prompt).not.toContain('+line 1 rewritten by the agent');
    expect(prompt).toContain('The operator edited these files by hand; keep their edits: NOTES.md.');
    expect(prompt).toContain("The operator's note: leave the footer alone");
  });

  it('a step that starts after the review is told of it too', LONG, async () => {
    const { agents } = await setUp({ 'README.md': lines(30, [1, 25]), 'CHANGES.md': 'the changes\n' });
    const writer = fileWritingAgent({ 'README.md': lines(30, [1, 25]), 'CHANGES.md': 'the changes\n' });
    let failed = false;
    // The second step's first request fails once: the plan stops between the steps.
    server.respondWith((request, index) => {
      if (!failed && stepOf(request) === 'Write CHANGES.md') {
        failed = true;
        return { status: 400 };
      }
      return writer(request, index);
    });
    const id = (await agents('plan', 'create', project(30, ['README.md', 'CHANGES.md']), '--profile', 'full-auto')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(1);
    expect((await agents('plan', 'reject-hunks', id, 'README.md:1', '--reason', 'the first line stays')).code).toBe(0);

    expect((await agents('plan', 'retry', id)).code).toBe(0);
    const later = stepRequests('Write CHANGES.md');
    expect(promptOf(later[0])).not.toContain('declined these hunks');
    expect(promptOf(later.at(-1)!)).toContain('README.md, hunk 1 (reason: the first line stays)');
    expect(promptOf(later.at(-1)!)).toContain('+line 1 rewritten by the agent');
  });

  it('a replan by the model is told of the review: its new proposal is asked with the declined hunk and the hand edits', LONG, async () => {
    const { agents, show } = await setUp({ 'README.md': lines(30, [1, 25]), 'CHANGES.md': 'the changes\n' });
    const writer = fileWritingAgent({ 'README.md': lines(30, [1, 25]), 'CHANGES.md': 'the changes\n' });
    // The second step's requests fail: the plan stops after the first step, with changes to review.
    server.respondWith((request, index) => (stepOf(request) === 'Write CHANGES.md' ? { status: 400 } : writer(request, index)));
    const id = (await agents('plan', 'create', project(30, ['README.md', 'CHANGES.md']), '--profile', 'full-auto')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(1);
    expect((await agents('plan', 'reject-hunks', id, 'README.md:2', '--reason', 'keep line 25 as it was')).code).toBe(0);
    writeFileSync(join((await show(id)).sandboxRefs[0], 'NOTES.md'), 'my own notes\n');

    expect((await agents('plan', 'replan', id)).code).toBe(0);
    const before = server.requests.length;
    await agents('plan', 'run', id);
    const proposal = server.requests.slice(before).filter(isStrategize);
    expect(proposal.length).toBeGreaterThan(0);
    const prompt = promptOf(proposal[0]);
    expect(prompt).toContain('the operator asked for new steps');
    expect(prompt).toContain('README.md, hunk 2 (reason: keep line 25 as it was)');
    expect(prompt).toContain('+line 25 rewritten by the agent');
    expect(prompt).toContain('The operator edited these files by hand; keep their edits: NOTES.md.');
  });

  it('many declined hunks stay within the size budget, the rest counted', LONG, async () => {
    const changed = Array.from({ length: 30 }, (_, i) => i * 10 + 5);
    const { agents } = await setUp({ 'README.md': lines(300, changed) });
    const id = (await agents('plan', 'create', project(300, ['README.md']), '--profile', 'full-auto')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(0);
    const all = changed.map((_, i) => i + 1).join(',');
    expect((await agents('plan', 'reject-hunks', id, `README.md:${all}`, '--reason', 'x'.repeat(900))).stdout).toContain('30 hunks declined');

    const before = server.requests.length;
    expect((await agents('plan', 'correct', id)).code).toBe(0);
    const prompt = promptOf(server.requests.slice(before).find((r) => !isStrategize(r))!);
    const start = prompt.indexOf('The operator reviewed the changes and declined');
    const end = prompt.indexOf('The operator reviewed what this step changed');
    expect(start).toBeGreaterThan(0);
    expect(end - start).toBeLessThanOrEqual(REVIEW_FEEDBACK_BUDGET.chars + 2);
    expect(prompt).toMatch(/… and (2[2-9]) more declined hunks in 1 file, not shown\./);
    // The newest verdicts first: the last hunk is shown.
    expect(prompt).toContain('README.md, hunk 30 (reason: xxx');
  });

  it('reject-hunks refuses a file or hunk the review does not have with one line, exit 2, and records nothing', LONG, async () => {
    const { agents, show } = await setUp({ 'README.md': lines(30, [1, 25]) });
    const id = (await agents('plan', 'create', project(30, ['README.md']), '--profile', 'full-auto')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(0);
    const cases: [string[], RegExp][] = [
      [['NOPE.md:1'], /does not change "NOPE\.md"/],
      [['README.md:3'], /"README\.md" has 2 hunks; there is no hunk 3/],
      [['README.md:1', 'NOPE.md:1'], /does not change "NOPE\.md"/],
      [['README.md'], /"README\.md" is not FILE:N\[,N\.\.\.\]/],
      [['README.md:0'], /"README\.md:0" is not FILE:N/],
    ];
    for (const [specs, message] of cases) {
      const ran = await agents('plan', 'reject-hunks', id, ...specs);
      expect(ran.code, specs.join(' ')).toBe(2);
      expect(ran.stderr.trim().split('\n'), specs.join(' ')).toHaveLength(1);
      expect(ran.stderr).toMatch(message);
    }
    expect((await show(id)).rejectedHunks ?? []).toEqual([]);
  });

  it('apply with nothing named leaves the declined hunks out, as the console does, and refuses when only declined ones are left', LONG, async () => {
    const { agents, show } = await setUp({ 'README.md': lines(30, [1, 25]) });
    const plan = project(30, ['README.md']);
    const id = (await agents('plan', 'create', plan, '--profile', 'full-auto')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(0);
    expect((await agents('plan', 'reject-hunks', id, 'README.md:2', '--reason', 'not this one')).code).toBe(0);

    const applied = await agents('plan', 'apply', id);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('1 file remains');
    const written = readFileSync(join(plan, '..', 'project', 'README.md'), 'utf8');
    expect(written).toContain('line 1 rewritten by the agent');
    expect(written).toContain('line 25 as the project has it');

    const correct = await agents('plan', 'correct', id);
    expect(correct.code).toBe(2);
    expect(correct.stderr).toMatch(/is partly applied; the agent can correct it only before anything is applied/);

    const again = await agents('plan', 'apply', id);
    expect(again.code).toBe(2);
    expect(again.stderr.trim()).toBe(`error: hunks: every change left in plan ${id} is declined: agents plan reject-hunks ${id} FILE:N --restore to accept one, or agents plan discard ${id}`);
    expect((await show(id)).phase).toBe('apply');
  });

  it('declining one of two hunks that add the same line leaves out that one, and applies the other', LONG, async () => {
    const base = lines(30).split('\n');
    // The agent adds the same line twice, far apart: two hunks with the same change.
    const twice = [...base.slice(0, 2), 'ADDED', ...base.slice(2, 26), 'ADDED', ...base.slice(26)].join('\n');
    const { agents, show } = await setUp({ 'README.md': twice });
    const plan = project(30, ['README.md']);
    const id = (await agents('plan', 'create', plan, '--profile', 'full-auto')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(0);
    const diff = (await agents('plan', 'diff', id)).stdout;
    expect(diff.match(/^\+ADDED$/gm)).toHaveLength(2);

    expect((await agents('plan', 'reject-hunks', id, 'README.md:2')).code).toBe(0);
    const applied = await agents('plan', 'apply', id);
    expect(applied.code, applied.stderr).toBe(0);
    const written = readFileSync(join(plan, '..', 'project', 'README.md'), 'utf8').split('\n');
    expect(written.slice(0, 4)).toEqual(['line 0 as the project has it', 'line 1 as the project has it', 'ADDED', 'line 2 as the project has it']);
    expect(written.filter((l) => l === 'ADDED')).toHaveLength(1);
    // The declined one is still declined: nothing else is left to apply.
    const again = await agents('plan', 'apply', id);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is declined');
    expect((await show(id)).rejectedHunks?.map((r) => r.hunk)).toEqual([2]);
  });

  it('--restore takes a hunk out of the declined ones', LONG, async () => {
    const { agents, show } = await setUp({ 'README.md': lines(30, [1, 25]) });
    const id = (await agents('plan', 'create', project(30, ['README.md']), '--profile', 'full-auto')).stdout.trim();
    expect((await agents('plan', 'run', id)).code).toBe(0);
    await agents('plan', 'reject-hunks', id, 'README.md:1,2');
    const restored = await agents('plan', 'reject-hunks', id, 'README.md:1', '--restore');
    expect(restored.stdout.trim()).toBe('1 hunk restored; 1 hunk declined in all');
    expect((await show(id)).rejectedHunks?.map((r) => r.hunk)).toEqual([2]);
    expect(readFileSync(join((await show(id)).sandboxRefs[0], 'README.md'), 'utf8')).toContain('line 25 rewritten');
  });
});
