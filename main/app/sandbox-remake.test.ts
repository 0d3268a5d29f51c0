import { cpSync, existsSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeEntry } from '../../shared/changes';
import { captureHandEdits } from '../engine/changeset/hand-edits';
import { remakeSandbox, sandboxAsLastSeen } from '../engine/changeset/remake';
import { EventPublisher } from '../engine/ports/event-stream';
import { cloneGitSource } from '../engine/sandbox/git-source';
import { createSandbox } from '../engine/sandbox/sandbox';
import { snapshotTree } from '../engine/sandbox/snapshot';
import { gitIn, makeBareRepo } from '../engine/test-support/git-repos';
import { cleanupTempDirs, harness, tempDir, treeState } from '../engine/tools/test-support';
import { openStores, type SqliteStores } from '../persistence';

/** Real folders, real tools, and the changeset and sandbox files in a real SQLite database. */
let stores: SqliteStores | null = null;
afterEach(() => {
  stores?.close();
  stores = null;
  cleanupTempDirs();
});

function world() {
  const base = realpathSync(tempDir('agents-remake-'));
  mkdirSync(path.join(base, 'data'));
  stores = openStores(path.join(base, 'data'));
  return { base, stores };
}

/** Records `entries` in a new changeset of plan `planId`, as a run does; returns its id. */
async function record(s: SqliteStores, planId: string, entries: readonly ChangeEntry[]): Promise<string> {
  const changesetId = await s.changesets.start(planId);
  for (const entry of entries) await s.changesets.record(changesetId, entry);
  return changesetId;
}

/** Every kind of change the tools make: create, modify, delete, rename (edited after), binary through the shell. */
async function changeEverything(sandbox: string) {
  const h = harness(sandbox);
  await h.call('file.write', { path: 'docs/guide.md', content: '# Guide\n' });
  await h.call('file.edit', { path: 'README.md', find: '# Demo', replace: '# Demo, changed' });
  await h.call('file.delete', { path: 'obsolete.txt' });
  await h.call('file.rename', { from: 'src/old.ts', to: 'src/new.ts' });
  await h.call('file.edit', { path: 'src/new.ts', find: 'old', replace: 'new' });
  await h.call('shell.run', { command: "printf '\\000\\001\\002\\377' > data.bin && printf '\\211PNG\\000' > logo.png" });
  return h.entries;
}

/** What a later hand-edit capture records in the remade sandbox: nothing, when the base record matches. */
async function falseEdits(s: SqliteStores, planId: string, root: string, changesetId: string, projectDir: string | null) {
  return captureHandEdits({
    planId,
    sandboxRoot: root,
    projectDir,
    files: s.sandboxFiles,
    changesets: s.changesets,
    events: new EventPublisher(s.events),
    changesetId,
    startChangeset: () => Promise.reject(new Error('a changeset exists')),
  });
}

