import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TempApp, tempApp } from './test-support';

const numbered = (n: number, edits: Record<number, string> = {}) => Array.from({ length: n }, (_, i) => edits[i + 1] ?? `line ${i + 1}`).join('\n') + '\n';

/** Four files, one of them written by two steps and one created then edited. */
function planFile(t: TempApp): string {
  writeFileSync(path.join(t.project, 'long.txt'), numbered(30));
  writeFileSync(path.join(t.project, 'old.txt'), 'old\n');
  const yaml = `name: review
project: ${JSON.stringify(t.project)}
definitionOfDone:
  - step: Create the notes
    tools:
      - tool: file.write
        args: { path: notes.md, content: "a\\n" }
  - step: Edit the top of long.txt and the notes
    tools:
      - tool: file.edit
        args: { path: long.txt, find: "line 2\\n", replace: "two\\n" }
      - tool: file.edit
        args: { path: notes.md, find: "a", replace: "b" }
  - step: Edit the bottom of long.txt, rename old.txt, retitle the README
    tools:
      - tool: file.edit
        args: { path: long.txt, find: "line 28\\n", replace: "twenty-eight\\n" }
      - tool: file.rename
        args: { from: old.txt, to: new.txt }
      - tool: file.edit
        args: { path: README.md, find: "# Demo", replace: "# Demo project" }
`;
  const file = path.join(t.root, 'review.yaml');
  writeFileSync(file, yaml);
  return file;
}

describe('the changeset as a review, applied in parts', () => {
  let t: TempApp;
  beforeEach(async () => (t = await tempApp()));
  afterEach(() => t.dispose());

  async function ranPlan() {
    const plan = await t.app.service.createFromFile(planFile(t));
    await t.app.service.run(plan.id);
    return plan.id;
  }

  it('nets each path across steps and lists the steps that touched it', async () => {
    const id = await ranPlan();
    const files = (await t.app.service.review(id)).files;
    expect(files.map((f) => [f.path, f.operation, f.state])).toEqual([
      ['README.md', 'modify', 'remaining'],
      ['long.txt', 'modify', 'remaining'],
      ['new.txt', 'rename', 'remaining'],
      ['notes.md', 'create', 'remaining'],
    ]);
    const notes = files.find((f) => f.path === 'notes.md');
    expect(notes?.steps.map((s) => s.description)).toEqual(['Create the notes', 'Edit the top of long.txt and the notes']);
    expect(files.find((f) => f.path === 'long.txt')?.hunks.map((h) => h.index)).toEqual([1, 2]);
  });

  it('a plan waiting to be applied is its own state in the list, not one that needs attention', async () => {
    const id = await ranPlan();
    expect((await t.app.service.listItems()).find((p) => p.id === id)).toMatchObject({ awaitingApply: true, needsAttention: false });
  });

  it('applies 2 of 4 files, stays in apply with the rest remaining, then applies the other 2 and completes', async () => {
    const id = await ranPlan();
    const first = await t.app.service.apply(id, { paths: ['README.md', 'notes.md'] });
    expect(first).toMatchObject({ applied: ['README.md', 'notes.md'], remaining: ['long.txt', 'new.txt'], complete: false });
    expect(await t.app.service.get(id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(readFileSync(path.join(t.project, 'notes.md'), 'utf8')).toBe('b\n');
    expect(readFileSync(path.join(t.project, 'old.txt'), 'utf8')).toBe('old\n');
    expect((await t.app.service.review(id)).files.map((f) => f.state)).toEqual(['applied', 'remaining', 'remaining', 'applied']);

    const second = await t.app.service.apply(id);
    expect(second).toMatchObject({ applied: ['long.txt', 'new.txt'], remaining: [], complete: true });
    expect(await t.app.service.get(id)).toMatchObject({ phase: 'apply', processingState: 'complete' });
    expect(readFileSync(path.join(t.project, 'new.txt'), 'utf8')).toBe('old\n');
  });

  it('writes only the accepted hunks, and applies the rejected one later', async () => {
    const id = await ranPlan();
    await t.app.service.apply(id, { hunks: { 'long.txt': [2] } });
    expect(readFileSync(path.join(t.project, 'long.txt'), 'utf8')).toBe(numbered(30, { 28: 'twenty-eight' }));
    const long = (await t.app.service.review(id)).files.find((f) => f.path === 'long.txt');
    expect(long).toMatchObject({ state: 'partial', appliedHunks: [2] });
    expect((await t.app.service.get(id)).processingState).toBe('queued');

    expect(readFileSync(path.join(t.project, 'README.md'), 'utf8')).toBe('# Demo\n');

    const rest = await t.app.service.apply(id, { hunks: { 'long.txt': [1] } });
    expect(rest).toMatchObject({ applied: ['long.txt'], remaining: ['README.md', 'new.txt', 'notes.md'] });
    expect(readFileSync(path.join(t.project, 'long.txt'), 'utf8')).toBe(numbered(30, { 2: 'two', 28: 'twenty-eight' }));
  });

  it('refuses a hunk the file does not have', async () => {
    const id = await ranPlan();
    await expect(t.app.service.apply(id, { hunks: { 'long.txt': [5] } })).rejects.toThrow(/2 hunks; there is no hunk 5/);
  });

  it('after a partial apply, discarding the rest completes the plan and leaves the project as applied', async () => {
    const id = await ranPlan();
    await t.app.service.apply(id, { paths: ['notes.md'] });
    const plan = await t.app.service.discard(id);
    expect(plan).toMatchObject({ phase: 'apply', processingState: 'complete', errorDetails: { discarded: 3 } });
    expect(readFileSync(path.join(t.project, 'notes.md'), 'utf8')).toBe('b\n');
  });
});
