import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { diffJsonChunks } from './diff-stream';
import { type TempApp, tempApp } from './test-support';

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

/** Files changed once, one changed by two steps, one created then edited, a rename and a delete. */
function planFile(t: TempApp): string {
  writeFileSync(path.join(t.project, 'long.txt'), numbered(30));
  writeFileSync(path.join(t.project, 'old.txt'), 'old\n');
  writeFileSync(path.join(t.project, 'gone.txt'), 'gone\n');
  const yaml = `name: stream
project: ${JSON.stringify(t.project)}
definitionOfDone:
  - step: Create the notes and edit the top of long.txt
    tools:
      - tool: file.write
        args: { path: notes.md, content: "a\\n" }
      - tool: file.edit
        args: { path: long.txt, find: "line 2\\n", replace: "two\\n" }
  - step: Edit the notes and the bottom of long.txt, rename old.txt, delete gone.txt, retitle the README
    tools:
      - tool: file.edit
        args: { path: notes.md, find: "a", replace: "b" }
      - tool: file.edit
        args: { path: long.txt, find: "line 28\\n", replace: "twenty-eight\\n" }
      - tool: file.rename
        args: { from: old.txt, to: new.txt }
      - tool: file.delete
        args: { path: gone.txt }
      - tool: file.edit
        args: { path: README.md, find: "# Demo", replace: "# Demo project" }
`;
  const file = path.join(t.root, 'stream.yaml');
  writeFileSync(file, yaml);
  return file;
}


async function chunksOf(...args: Parameters<typeof diffJsonChunks>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of diffJsonChunks(...args)) chunks.push(chunk);
  return chunks;
}

describe('plan diff --json as a stream', () => {
  let t: TempApp;
  let scratch: string;
  const tmp = process.env.TMPDIR;
  beforeEach(async () => {
    t = await tempApp();
    // The stream's temporary file goes here, so the test can see it removed.
    scratch = mkdtempSync(path.join(tmpdir(), 'agents-stream-tmp-'));
    process.env.TMPDIR = scratch;
  });
  afterEach(async () => {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
    rmSync(scratch, { recursive: true, force: true });
    await t.dispose();
  });

  it('is the same document as the entries with their diffs and the review with its net diffs, and leaves no temporary file', async () => {
    const plan = await t.app.service.createFromFile(planFile(t));
    await t.app.service.run(plan.id);
    await t.app.service.apply(plan.id, { paths: ['README.md'], hunks: { 'long.txt': [2] } });

    const document = JSON.parse((await chunksOf(t.app.service, plan.id)).join('')) as { files: { path: string }[] };
    const review = (await t.app.service.reviewWithDiffs(plan.id)).map(({ file, diff }) => ({ ...file, diff }));
    const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
    expect({ ...document, files: [...document.files].sort(byPath) }).toEqual({ ...(await t.app.service.diff(plan.id)), files: review });
    expect(review.map((f) => [f.path, f.operation, f.state])).toEqual([
      ['README.md', 'modify', 'applied'],
      ['gone.txt', 'delete', 'remaining'],
      ['long.txt', 'modify', 'partial'],
      ['new.txt', 'rename', 'remaining'],
      ['notes.md', 'create', 'remaining'],
    ]);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('keeps its temporary file off the disk while it streams, so a process that ends mid-stream leaves nothing behind', async () => {
    const plan = await t.app.service.createFromFile(planFile(t));
    await t.app.service.run(plan.id);
    const chunks = diffJsonChunks(t.app.service, plan.id);
    const read: string[] = [];
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
      read.push(next.value);
      expect(readdirSync(scratch)).toEqual([]);
    }
    expect(JSON.parse(read.join('')).files).toHaveLength(5);
  });

  it('is an empty document for a plan that has changed nothing', async () => {
    const plan = await t.app.service.createFromFile(planFile(t));
    expect(JSON.parse((await chunksOf(t.app.service, plan.id)).join(''))).toEqual({ planId: plan.id, changesetId: plan.changesetId, entries: [], files: [] });
    expect(readdirSync(scratch)).toEqual([]);
  });
});
