import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type App, openApp } from './open-app';

describe('PlanService under the manual profile', () => {
  let dir: string;
  let app: App;
  afterEach(() => {
    app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pauses before each step by default, and goes on when the operator continues', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'agents-manual-'));
    app = await openApp({ dataDir: path.join(dir, 'home') });
    const file = path.join(dir, 'plan.yaml');
    writeFileSync(file, 'name: careful\nautomationProfile: manual\ndefinitionOfDone:\n  - Read the brief\n  - Sign it off\n');
    const plan = await app.service.createFromFile(file);
    const run = app.service.run(plan.id);
    await expect.poll(async () => (await app.service.get(plan.id)).processingState).toBe('paused');
    expect(app.service.controller(plan.id).isPaused).toBe(true);
    expect((await app.service.get(plan.id)).waitingFor).toBeNull();
    app.service.controller(plan.id).continue();
    expect(await run).toMatchObject({ phase: 'apply', processingState: 'queued' });
  });

  /** A supervised plan whose one step deletes notes.txt, run until the delete waits for approval. */
  const runSupervisedDelete = async (files: Record<string, string>) => {
    dir = mkdtempSync(path.join(tmpdir(), 'agents-supervised-'));
    app = await openApp({ dataDir: path.join(dir, 'home') });
    const project = path.join(dir, 'project');
    mkdirSync(project);
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(project, name), text);
    const file = path.join(dir, 'plan.yaml');
    writeFileSync(
      file,
      `name: tidy\nproject: ${JSON.stringify(project)}\nautomationProfile: supervised\ndefinitionOfDone:\n  - step: Remove the notes\n    tools:\n      - { tool: file.delete, args: { path: notes.txt } }\n`,
    );
    const plan = await app.service.createFromFile(file);
    await app.service.run(plan.id);
    return plan;
  };

  it('asks before a delete under the supervised profile, with the diff as text and as the rows the console draws', async () => {
    const plan = await runSupervisedDelete({ 'notes.txt': 'one\ntwo\n' });
    const { pending } = await app.service.approvals(plan.id);
    expect(pending).toMatchObject({ tool: 'file.delete', status: 'pending' });
    expect(pending?.diff).toContain('-two');
    expect(pending?.hunks).toEqual([
      {
        header: '@@ -1,2 +0,0 @@',
        rows: [
          { kind: 'del', text: 'one', oldLine: 1, newLine: null },
          { kind: 'del', text: 'two', oldLine: 2, newLine: null },
        ],
      },
    ]);
  });

  it('an answer holds for the call the operator saw: a step edited while it waits asks again for its new call', async () => {
    const plan = await runSupervisedDelete({ 'notes.txt': 'one\n', 'keep.txt': 'keep\n' });
    expect((await app.service.approvals(plan.id)).pending).toMatchObject({ tool: 'file.delete', args: { path: 'notes.txt' } });
    const stepFile = path.join(dir, 'step.yaml');
    writeFileSync(stepFile, 'step: Remove the other file\ntools:\n  - { tool: file.delete, args: { path: keep.txt } }\n');
    await app.service.editStep(plan.id, { by: 'test', step: 1, file: stepFile });
    await app.service.approve(plan.id, { by: 'test' });
    // The approval was for notes.txt: the edited call waits for its own answer, and keep.txt is still there.
    expect(await app.service.get(plan.id)).toMatchObject({ processingState: 'paused', waitingFor: 'approval' });
    expect((await app.service.approvals(plan.id)).pending).toMatchObject({ tool: 'file.delete', args: { path: 'keep.txt' }, status: 'pending' });
    const sandbox = (await app.service.get(plan.id)).sandboxRefs[0]!;
    expect(existsSync(path.join(sandbox, 'keep.txt'))).toBe(true);
  });

  it('takes the project size limit from the environment it is given, as the CLI passes it', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'agents-limit-'));
    app = await openApp({ dataDir: path.join(dir, 'home'), env: { AGENTS_MAX_PROJECT_BYTES: '10' } });
    const project = path.join(dir, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'README.md'), 'more than ten bytes\n');
    const file = path.join(dir, 'plan.yaml');
    writeFileSync(file, `name: small\nproject: ${JSON.stringify(project)}\ndefinitionOfDone:\n  - Read the brief\n`);
    const plan = await app.service.run((await app.service.createFromFile(file)).id);
    expect(plan.processingState).toBe('errored');
    expect(plan.errorMessage).toMatch(/larger than the limit of 10 bytes/);
  });
});