describe('remakeSandbox', () => {
  it('remakes a local project’s sandbox: the project copied, every recorded change on top, and no false operator edit', async () => {
    const { base, stores: s } = world();
    const project = path.join(base, 'project');
    mkdirSync(path.join(project, 'src'), { recursive: true });
    writeFileSync(path.join(project, 'README.md'), '# Demo\n');
    writeFileSync(path.join(project, 'obsolete.txt'), 'remove me\n');
    writeFileSync(path.join(project, 'src/old.ts'), 'export const name = "old";\n');
    writeFileSync(path.join(project, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1]));
    const original = await createSandbox(project, path.join(base, 'first'), 'PLAN');
    const entries = await changeEverything(original);
    expect(new Set(entries.map((e) => e.operation))).toEqual(new Set(['create', 'modify', 'delete', 'rename']));
    expect(entries.some((e) => e.binary)).toBe(true);
    const changesetId = await record(s, 'PLAN', entries);

    const dir = path.join(base, 'data', 'sandboxes', 'PLAN');
    const remade = await remakeSandbox({ plan: { id: 'PLAN', projectPath: project, projectSource: null, changesetId }, dir, changesets: s.changesets, files: s.sandboxFiles });
    expect(remade).toMatchObject({ root: dir, base: 'project', baseCommit: null, drift: [] });
    expect(treeState(dir)).toEqual(treeState(original));
    expect(await falseEdits(s, 'PLAN', dir, changesetId, project)).toEqual([]);
    // The base record is the project's, not the remade tree: a path the plan changed is measured against the original.
    const records = await s.sandboxFiles.load('PLAN');
    expect(records?.get('README.md')?.baseHash).toBe((await snapshotTree(project)).get('README.md')?.hash);
    expect(records?.get('docs/guide.md')?.baseHash).toBeNull();
    // An edit made after the remake is still found, once.
    writeFileSync(path.join(dir, 'docs/guide.md'), '# Guide, by hand\n');
    expect((await falseEdits(s, 'PLAN', dir, changesetId, project)).map((e) => [e.path, e.operation, e.origin])).toEqual([['docs/guide.md', 'modify', 'operator']]);
  });

  it('remakes a git project’s sandbox at its recorded base commit, whatever the branch holds now', async () => {
    const { base, stores: s } = world();
    const repo = makeBareRepo(base);
    const original = path.join(base, 'first', 'PLAN');
    const { baseCommit } = await cloneGitSource({ git: repo.url, ref: 'main' }, original);
    mkdirSync(path.join(original, 'src'));
    writeFileSync(path.join(original, 'src/old.ts'), 'export const name = "old";\n');
    writeFileSync(path.join(original, 'obsolete.txt'), 'remove me\n');
    // The two files above are in the base, as if the project held them: committed and pushed before the base was taken.
    gitIn(original, 'add', '-A');
    gitIn(original, 'commit', '-qm', 'more');
    gitIn(original, 'push', '-q', 'origin', 'HEAD:main');
    const based = gitIn(original, 'rev-parse', 'HEAD');
    const entries = await changeEverything(original);
    const changesetId = await record(s, 'PLAN', entries);
    // The branch moves on after the plan's base was taken.
    const later = path.join(base, 'later');
    gitIn(base, 'clone', '-q', repo.bare, later);
    writeFileSync(path.join(later, 'README.md'), '# Demo\n\nversion three\n');
    gitIn(later, 'commit', '-qam', 'third');
    gitIn(later, 'push', '-q', 'origin', 'main');

    const dir = path.join(base, 'data', 'sandboxes', 'PLAN');
    const source = { git: repo.url, ref: 'main', baseCommit: based };
    const remade = await remakeSandbox({ plan: { id: 'PLAN', projectPath: null, projectSource: source, changesetId }, dir, changesets: s.changesets, files: s.sandboxFiles });
    expect(baseCommit).not.toBe(based);
    expect(remade).toMatchObject({ base: 'git', baseCommit: based, drift: [] });
    expect(treeState(dir)).toEqual(treeState(original));
    expect(gitIn(dir, 'rev-parse', 'HEAD')).toBe(based);
    expect(await falseEdits(s, 'PLAN', dir, changesetId, null)).toEqual([]);
  });

  it('leaves out the entries a rewind made history, and replaces what was left at the folder', async () => {
    const { base, stores: s } = world();
    const project = path.join(base, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'README.md'), '# Demo\n');
    const original = await createSandbox(project, path.join(base, 'first'), 'PLAN');
    const h = harness(original);
    await h.call('file.write', { path: 'kept.txt', content: 'kept\n' });
    await h.call('file.write', { path: 'rewound.txt', content: 'undone\n' });
    await h.call('file.edit', { path: 'README.md', find: 'Demo', replace: 'Undone' });
    const changesetId = await record(s, 'PLAN', h.entries);
    expect(await s.changesets.markRewound(changesetId, 1, 'REWIND')).toBe(2);

    const dir = path.join(base, 'data', 'sandboxes', 'PLAN');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'stale.txt'), 'from an older run\n');
    await remakeSandbox({ plan: { id: 'PLAN', projectPath: project, projectSource: null, changesetId }, dir, changesets: s.changesets, files: s.sandboxFiles });
    expect(treeState(dir)).toEqual({ 'README.md': treeState(project)['README.md'], 'kept.txt': expect.any(String) });
    expect(await falseEdits(s, 'PLAN', dir, changesetId, project)).toEqual([]);
  });

  it('names the files of a local project edited since the sandbox was first made: the changes are laid on the project as it is now', async () => {
    const { base, stores: s } = world();
    const project = path.join(base, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'README.md'), '# Demo\n');
    writeFileSync(path.join(project, 'notes.txt'), 'notes\n');
    const original = await createSandbox(project, path.join(base, 'first'), 'PLAN');
    await s.sandboxFiles.recordBase('PLAN', await snapshotTree(original));
    const h = harness(original);
    await h.call('file.edit', { path: 'README.md', find: 'Demo', replace: 'Demo, changed' });
    const changesetId = await record(s, 'PLAN', h.entries);
    // The operator edits the project afterwards: the file the plan changed, and one it did not.
    writeFileSync(path.join(project, 'README.md'), '# Demo, by hand\n');
    writeFileSync(path.join(project, 'notes.txt'), 'notes, by hand\n');

    const dir = path.join(base, 'data', 'sandboxes', 'PLAN');
    const remade = await remakeSandbox({ plan: { id: 'PLAN', projectPath: project, projectSource: null, changesetId }, dir, changesets: s.changesets, files: s.sandboxFiles });
    expect(remade).toMatchObject({ base: 'project', drift: ['README.md', 'notes.txt'] });
    expect(treeState(dir)['README.md']).toBe(treeState(original)['README.md']);
    expect(treeState(dir)['notes.txt']).toBe(treeState(project)['notes.txt']);
    expect(await falseEdits(s, 'PLAN', dir, changesetId, project)).toEqual([]);
  });

  it('knows a sandbox as last seen from one written to since, one copied from elsewhere, and one the changeset moved on from', async () => {
    const { base, stores: s } = world();
    const project = path.join(base, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'README.md'), '# Demo\n');
    const original = await createSandbox(project, path.join(base, 'first'), 'PLAN');
    const h = harness(original);
    await h.call('file.write', { path: 'a.txt', content: 'a\n' });
    await h.call('file.write', { path: 'b.txt', content: 'b\n' });
    const changesetId = await record(s, 'PLAN', h.entries);
    const plan = { id: 'PLAN', projectPath: project, projectSource: null, changesetId };
    const dir = path.join(base, 'data', 'sandboxes', 'PLAN');
    const remake = () => remakeSandbox({ plan, dir, changesets: s.changesets, files: s.sandboxFiles });
    const current = () => sandboxAsLastSeen(s.sandboxFiles, s.changesets, plan, dir);

    await remake();
    expect(await current()).toBe(true);
    writeFileSync(path.join(dir, 'stray.txt'), 'never recorded\n');
    expect(await current()).toBe(false);
    await remake();
    const copy = path.join(base, 'copy');
    cpSync(dir, copy, { recursive: true });
    rmSync(dir, { recursive: true });
    renameSync(copy, dir);
    expect(await current()).toBe(false);
    await remake();
    expect(await current()).toBe(true);
    await s.changesets.markRewound(changesetId, 1, 'REWIND');
    expect(await current()).toBe(false);
    await remake();
    expect(await current()).toBe(true);
    expect(existsSync(path.join(dir, 'b.txt'))).toBe(false);
  });

  it('lays the changes on an empty folder when the project is not on this machine, and says where the base differed', async () => {
    const { base, stores: s } = world();
    const project = path.join(base, 'project');
    mkdirSync(path.join(project, 'src'), { recursive: true });
    writeFileSync(path.join(project, 'README.md'), '# Demo\n');
    writeFileSync(path.join(project, 'obsolete.txt'), 'remove me\n');
    writeFileSync(path.join(project, 'src/old.ts'), 'export const name = "old";\n');
    writeFileSync(path.join(project, 'logo.png'), 'text before\n');
    const original = await createSandbox(project, path.join(base, 'first'), 'PLAN');
    const changesetId = await record(s, 'PLAN', await changeEverything(original));
    rmSync(project, { recursive: true });

    const dir = path.join(base, 'data', 'sandboxes', 'PLAN');
    const remade = await remakeSandbox({ plan: { id: 'PLAN', projectPath: project, projectSource: null, changesetId }, dir, changesets: s.changesets, files: s.sandboxFiles });
    expect(remade.base).toBe('empty');
    const changed = ['README.md', 'data.bin', 'docs/guide.md', 'logo.png', 'src/new.ts'];
    expect(Object.keys(treeState(dir)).filter((p) => !['docs', 'src'].includes(p))).toEqual(changed);
    for (const rel of changed) expect(treeState(dir)[rel]).toBe(treeState(original)[rel]);
    expect(remade.drift).toEqual(['README.md', 'logo.png', 'obsolete.txt', 'src/old.ts']);
    expect(await falseEdits(s, 'PLAN', dir, changesetId, null)).toEqual([]);
  });
});
