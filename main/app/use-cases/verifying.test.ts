import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stepsInOrder } from '../../../shared/decision-tree';
import { sandboxExecutorFactory } from '../executor-factory';
import { planApplying } from './applying';
import { planAuthoring } from './authoring';
import { planCheckpoints } from './checkpoints';
import { planFixing } from './fixing';
import { planReading } from './reading';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

/** Checks run for real: bubblewrap, real files, real SQLite (README.md, "Verify"). */
describe('verifying a plan in its sandbox', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  const world = async (yaml: string, prepare: (project: string) => void = () => undefined) => {
    h = useCaseHarness();
    prepare(h.project);
    const running = planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass);
    const plan = await planAuthoring(h.ctx).createFromContent({ content: `project: ${JSON.stringify(h.project)}\n${yaml}` }, h.root);
    return { plan, running, applying: planApplying(h.ctx, h.runs, planReading(h.ctx), h.verifying), fixing: planFixing(h.ctx, h.runs, running.run, h.verifying, planCheckpoints(h.ctx, h.runs)) };
  };

  it("runs the project's .agents/verify.yaml first, then the plan's, and undoes what a check writes", async () => {
    const { plan, running } = await world(['name: checked', 'verify:', '  - "echo built > build.txt"', 'definitionOfDone: [Nothing to do]', ''].join('\n'), (project) => {
      mkdirSync(path.join(project, '.agents'));
      writeFileSync(path.join(project, '.agents', 'verify.yaml'), 'verify:\n  - { name: readme exists, run: test -f README.md }\n');
    });
    expect(plan.verify?.checks.map((c) => [c.source, c.name])).toEqual([
      ['project', 'readme exists'],
      ['plan', 'echo built > build.txt'],
    ]);
    const done = await running.run(plan.id);
    expect(done).toMatchObject({ phase: 'apply', processingState: 'queued', checks: { total: 3, passed: 2, notChecked: 1 } });
    expect((await h.verifying.checks(plan.id)).results.map((r) => [r.name, r.passed])).toEqual([
      ['readme exists', true],
      ['echo built > build.txt', true],
    ]);
    // The check's file is gone, and nothing of it is in the changeset.
    expect(existsSync(path.join(done.sandboxRefs[0], 'build.txt'))).toBe(false);
    expect((await planReading(h.ctx).review(plan.id)).files).toEqual([]);
  });

  it('undoes the rest of what a check does too: permissions, symlinks and folders it made, changed or removed', async () => {
    const check = [
      'chmod 600 run.sh',
      'chmod 700 docs',
      'ln -s README.md shortcut',
      'mkdir -p made/deeper',
      'touch made/deeper/x',
      'rmdir empty',
      'ln -sfn run.sh latest',
      'echo changed > docs/a.md',
      'mv docs/b.md docs/moved.md',
    ].join(' && ');
    const { plan, running } = await world(['name: shaped', 'verify:', `  - ${JSON.stringify(check)}`, 'definitionOfDone: [Nothing to do]', ''].join('\n'), (project) => {
      writeFileSync(path.join(project, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
      mkdirSync(path.join(project, 'docs'), { mode: 0o755 });
      writeFileSync(path.join(project, 'docs', 'a.md'), 'a\n');
      writeFileSync(path.join(project, 'docs', 'b.md'), 'b\n', { mode: 0o640 });
      mkdirSync(path.join(project, 'empty'));
      symlinkSync('docs/a.md', path.join(project, 'latest'));
    });
    const done = await running.run(plan.id);
    expect((await h.verifying.checks(plan.id)).results.map((r) => [r.passed, r.outputTail])).toEqual([[true, '']]);
    const sandbox = done.sandboxRefs[0];
    const mode = (rel: string) => lstatSync(path.join(sandbox, rel)).mode & 0o777;
    expect([mode('run.sh'), mode('docs'), mode('docs/b.md')]).toEqual([0o755, 0o755, 0o640]);
    expect(lstatSync(path.join(sandbox, 'shortcut'), { throwIfNoEntry: false })).toBeUndefined();
    expect(existsSync(path.join(sandbox, 'made'))).toBe(false);
    expect(lstatSync(path.join(sandbox, 'empty')).isDirectory()).toBe(true);
    expect(readlinkSync(path.join(sandbox, 'latest'))).toBe('docs/a.md');
    expect(readFileSync(path.join(sandbox, 'docs', 'a.md'), 'utf8')).toBe('a\n');
    expect(readdirSync(path.join(sandbox, 'docs')).sort()).toEqual(['a.md', 'b.md']);
    expect((await planReading(h.ctx).review(plan.id)).files).toEqual([]);
  });

  it('with verifyEach, runs a step\'s check right after it: a failing one fails the step, and later steps wait', async () => {
    const { plan, running } = await world(
      [
        'name: each',
        'verifyEach: true',
        'definitionOfDone:',
        '  - step: Write a',
        '    check: grep -q right a.txt',
        '    tools: [{ tool: file.write, args: { path: a.txt, content: wrong } }]',
        '  - step: Write b',
        '    tools: [{ tool: file.write, args: { path: b.txt, content: b } }]',
        '',
      ].join('\n'),
    );
    const failed = await running.run(plan.id);
    expect(failed).toMatchObject({ phase: 'execute', processingState: 'errored', errorDetails: { category: 'verification' } });
    expect(failed.errorMessage).toBe('check failed: "grep -q right a.txt" exited with status 1');
    expect(stepsInOrder(await h.ctx.lifecycle.listDecisions(plan.id)).map((d) => d.status)).toEqual(['failed', 'pending']);
    expect(existsSync(path.join(failed.sandboxRefs[0], 'b.txt'))).toBe(false);
  });

  it('marks the verdicts stale when the plan is rewound, and runs the checks again after the steps run again', async () => {
    const { plan, running } = await world(
      ['name: rewound', 'verify:', '  - { name: notes exist, run: test -f NOTES.md }', 'definitionOfDone:', '  - step: Write notes', '    tools: [{ tool: file.write, args: { path: NOTES.md, content: n } }]', ''].join('\n'),
    );
    expect(await running.run(plan.id)).toMatchObject({ processingState: 'queued', checks: { passed: 1, stale: false } });
    const { plan: rewound } = await planCheckpoints(h.ctx, h.runs).rewind(plan.id, { by: 'ada', toStep: 1 });
    expect(rewound).toMatchObject({ phase: 'execute', checks: { stale: true } });
    expect(await running.run(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued', checks: { passed: 1, stale: false } });
  });

  it('finds an edit by hand at apply, marks the verdicts stale, and runs the checks again before applying', async () => {
    const { plan, running, applying } = await world(['name: by-hand', 'verify:', '  - { name: notes exist, run: test -f NOTES.md }', 'definitionOfDone: [Nothing to do]', ''].join('\n'));
    const failed = await running.run(plan.id);
    expect(failed).toMatchObject({ processingState: 'errored', checks: { failedChecks: ['notes exist'], stale: false } });
    await expect(applying.apply(plan.id)).rejects.toThrow(`plan ${plan.id}: check "notes exist" failed; apply with --accept-failed-checks to apply anyway`);
    writeFileSync(path.join(failed.sandboxRefs[0], 'NOTES.md'), 'notes\n');
    const stale: string[] = [];
    const unsubscribe = h.ctx.events.subscribe((e) => e.type === 'checks_stale' && stale.push(e.data.reason));
    const applied = await applying.apply(plan.id);
    unsubscribe();
    expect(stale).toEqual(['NOTES.md edited in the sandbox']);
    expect(applied).toMatchObject({ applied: ['NOTES.md'], complete: true });
    expect(readFileSync(path.join(h.project, 'NOTES.md'), 'utf8')).toBe('notes\n');
    expect((await h.ctx.get(plan.id)).checks).toMatchObject({ stale: false, failedChecks: [], passed: 1 });
  });
});
