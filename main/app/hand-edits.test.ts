import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../shared/domain';
import { openStores } from '../persistence';
import { planYaml, tempApp, type TempApp } from './test-support';

/**
 * The changeset is the difference between the project as the sandbox was made and the sandbox
 * now: a hand edit in the sandbox is the operator's change, and a conflict is the project's file
 * differing from that base.
 */
describe('hand edits in the sandbox', () => {
  let t: TempApp;
  beforeEach(async () => {
    t = await tempApp();
  });
  afterEach(() => t.dispose());

  const read = (root: string, rel: string) => readFileSync(path.join(root, rel), 'utf8');

  /** Step 2 needs a "## Missing" heading the README lacks: it fails, the operator adds it in the sandbox, and the retry completes. */
  async function fixedByHand(): Promise<{ plan: Plan; sandbox: string }> {
    const service = t.app.service;
    const created = await service.createFromContent({ content: planYaml(t.project, { failAt: 2 }) }, t.root);
    expect((await service.run(created.id)).processingState).toBe('errored');
    const sandbox = (await service.get(created.id)).sandboxRefs[0];
    appendFileSync(path.join(sandbox, 'README.md'), '## Missing\n');
    const plan = await service.retry(created.id);
    expect(plan).toMatchObject({ phase: 'apply', processingState: 'queued' });
    return { plan, sandbox };
  }

  it('records the edit as the operator\'s change, with the plan\'s edit on top, measured from the base', async () => {
    const { plan } = await fixedByHand();
    const readme = (await t.app.service.review(plan.id)).files.find((f) => f.path === 'README.md');
    expect(readme).toMatchObject({ operation: 'modify', editedByOperator: true, steps: [{ description: 'Step 2 edits a heading that is not there' }] });
    const entries = (await t.app.service.changeEntries(plan.id)).filter((e) => e.path === 'README.md');
    expect(entries.map((e) => [e.origin ?? 'tool', e.beforeText, e.afterText])).toEqual([
      ['operator', '# Demo\n', '# Demo\n## Missing\n'],
      ['tool', '# Demo\n## Missing\n', '# Demo\nx\n'],
    ]);
    expect((await t.app.service.review(plan.id)).files.find((f) => f.path === 'out/1.txt')?.editedByOperator).toBe(false);
  });

  it('applies without a conflict when only the sandbox changed, a later hand edit and a new file included', async () => {
    const { plan, sandbox } = await fixedByHand();
    appendFileSync(path.join(sandbox, 'out/1.txt'), ' and more');
    writeFileSync(path.join(sandbox, 'NOTES.md'), 'by hand\n');
    const result = await t.app.service.apply(plan.id);
    expect(result).toMatchObject({ conflicts: [], complete: true });
    expect(result.applied.sort()).toEqual(['NOTES.md', 'README.md', 'out/1.txt']);
    expect(read(t.project, 'README.md')).toBe('# Demo\nx\n');
    expect(read(t.project, 'out/1.txt')).toBe('1 and more');
    expect(read(t.project, 'NOTES.md')).toBe('by hand\n');
    const review = (await t.app.service.review(plan.id)).files;
    expect(review.filter((f) => f.editedByOperator).map((f) => f.path)).toEqual(['NOTES.md', 'README.md', 'out/1.txt']);
  });

  it('conflicts when the project\'s file changed after the sandbox was made; --force writes what the review shows for every file', async () => {
    const { plan, sandbox } = await fixedByHand();
    writeFileSync(path.join(t.project, 'README.md'), '# Demo\nchanged in the project\n');

    const refused = await t.app.service.apply(plan.id);
    expect(refused.conflicts).toEqual([expect.objectContaining({ path: 'README.md', reason: "the file was modified in the project since the plan's sandbox was made" })]);
    expect(refused.applied).toEqual([]);
    expect(existsSync(path.join(t.project, 'out/1.txt'))).toBe(false);

    const forced = await t.app.service.apply(plan.id, { force: true });
    expect(forced.conflicts.map((c) => c.path)).toEqual(['README.md']);
    expect(forced.applied.sort()).toEqual(['README.md', 'out/1.txt']);
    for (const rel of ['README.md', 'out/1.txt']) expect(read(t.project, rel)).toBe(read(sandbox, rel));
    expect(await t.app.service.get(plan.id)).toMatchObject({ processingState: 'complete' });
  });

  /** Every file below `root`, relative, with its content. */
  const contents = (root: string) =>
    Object.fromEntries(readdirSync(root, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => {
      const rel = path.relative(root, path.join(d.parentPath, d.name)).split(path.sep).join('/');
      return [rel, read(root, rel)];
    }));

  it('applies from the stored changeset when the sandbox folder is gone, deleting nothing of the project', async () => {
    writeFileSync(path.join(t.project, 'KEEP.md'), 'kept\n');
    const { plan, sandbox } = await fixedByHand();
    const recordedBefore = (await t.app.service.changeEntries(plan.id)).length;
    rmSync(sandbox, { recursive: true, force: true });

    const result = await t.app.service.apply(plan.id);
    expect(result).toMatchObject({ conflicts: [], complete: true });
    expect(result.applied.sort()).toEqual(['README.md', 'out/1.txt']);
    expect(contents(t.project)).toEqual({ 'KEEP.md': 'kept\n', 'README.md': '# Demo\nx\n', 'out/1.txt': '1' });
    // Nothing was read from the missing folder as "deleted by you".
    expect(await t.app.service.changeEntries(plan.id)).toHaveLength(recordedBefore);
  });

  it('refuses to retry a failed plan whose sandbox folder is gone, recording nothing and leaving the plan failed', async () => {
    const service = t.app.service;
    const created = await service.createFromContent({ content: planYaml(t.project, { failAt: 2 }) }, t.root);
    expect((await service.run(created.id)).processingState).toBe('errored');
    const sandbox = (await service.get(created.id)).sandboxRefs[0];
    const recordedBefore = (await service.changeEntries(created.id)).length;
    rmSync(sandbox, { recursive: true, force: true });

    await expect(service.retry(created.id)).rejects.toThrow(`plan ${created.id} cannot run: its sandbox ${sandbox} is gone; apply what it recorded, or discard the plan and create it again`);
    expect(await service.get(created.id)).toMatchObject({ processingState: 'errored', phase: 'execute' });
    expect(await service.changeEntries(created.id)).toHaveLength(recordedBefore);
    expect(contents(t.project)).toEqual({ 'README.md': '# Demo\n' });
    expect(existsSync(sandbox)).toBe(false);
    // The operator can still let it go.
    expect((await service.discard(created.id)).processingState).toBe('cancelled');
  });

  // Root reads every folder whatever its mode: this runs only as another user.
  it.skipIf(process.getuid?.() === 0)('refuses to apply when a folder of the sandbox cannot be read, instead of reading it as empty', async () => {
    const { plan, sandbox } = await fixedByHand();
    chmodSync(path.join(sandbox, 'out'), 0o000);
    try {
      await expect(t.app.service.apply(plan.id)).rejects.toThrow('cannot read the folder "out" to capture changes');
      expect(existsSync(path.join(t.project, 'README.md'))).toBe(true);
    } finally {
      chmodSync(path.join(sandbox, 'out'), 0o700);
    }
  });

  it('never applies a protected path, even one the operator (or an unrecorded write) changed in the sandbox', async () => {
    mkdirSync(path.join(t.project, '.agents'));
    writeFileSync(path.join(t.project, '.agents/invariants.yaml'), 'protect: [".env"]\n');
    writeFileSync(path.join(t.project, '.env'), 'SECRET=project\n');
    const { plan, sandbox } = await fixedByHand();
    writeFileSync(path.join(sandbox, '.env'), 'SECRET=stray\n');

    await expect(t.app.service.apply(plan.id)).rejects.toThrow(`plan ${plan.id} changes .env, which the project invariant protect ".env" guards; put it back in the sandbox, or change it in the project directly`);
    expect((await t.app.service.review(plan.id)).files.find((f) => f.path === '.env')?.editedByOperator).toBe(true);
    expect(read(t.project, '.env')).toBe('SECRET=project\n');
    expect(existsSync(path.join(t.project, 'out/1.txt'))).toBe(false);

    // Put back, the rest applies.
    writeFileSync(path.join(sandbox, '.env'), 'SECRET=project\n');
    expect(await t.app.service.apply(plan.id)).toMatchObject({ conflicts: [], complete: true });
    expect(read(t.project, '.env')).toBe('SECRET=project\n');
    expect(read(t.project, 'out/1.txt')).toBe('1');
  });

  it('refuses to save into or discard the sandbox while another live process holds the plan\'s lease', async () => {
    const service = t.app.service;
    const created = await service.createFromContent({ content: planYaml(t.project, { failAt: 2 }) }, t.root);
    await service.run(created.id);
    const sandbox = (await service.get(created.id)).sandboxRefs[0];
    const other = openStores(t.app.dataDir);
    try {
      // The test's parent process stands for another host process running the plan.
      expect(await other.leases.acquire(created.id, process.ppid, hostname())).toBe(true);
      await expect(service.saveFile(created.id, 'README.md', 'by hand\n')).rejects.toThrow(`plan ${created.id} is`);
      await expect(service.discard(created.id)).rejects.toThrow(`plan ${created.id} is Running; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before discarding`);
      expect(read(sandbox, 'README.md')).toBe('# Demo\n');
      await other.leases.release(created.id, process.ppid);
      expect((await service.saveFile(created.id, 'README.md', 'by hand\n')).entry).toMatchObject({ path: 'README.md', origin: 'operator' });
    } finally {
      other.close();
    }
  });
});
