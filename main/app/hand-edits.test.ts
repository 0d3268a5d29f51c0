import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../shared/domain';
import { planYaml, tempApp, type TempApp } from './test-support';

/**
 * The changeset is the difference between the project as the sandbox was made and the sandbox
 * now: a hand edit in the sandbox is the operator's change, and a conflict is the project's file
 * differing from that base.
 */
describe('hand edits in the sandbox', () => {
  let t: TempApp;
  beforeEach(() => {
    t = tempApp();
  });
  afterEach(() => t.dispose());

  const read = (root: string, rel: string) => readFileSync(path.join(root, rel), 'utf8');

  /** Step 2 needs a "## Missing" heading the README lacks: it fails, the operator adds it in the sandbox, and the retry completes. */
  async function fixedByHand(): Promise<{ plan: Plan; sandbox: string }> {
    const service = t.app.service;
    const created = service.createFromContent({ content: planYaml(t.project, { failAt: 2 }) }, t.root);
    expect((await service.run(created.id)).processingState).toBe('errored');
    const sandbox = service.get(created.id).sandboxRefs[0];
    appendFileSync(path.join(sandbox, 'README.md'), '## Missing\n');
    const plan = await service.retry(created.id);
    expect(plan).toMatchObject({ phase: 'apply', processingState: 'queued' });
    return { plan, sandbox };
  }

  it('records the edit as the operator\'s change, with the plan\'s edit on top, measured from the base', async () => {
    const { plan } = await fixedByHand();
    const readme = t.app.service.review(plan.id).files.find((f) => f.path === 'README.md');
    expect(readme).toMatchObject({ operation: 'modify', editedByOperator: true, steps: [{ description: 'Step 2 edits a heading that is not there' }] });
    const entries = t.app.service.changeEntries(plan.id).filter((e) => e.path === 'README.md');
    expect(entries.map((e) => [e.origin ?? 'tool', e.beforeText, e.afterText])).toEqual([
      ['operator', '# Demo\n', '# Demo\n## Missing\n'],
      ['tool', '# Demo\n## Missing\n', '# Demo\nx\n'],
    ]);
    expect(t.app.service.review(plan.id).files.find((f) => f.path === 'out/1.txt')?.editedByOperator).toBe(false);
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
    const review = t.app.service.review(plan.id).files;
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
    expect(t.app.service.get(plan.id)).toMatchObject({ processingState: 'complete' });
  });
});
