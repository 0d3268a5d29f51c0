import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeEntry } from '../../../shared/changes';
import { sha256, toChangeEntry } from '../run/change-capture';
import { EngineError } from '../errors';
import { createSandbox } from '../sandbox/sandbox';
import { cleanupTempDirs, harness, tempDir, treeState } from '../tools/test-support';
import { unifiedDiff } from './diff';
import { exportPatch } from './patch';
import { type AppliedRecord, applyReviewed, type ReviewSelection, reviewNet } from './review';

afterEach(cleanupTempDirs);

/** Applies as the app does: the changeset reviewed against what earlier applies wrote, then applied. */
const apply = (project: string, entries: ChangeEntry[], applied: AppliedRecord[], selection?: ReviewSelection) => applyReviewed(project, reviewNet(entries, applied), applied, selection);

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, encoding: 'utf8' });

function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), content);
  }
}

/** A committed git project with text, binary, executable, CRLF and awkwardly named files. */
function makeProject(base: string): string {
  const project = path.join(base, 'project');
  writeTree(project, {
    'README.md': '# Demo\n\nA demo project.\n',
    'no-eol.txt': 'first\nlast line without newline',
    'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
    'obsolete.txt': 'remove me\n',
    'dir-to-empty/only.txt': 'the only file\n',
    'src/old-name.ts': 'export const name = "old";\n',
    'lib/util.ts': 'export function util() {\n  return 1;\n}\n',
    'data.bin': Buffer.from([0, 1, 2, 3, 255, 254, 0, 10]),
    'binary-old.bin': Buffer.from([0, 0, 0, 7]),
    'moved-by-shell.txt': 'shell moves me\n',
    flip: 'a file that becomes a directory\n',
    'run.sh': '#!/bin/sh\necho one\n',
  });
  chmodSync(path.join(project, 'run.sh'), 0o755);
  symlinkSync('README.md', path.join(project, 'readme-link'));
  git(project, 'init', '-q');
  git(project, 'add', '-A');
  git(project, 'commit', '-qm', 'initial');
  return project;
}

/** Every kind of change, through the real tools on a real sandbox of `project`. */
async function captureChanges(project: string, base: string) {
  const sandbox = await createSandbox(project, path.join(base, 'sandboxes'), 'PLAN');
  const h = harness(sandbox);
  await h.call('file.write', { path: 'docs/guide.md', content: '# Guide\n\nRead me.\n' });
  await h.call('file.write', { path: 'notes.txt', content: 'draft\n' });
  await h.call('file.edit', { path: 'notes.txt', find: 'draft', replace: 'final' });
  await h.call('file.edit', { path: 'README.md', find: 'A demo project.', replace: 'A demo project.\n\nMIT licensed.' });
  await h.call('file.edit', { path: 'no-eol.txt', find: 'last line', replace: 'the last line' });
  await h.call('file.edit', { path: 'crlf.txt', find: 'two', replace: 'TWO' });
  await h.call('file.edit', { path: 'run.sh', find: 'one', replace: 'two' });
  await h.call('file.delete', { path: 'obsolete.txt' });
  await h.call('file.delete', { path: 'dir-to-empty/only.txt' });
  await h.call('file.rename', { from: 'src/old-name.ts', to: 'src/new-name.ts' });
  await h.call('file.rename', { from: 'lib/util.ts', to: 'lib2/util.ts' });
  await h.call('file.edit', { path: 'lib2/util.ts', find: 'return 1;', replace: 'return 2;' });
  await h.call('file.write', { path: 'with space/file name.txt', content: 'spaced\n' });
  await h.call('file.write', { path: 'ünïcode.txt', content: 'ü\n' });
  await h.call('file.write', { path: 'tmp.txt', content: 'short-lived\n' });
  await h.call('file.delete', { path: 'tmp.txt' });
  await h.call('file.delete', { path: 'flip' });
  await h.call('file.write', { path: 'flip/inner.txt', content: 'now a directory\n' });
  await h.call('shell.run', {
    command: [
      "mkdir -p assets shell && printf '\\211PNG\\r\\n\\032\\n\\000\\000\\000\\015IHDR' > assets/logo.bin",
      "printf '\\000\\001\\002\\003\\377\\376\\000\\011' > data.bin",
      'rm binary-old.bin',
      'mv moved-by-shell.txt shell/moved.txt',
      ': > empty.txt',
      "printf 'tabbed\\n' > \"$(printf 'tab\\tname.txt')\"",
      "printf 'quoted\\n' > 'quote\"name.txt'",
    ].join(' && '),
  });
  return { sandbox, entries: h.entries };
}

