// Verify before apply (README.md, "Verify"), as an operator meets it at the command line: checks
// run confined in the sandbox after execute, each criterion gets a verdict, a failed check stops
// apply until confirmed, an edit makes the verdicts stale, and the agent fixes a failed check.
import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanChecksViewSchema } from '../../shared/checks';
import { openApp } from '../../main/app/open-app';
import { isStrategize, stepOf, toolResults } from '../support/scripted-agent';
import { ScriptedModelServer, transcript } from '../support/scripted-model-server';
import { agents } from './cli-harness';

const LONG = { timeout: 300_000 };

/** A project folder with a README, a data directory, and a plan file over the project. */
function workspace(plan: string): { home: string; project: string; file: string } {
  const base = mkdtempSync(join(tmpdir(), 'agents-verify-'));
  const project = join(base, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  const file = join(base, 'plan.yaml');
  writeFileSync(file, plan);
  return { home: join(base, 'home'), project, file };
}

async function created(file: string, home: string, env: Record<string, string> = {}): Promise<string> {
  const result = await agents(['plan', 'create', file], home, env);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim();
}

async function checksOf(id: string, home: string) {
  const result = await agents(['plan', 'checks', id, '--json'], home);
  expect(result.code, result.stderr).toBe(0);
  return PlanChecksViewSchema.parse(JSON.parse(result.stdout));
}

const LICENSE_PLAN = (extraChecks: string) => `
name: licence
project: ./project
verify:
  - { name: licence is MIT, run: "grep -q MIT LICENSE" }
${extraChecks}
definitionOfDone:
  - step: Create the licence file
    check: test -s LICENSE
    tools:
      - tool: file.write
        args: { path: LICENSE, content: "MIT" }
  - step: Mention the licence in the README
    check: grep -q LICENSE README.md
    tools:
      - tool: file.edit
        args: { path: README.md, find: "# Demo", replace: "# Demo\\n\\nSee LICENSE." }
  - Review the result
`;

describe('verify before apply at the command line', () => {
  it('runs the checks after execute, gives each criterion a verdict with its evidence, and applies', LONG, async () => {
    const { home, project, file } = workspace(LICENSE_PLAN(''));
    const id = await created(file, home);
    const run = await agents(['plan', 'run', id, '--stream'], home);
    expect(run.code, run.stderr).toBe(0);
    // Each check streams as it runs, after the steps.
    expect(run.stdout).toMatch(/^check 1 of 3: licence is MIT \$ grep -q MIT LICENSE$/m);
    expect(run.stdout).toMatch(/^check licence is MIT passed in /m);
    expect(run.stdout).toMatch(/^check 3 of 3: grep -q LICENSE README\.md \(Mention the licence in the README\)$/m);
    expect(run.stdout).toMatch(/^Checks: 3 of 4 passed, 1 not checked$/m);
    expect(run.stderr).toContain('Ready to apply');

    const show = await agents(['plan', 'show', id], home);
    expect(show.stdout).toMatch(/checks: +3 of 4 passed, 1 not checked/);

    const view = await checksOf(id, home);
    expect(view.summary).toMatchObject({ total: 4, passed: 3, failed: 0, notChecked: 1, failedChecks: [], stale: false });
    // A bullet with no command is "not checked", never counted as passed.
    expect(view.criteria.map((c) => [c.kind, c.text, c.verdict, c.evidence.map((e) => e.name)])).toEqual([
      ['done', 'Create the licence file', 'passed', ['test -s LICENSE']],
      ['done', 'Mention the licence in the README', 'passed', ['grep -q LICENSE README.md']],
      ['done', 'Review the result', 'not checked', []],
      ['check', 'licence is MIT', 'passed', ['licence is MIT']],
    ]);
    for (const result of view.results) {
      expect(result).toMatchObject({ exitCode: 0, passed: true, timedOut: false, refused: null, confinement: 'bwrap-nobody' });
      expect(result.outputPath).toBe(join(home, 'checks', id, `${result.id}.log`));
      expect(existsSync(result.outputPath as string)).toBe(true);
    }
    const text = await agents(['plan', 'checks', id], home);
    expect(text.stdout).toMatch(/^ {2}not checked done 3: Review the result$/m);

    const apply = await agents(['plan', 'apply', id], home);
    expect(apply.code, apply.stderr).toBe(0);
    expect(readFileSync(join(project, 'LICENSE'), 'utf8')).toBe('MIT');
  });

  it('stops at apply when a check fails: refused without the confirmation, applied with it', LONG, async () => {
    const { home, project, file } = workspace(LICENSE_PLAN('  - { name: tests pass, run: "echo 1 of 2 tests failed; exit 1" }'));
    const id = await created(file, home);
    const run = await agents(['plan', 'run', id, '--stream'], home);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^tests pass: 1 of 2 tests failed$/m);
    expect(run.stdout).toMatch(/^check tests pass failed \(exit 1\) in /m);
    expect(run.stderr).toContain('Checks failed — check failed: "tests pass" exited with status 1: 1 of 2 tests failed');
    expect(run.stderr).toContain(`next: agents plan verify ${id}`);

    const refused = await agents(['plan', 'apply', id], home);
    expect(refused.code).toBe(2);
    expect(refused.stderr.trim()).toBe(`error: plan ${id}: check "tests pass" failed; apply with --accept-failed-checks to apply anyway`);
    expect(existsSync(join(project, 'LICENSE'))).toBe(false);

    const errors = await agents(['plan', 'errors', id, '--json'], home);
    expect(JSON.parse(errors.stdout).errors.at(-1)).toMatchObject({ category: 'verification', retriable: false, phase: 'apply' });
    const shown = JSON.parse((await agents(['plan', 'show', id, '--json'], home)).stdout);
    expect(shown.status).toBe('Checks failed');
    expect(shown.actions.find((a: { id: string }) => a.id === 'apply')).toMatchObject({ allowed: true, confirm: expect.stringContaining('"tests pass"') });

    const accepted = await agents(['plan', 'apply', id, '--accept-failed-checks'], home);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(readFileSync(join(project, 'LICENSE'), 'utf8')).toBe('MIT');
  });

  it('refuses by the confinement a check that writes outside the sandbox or reaches the network, and stops one past its time limit', LONG, async () => {
    const listener: Server = createServer((socket) => socket.end('hello'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    let connections = 0;
    listener.on('connection', () => (connections += 1));
    const port = (listener.address() as { port: number }).port;
    try {
      const { home, project, file } = workspace('');
      const outside = join(project, '..', 'escaped.txt');
      const reach = `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', (e) => { console.log(e.code); process.exit(3) })"`;
      writeFileSync(
        file,
        `name: confined
project: ./project
verify:
  - { name: writes outside, run: "echo x > ${outside}" }
  - { name: reaches the network, run: ${JSON.stringify(reach)} }
  - { name: slow, run: "sleep 30", timeoutSeconds: 1 }
definitionOfDone: [Nothing to do]
`,
      );
      const id = await created(file, home);
      const started = Date.now();
      const run = await agents(['plan', 'run', id], home);
      expect(run.code).toBe(1);
      expect(Date.now() - started).toBeLessThan(25_000);
      const view = await checksOf(id, home);
      const byName = Object.fromEntries(view.results.map((r) => [r.name, r]));
      expect(byName['writes outside']).toMatchObject({ passed: false, confinement: 'bwrap-nobody' });
      expect(byName['writes outside'].exitCode).not.toBe(0);
      expect(existsSync(outside)).toBe(false);
      expect(byName['reaches the network']).toMatchObject({ passed: false, exitCode: 3 });
      expect(byName['reaches the network'].outputTail).toMatch(/ECONNREFUSED|ENETUNREACH|EADDRNOTAVAIL/);
      expect(connections).toBe(0);
      expect(byName.slow).toMatchObject({ passed: false, timedOut: true, exitCode: null, timeoutSeconds: 1 });
      expect(byName.slow.durationMs).toBeLessThan(10_000);
      const text = await agents(['plan', 'checks', id], home);
      expect(text.stdout).toContain('failed  slow ($ sleep 30): ran past its time limit of 1 s');
    } finally {
      listener.close();
    }
  });

  it('marks the verdicts stale after an operator edit, and runs the checks again before apply', LONG, async () => {
    const { home, project, file } = workspace(LICENSE_PLAN('  - { name: readme says MIT, run: "grep -q MIT README.md" }'));
    const id = await created(file, home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(1);

    // The operator fixes the README in the console's editor (plans.saveFile): the verdicts are stale at once.
    const app = await openApp({ dataDir: home, env: {} });
    try {
      await app.service.saveFile(id, 'README.md', '# Demo\n\nSee LICENSE (MIT).\n');
    } finally {
      app.close();
    }
    const stale = await checksOf(id, home);
    expect(stale.summary).toMatchObject({ stale: true, failedChecks: ['readme says MIT'] });
    const show = await agents(['plan', 'show', id], home);
    expect(show.stdout).toContain('(stale: they run again before apply)');

    // Apply needs no confirmation for a stale failure: the checks run again first, and pass.
    const apply = await agents(['plan', 'apply', id, '--stream'], home);
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/^check readme says MIT passed in /m);
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe('# Demo\n\nSee LICENSE (MIT).\n');
    expect((await checksOf(id, home)).summary).toMatchObject({ stale: false, failed: 0, failedChecks: [] });
  });

  it('marks the verdicts stale as soon as the operator edits the sandbox by hand, outside the console', LONG, async () => {
    const { home, file } = workspace(LICENSE_PLAN('  - { name: readme says MIT, run: "grep -q MIT README.md" }'));
    const id = await created(file, home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(1);
    expect((await checksOf(id, home)).summary).toMatchObject({ stale: false, failedChecks: ['readme says MIT'] });
    const shown = await agents(['plan', 'show', id, '--json'], home);
    const sandbox = (JSON.parse(shown.stdout) as { sandboxPath: string }).sandboxPath;

    // As the README's walkthrough says: fix the file in the sandbox (an editor, here a plain write).
    writeFileSync(join(sandbox, 'README.md'), '# Demo\n\nSee LICENSE (MIT).\n');
    const show = await agents(['plan', 'show', id], home);
    expect(show.stdout).toContain('(stale: they run again before apply)');
    const stale = await checksOf(id, home);
    expect(stale.summary).toMatchObject({ stale: true, failedChecks: ['readme says MIT'] });
    // The edit is the operator's change, as the console's editor records it.
    const diff = await agents(['plan', 'diff', id], home);
    expect(diff.stdout).toMatch(/README\.md.*Edited by you/);
  });

  it('runs the checks again on demand with agents plan verify', LONG, async () => {
    const { home, file } = workspace(LICENSE_PLAN('  - { name: marker present, run: "test -f MARKER" }'));
    const id = await created(file, home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(1);
    // Run and retry point to verify, the way on from failed checks (not to retry, which refuses them).
    const again = 'fix the cause and run the checks again';
    const run = await agents(['plan', 'run', id], home);
    expect([run.code, run.stderr.trim()]).toEqual([2, `error: plan ${id} is Checks failed; run needs a plan that is Ready to run; ${again}`]);
    const retry = await agents(['plan', 'retry', id], home);
    expect([retry.code, retry.stderr.trim()]).toEqual([2, `error: plan ${id}'s checks failed; ${again}`]);
    const sandbox = JSON.parse((await agents(['plan', 'show', id, '--json'], home)).stdout).sandboxPath as string;
    writeFileSync(join(sandbox, 'MARKER'), '');
    const verify = await agents(['plan', 'verify', id, '--stream'], home);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^Checks: 4 of 5 passed, 1 not checked$/m);
    expect(verify.stderr).toContain('Ready to apply');
  });
});

describe('the agent fixes a failed check', () => {
  const server = new ScriptedModelServer();
  beforeAll(async () => {
    await server.start();
  });
  afterAll(() => server.close());

  it('proposes a check with the step, is given the failing output by correct, and the checks pass after the correction', LONG, async () => {
    const env = { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '' };
    server.respondWith((request) => {
      if (isStrategize(request)) {
        const step = { description: 'Write NOTES.md', rationale: 'The definition of done asks for notes', acceptance: 'NOTES.md exists', check: 'test -f NOTES.md' };
        return { toolCalls: [{ name: 'propose_plan', args: { steps: [step] } }] };
      }
      expect(stepOf(request)).toBe('Write NOTES.md');
      // Told of the failed check, the model writes what it asks for.
      const content = transcript(request).includes('checks failed in the sandbox') ? '# Notes\n\nHello, reader.\n' : '# Notes\n';
      if (toolResults(request) === 0) return { toolCalls: [{ name: 'file_write', args: { path: 'NOTES.md', content } }] };
      return { toolCalls: [{ name: 'finish_step', args: { summary: 'Wrote NOTES.md.' } }] };
    });
    const { home, project, file } = workspace(`
name: notes
project: ./project
agent: true
verify:
  - { name: greets the reader, run: "grep -q Hello NOTES.md", criteria: 1 }
definitionOfDone: |
  - NOTES.md exists and greets the reader
`);
    const id = await created(file, home, env);
    const run = await agents(['plan', 'run', id], home, env);
    expect(run.code, run.stderr).toBe(3);
    // The model's check is shown on the proposed tree, and approved with it.
    expect(run.stderr).toContain('Check: $ test -f NOTES.md');
    const approve = await agents(['plan', 'approve', id], home, env);
    expect(approve.code).toBe(1);
    expect(approve.stderr).toContain('Checks failed');
    // An agent plan is also pointed to the agent.
    const rerun = await agents(['plan', 'run', id], home, env);
    expect(rerun.stderr).toContain('fix the cause and run the checks again, or ask the agent to fix it');
    const failed = await checksOf(id, home);
    expect(failed.criteria.map((c) => [c.kind, c.verdict])).toEqual([
      ['done', 'failed'],
      ['acceptance', 'passed'],
    ]);

    const correct = await agents(['plan', 'correct', id, '--note', 'say hello', '--stream'], home, env);
    expect(correct.code, correct.stderr).toBe(0);
    expect(correct.stdout).toMatch(/^check greets the reader passed in /m);
    const corrected = server.requests.at(-2) as Parameters<typeof transcript>[0];
    expect(transcript(corrected)).toContain('Check "greets the reader" ($ grep -q Hello NOTES.md) exited with status 1');
    expect(transcript(corrected)).toContain('say hello');
    expect((await checksOf(id, home)).summary).toMatchObject({ total: 2, passed: 2, failed: 0, stale: false });

    expect((await agents(['plan', 'apply', id], home, env)).code).toBe(0);
    expect(readFileSync(join(project, 'NOTES.md'), 'utf8')).toContain('Hello');
  });
});