function filesOnly(state: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(state).filter(([, v]) => v !== 'dir'));
}

describe('exportPatch and applyReviewed', () => {
  it('export a patch that git applies to the original project, giving the same tree as applying every file and the sandbox', async () => {
    const base = realpathSync(tempDir('agents-apply-'));
    const project = makeProject(base);
    const { sandbox, entries } = await captureChanges(project, base);

    const patch = exportPatch(entries);
    expect(patch).toContain('diff --git a/lib/util.ts b/lib2/util.ts\n');
    expect(patch).toContain('rename from src/old-name.ts\nrename to src/new-name.ts\n');
    expect(patch).toContain('deleted file mode 100644');
    expect(patch).toContain('GIT binary patch');
    expect(patch).not.toContain('tmp.txt');
    expect(patch.match(/^diff --git a\/notes.txt/gm)).toHaveLength(1);
    const patchFile = path.join(base, 'changes.patch');
    writeFileSync(patchFile, patch);

    const viaGit = path.join(base, 'via-git');
    cpSync(project, viaGit, { recursive: true, verbatimSymlinks: true });
    const check = spawnSync('git', ['apply', '--check', patchFile], { cwd: viaGit, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    git(viaGit, 'apply', patchFile);

    const viaApply = path.join(base, 'via-apply');
    cpSync(project, viaApply, { recursive: true, verbatimSymlinks: true });
    const result = await apply(viaApply, entries, []);
    expect(result.conflicts).toEqual([]);
    expect(result.skipped).toEqual([]);
    expect(result.applied).toContain('lib2/util.ts');
    expect(result.applied).toContain('obsolete.txt');

    expect(treeState(viaApply)).toEqual(treeState(viaGit));
    expect(filesOnly(treeState(viaApply))).toEqual(filesOnly(treeState(sandbox)));
    expect(readFileSync(path.join(viaApply, 'data.bin'))).toEqual(Buffer.from([0, 1, 2, 3, 255, 254, 0, 9]));
    expect(statSync(path.join(viaApply, 'run.sh')).mode & 0o777).toBe(0o755);
    // git sees exactly the changes the changeset describes.
    expect(git(viaApply, 'status', '--porcelain').split('\n').filter(Boolean).length).toBeGreaterThan(10);
    expect(git(viaApply, 'diff', '--stat')).toBe(git(viaGit, 'diff', '--stat'));
  });

  it('gives every text entry a unified diff and binary entries none', async () => {
    const base = realpathSync(tempDir('agents-apply-'));
    const { entries } = await captureChanges(makeProject(base), base);
    for (const entry of entries) {
      if (entry.binary) expect(unifiedDiff(entry)).toBeNull();
      else expect(unifiedDiff(entry)).toMatch(/^diff --git /);
    }
  });
});

describe('applyReviewed conflicts', () => {
  async function setup() {
    const base = realpathSync(tempDir('agents-conflict-'));
    const project = path.join(base, 'project');
    writeTree(project, { 'a.txt': 'a\n', 'c.txt': 'c\n', 'keep.txt': 'keep\n' });
    const sandbox = await createSandbox(project, path.join(base, 'sandboxes'), 'PLAN');
    const h = harness(sandbox);
    await h.call('file.write', { path: 'a.txt', content: 'a from the plan\n' });
    await h.call('file.write', { path: 'b.txt', content: 'b from the plan\n' });
    await h.call('file.edit', { path: 'c.txt', find: 'c', replace: 'c from the plan' });
    return { base, project, entries: h.entries };
  }

  it('reports a file changed in the project since capture, and writes nothing at all', async () => {
    const { project, entries } = await setup();
    writeFileSync(path.join(project, 'a.txt'), 'the operator edited this\n');
    const before = treeState(project);
    const result = await apply(project, entries, []);
    expect(result).toEqual({
      applied: [],
      skipped: [],
      records: [],
      conflicts: [{ path: 'a.txt', expectedHash: sha256('a\n'), actualHash: sha256('the operator edited this\n'), reason: expect.stringContaining('modified in the project') }],
    });
    expect(treeState(project)).toEqual(before);
  });

  it('with force, writes every file as the review shows it, over the conflicting one too, and still reports the conflict', async () => {
    const { project, entries } = await setup();
    writeFileSync(path.join(project, 'a.txt'), 'the operator edited this\n');
    const result = await apply(project, entries, [], { force: true });
    expect(result.applied).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(result.conflicts.map((c) => c.path)).toEqual(['a.txt']);
    expect(result.records.map((r) => [r.path, r.contentHash])).toEqual([
      ['a.txt', sha256('a from the plan\n')],
      ['b.txt', sha256('b from the plan\n')],
      ['c.txt', sha256('c from the plan\n')],
    ]);
    expect(readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('a from the plan\n');
    expect(readFileSync(path.join(project, 'b.txt'), 'utf8')).toBe('b from the plan\n');
    expect(readFileSync(path.join(project, 'c.txt'), 'utf8')).toBe('c from the plan\n');
  });

  it('with force, leaves alone a file whose place a directory now takes, and writes the rest', async () => {
    const { project, entries } = await setup();
    mkdirSync(path.join(project, 'b.txt'));
    writeFileSync(path.join(project, 'b.txt', 'inside.txt'), 'mine\n');
    const refused = await apply(project, entries, []);
    expect(refused.conflicts).toEqual([{ path: 'b.txt', expectedHash: null, actualHash: null, reason: 'a directory is in the way' }]);
    expect(refused.applied).toEqual([]);
    const forced = await apply(project, entries, [], { force: true });
    expect(forced.applied).toEqual(['a.txt', 'c.txt']);
    expect(readFileSync(path.join(project, 'b.txt', 'inside.txt'), 'utf8')).toBe('mine\n');
  });

  it('reports a file the changeset creates that now exists in the project', async () => {
    const { project, entries } = await setup();
    writeFileSync(path.join(project, 'b.txt'), 'someone was first\n');
    const { conflicts, applied } = await apply(project, entries, []);
    expect(conflicts).toEqual([{ path: 'b.txt', expectedHash: null, actualHash: sha256('someone was first\n'), reason: expect.stringContaining('created in the project') }]);
    expect(applied).toEqual([]);
  });

  it('applies only the chosen paths and reports the others as skipped', async () => {
    const { project, entries } = await setup();
    const result = await apply(project, entries, [], { paths: ['./c.txt'] });
    expect(result).toMatchObject({ applied: ['c.txt'], conflicts: [], skipped: ['a.txt', 'b.txt'] });
    expect(readFileSync(path.join(project, 'a.txt'), 'utf8')).toBe('a\n');
    await expect(apply(project, entries, [], { paths: ['nope.txt'] })).rejects.toThrow('path "nope.txt" is not changed by this changeset');
  });

  it('with the records of an earlier apply, applying again writes nothing; without them, every file is a conflict', async () => {
    const { project, entries } = await setup();
    const first = await apply(project, entries, []);
    const after = treeState(project);
    expect(await apply(project, entries, first.records)).toEqual({ applied: [], conflicts: [], skipped: [], records: [] });
    expect(treeState(project)).toEqual(after);
    const again = await apply(project, entries, []);
    expect(again.conflicts.map((c) => c.path)).toEqual(['a.txt', 'b.txt', 'c.txt']);
    expect(treeState(project)).toEqual(after);
  });
});

describe('applyReviewed confinement', () => {
  it('refuses entries whose paths leave the project, before writing anything', async () => {
    const base = realpathSync(tempDir('agents-confine-'));
    const project = path.join(base, 'project');
    const outside = path.join(base, 'outside');
    writeTree(project, { 'ok.txt': 'ok\n' });
    mkdirSync(outside);
    symlinkSync(outside, path.join(project, 'out-link'));
    const valid = toChangeEntry({ operation: 'modify', path: 'ok.txt', before: Buffer.from('ok\n'), after: Buffer.from('changed\n') }, { decisionId: null, invocationId: null });
    const forged = [
      ['../escape.txt', 'escapes the project'],
      ['out-link/x.txt', 'resolves outside the project through symlink "out-link"'],
      ['.git/hooks/post-checkout', 'is inside .git'],
    ];
    for (const [forgedPath, rule] of forged) {
      const bad = toChangeEntry({ operation: 'create', path: forgedPath, before: null, after: Buffer.from('x') }, { decisionId: null, invocationId: null });
      const error = await apply(project, [valid, bad], []).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(EngineError);
      expect((error as EngineError).message).toContain(rule);
      expect(readFileSync(path.join(project, 'ok.txt'), 'utf8')).toBe('ok\n');
    }
    expect(readdirSync(base).sort()).toEqual(['outside', 'project']);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('restores binary files byte for byte', async () => {
    const base = realpathSync(tempDir('agents-binary-'));
    const project = path.join(base, 'project');
    mkdirSync(project);
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const entry = toChangeEntry({ operation: 'create', path: 'all-bytes.bin', before: null, after: bytes }, { decisionId: null, invocationId: null });
    expect(entry.binary).toBe(true);
    await apply(project, [entry], []);
    expect(readFileSync(path.join(project, 'all-bytes.bin'))).toEqual(bytes);
  });
});

describe('a mode changed alone (a chmod, the same content)', () => {
  it('is listed in the review and the patch as git lists it, applied to the project, and git apply of the patch agrees', async () => {
    const base = realpathSync(tempDir('agents-apply-'));
    const project = path.join(base, 'project');
    writeTree(project, { 'build.sh': '#!/bin/sh\necho build\n', 'tool.sh': '#!/bin/sh\necho tool\n', 'keep.txt': 'kept\n' });
    chmodSync(path.join(project, 'build.sh'), 0o644);
    chmodSync(path.join(project, 'tool.sh'), 0o755);
    git(project, 'init', '-q');
    git(project, 'add', '-A');
    git(project, 'commit', '-qm', 'initial');
    const sandbox = await createSandbox(project, path.join(base, 'sandboxes'), 'PLAN');
    const h = harness(sandbox);
    // One made runnable, one no longer runnable, one whose mode changes but not as git counts it (644 to 600).
    await h.call('shell.run', { command: 'chmod 755 build.sh && chmod 644 tool.sh && chmod 600 keep.txt' });

    const reviewed = reviewNet(h.entries, []);
    expect(reviewed.map((r) => [r.file.path, r.file.operation, r.file.modeChange])).toEqual([
      ['build.sh', 'modify', { from: '100644', to: '100755' }],
      ['tool.sh', 'modify', { from: '100755', to: '100644' }],
    ]);
    const patch = exportPatch(h.entries);
    expect(patch).toBe('diff --git a/build.sh b/build.sh\nold mode 100644\nnew mode 100755\ndiff --git a/tool.sh b/tool.sh\nold mode 100755\nnew mode 100644\n');

    const viaGit = path.join(base, 'via-git');
    cpSync(project, viaGit, { recursive: true });
    const patchFile = path.join(base, 'modes.patch');
    writeFileSync(patchFile, patch);
    git(viaGit, 'apply', patchFile);

    const result = await apply(project, h.entries, []);
    expect(result).toMatchObject({ applied: ['build.sh', 'tool.sh'], conflicts: [] });
    expect(statSync(path.join(project, 'build.sh')).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(project, 'tool.sh')).mode & 0o777).toBe(0o644);
    expect(git(project, 'status', '--porcelain')).toBe(git(viaGit, 'status', '--porcelain'));
    expect(git(project, 'diff')).toContain('old mode 100644\nnew mode 100755');
    // Applied: the review has nothing left, and a second apply writes nothing.
    expect(reviewNet(h.entries, result.records).map((r) => r.file.state)).toEqual(['applied', 'applied']);
  });
});
