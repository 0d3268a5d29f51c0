import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors';
import type { EngineError } from '../errors';
import { ToolRegistry } from '../run/tool-runner';
import { builtinTools, registerBuiltinTools } from './index';
import { cleanupTempDirs, type Harness, harness, tempDir } from './test-support';

let root: string;
let h: Harness;

beforeEach(() => {
  root = tempDir('agents-tools-');
  mkdirSync(path.join(root, 'src'));
  writeFileSync(path.join(root, 'README.md'), '# Demo\n\nHello world.\n');
  writeFileSync(path.join(root, 'src', 'main.ts'), 'const a = 1;\nconst b = 2;\n');
  h = harness(root);
});
afterEach(cleanupTempDirs);

const read = (rel: string) => readFileSync(path.join(root, rel), 'utf8');
const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('should have failed'), (e: unknown) => e as EngineError);

describe('built-in tools', () => {
  it('registers the eight built-in tools', () => {
    expect(registerBuiltinTools(new ToolRegistry()).discover().map((t) => t.name)).toEqual([
      'file.delete',
      'file.edit',
      'file.list',
      'file.read',
      'file.rename',
      'file.search',
      'file.write',
      'shell.run',
    ]);
    expect(builtinTools()).toHaveLength(8);
  });

  it('each declares its effect; the read-only, writing and command tools are the registry’s lists by effect', () => {
    const registry = registerBuiltinTools(new ToolRegistry());
    expect(registry.names('read')).toEqual(['file.read', 'file.list', 'file.search']);
    expect(registry.names('write')).toEqual(['file.write', 'file.edit', 'file.delete', 'file.rename']);
    expect(registry.names('exec')).toEqual(['shell.run']);
    expect(registry.names()).toEqual(['file.read', 'file.write', 'file.edit', 'file.delete', 'file.rename', 'file.list', 'file.search', 'shell.run']);
    expect(registry.names('write', 'exec')).toEqual(['file.write', 'file.edit', 'file.delete', 'file.rename', 'shell.run']);
  });

  it('validates arguments strictly: unknown keys and wrong types are refused before anything runs', async () => {
    await expect(h.call('file.write', { path: 'x', content: 'y', mode: 'force' })).rejects.toBeInstanceOf(ValidationError);
    await expect(h.call('file.edit', { path: 'README.md', find: '', replace: 'x' })).rejects.toThrow(/args.find: must not be empty/);
    await expect(h.call('file.search', { pattern: '(' })).rejects.toThrow(/not a valid regular expression/);
    expect(h.changes).toEqual([]);
  });
});

describe('file.read', () => {
  it('returns text as UTF-8 and binary as base64', async () => {
    expect(await h.call('file.read', { path: 'README.md' })).toEqual({ path: 'README.md', size: 21, encoding: 'utf8', content: '# Demo\n\nHello world.\n' });
    writeFileSync(path.join(root, 'logo.bin'), Buffer.from([0x89, 0, 0xff]));
    expect(await h.call('file.read', { path: 'logo.bin' })).toMatchObject({ encoding: 'base64', content: Buffer.from([0x89, 0, 0xff]).toString('base64') });
  });

  it('fails clearly for a missing file and a directory', async () => {
    expect(await failure(h.call('file.read', { path: 'nope.txt' }))).toMatchObject({ category: 'tool', message: 'file.read: "nope.txt" does not exist' });
    expect((await failure(h.call('file.read', { path: 'src' }))).message).toContain('is a directory');
  });
});

describe('file.write', () => {
  it('creates a file with its parent directories and records a create', async () => {
    expect(await h.call('file.write', { path: 'docs/new/guide.md', content: 'Guide' })).toEqual({ path: 'docs/new/guide.md', operation: 'create', bytes: 5 });
    expect(read('docs/new/guide.md')).toBe('Guide');
    expect(h.changes).toEqual([{ operation: 'create', path: 'docs/new/guide.md', before: null, after: Buffer.from('Guide') }]);
  });

  it('overwrites a file, keeps its mode, and records before and after', async () => {
    chmodSync(path.join(root, 'README.md'), 0o755);
    await h.call('file.write', { path: './README.md', content: 'new' });
    expect(read('README.md')).toBe('new');
    expect(statSync(path.join(root, 'README.md')).mode & 0o777).toBe(0o755);
    expect(h.changes).toEqual([{ operation: 'modify', path: 'README.md', before: Buffer.from('# Demo\n\nHello world.\n'), after: Buffer.from('new') }]);
  });

  it('records nothing when the content is already there', async () => {
    expect(await h.call('file.write', { path: 'README.md', content: '# Demo\n\nHello world.\n' })).toMatchObject({ operation: 'unchanged' });
    expect(h.changes).toEqual([]);
  });

  it('records writes through an in-sandbox symlink under the real path', async () => {
    symlinkSync('src/main.ts', path.join(root, 'main-link.ts'));
    await h.call('file.write', { path: 'main-link.ts', content: 'x' });
    expect(h.changes[0]).toMatchObject({ operation: 'modify', path: 'src/main.ts' });
  });

  it('refuses to replace a directory', async () => {
    expect(await failure(h.call('file.write', { path: 'src', content: 'x' }))).toMatchObject({ category: 'tool', message: 'file.write: "src" is a directory' });
  });
});

describe('file.edit', () => {
  it('replaces a unique occurrence literally (no $& expansion)', async () => {
    expect(await h.call('file.edit', { path: 'src/main.ts', find: 'const b = 2;', replace: 'const b = "$&";' })).toEqual({ path: 'src/main.ts', replacements: 1 });
    expect(read('src/main.ts')).toBe('const a = 1;\nconst b = "$&";\n');
    expect(h.changes).toEqual([{ operation: 'modify', path: 'src/main.ts', before: Buffer.from('const a = 1;\nconst b = 2;\n'), after: Buffer.from('const a = 1;\nconst b = "$&";\n') }]);
  });

  it('fails with a tool error when find is missing', async () => {
    const error = await failure(h.call('file.edit', { path: 'src/main.ts', find: 'const z', replace: 'x' }));
    expect(error).toMatchObject({ category: 'tool', message: 'file.edit: find text "const z" was not found in "src/main.ts"' });
  });

  it('fails when find is ambiguous, and replaces every occurrence with all: true', async () => {
    const error = await failure(h.call('file.edit', { path: 'src/main.ts', find: 'const', replace: 'let' }));
    expect(error).toMatchObject({ category: 'tool', details: expect.objectContaining({ occurrences: 2 }) });
    expect(error.message).toContain('occurs 2 times in "src/main.ts"; make it unique or pass all: true');
    expect(read('src/main.ts')).toBe('const a = 1;\nconst b = 2;\n');
    expect(await h.call('file.edit', { path: 'src/main.ts', find: 'const', replace: 'let', all: true })).toMatchObject({ replacements: 2 });
    expect(read('src/main.ts')).toBe('let a = 1;\nlet b = 2;\n');
  });

  it('refuses missing and binary files', async () => {
    expect((await failure(h.call('file.edit', { path: 'none.ts', find: 'a', replace: 'b' }))).message).toBe('file.edit: "none.ts" does not exist');
    writeFileSync(path.join(root, 'img.bin'), Buffer.from([0, 1, 2, 97]));
    expect((await failure(h.call('file.edit', { path: 'img.bin', find: 'a', replace: 'b' }))).message).toContain('is not a UTF-8 text file');
  });
});

describe('file.delete', () => {
  it('deletes a file, prunes the emptied directory, and records the old bytes', async () => {
    await h.call('file.delete', { path: 'src/main.ts' });
    expect(existsSync(path.join(root, 'src'))).toBe(false);
    expect(h.changes).toEqual([{ operation: 'delete', path: 'src/main.ts', before: Buffer.from('const a = 1;\nconst b = 2;\n'), after: null }]);
  });

  it('refuses directories and missing files', async () => {
    expect((await failure(h.call('file.delete', { path: 'src' }))).message).toContain('is a directory');
    expect(await failure(h.call('file.delete', { path: 'gone.txt' }))).toMatchObject({ category: 'tool', message: 'file.delete: "gone.txt" does not exist' });
  });
});

describe('file.rename', () => {
  it('moves a file into a new directory and records one rename', async () => {
    expect(await h.call('file.rename', { from: 'src/main.ts', to: 'lib/index.ts' })).toEqual({ from: 'src/main.ts', to: 'lib/index.ts' });
    expect(read('lib/index.ts')).toBe('const a = 1;\nconst b = 2;\n');
    expect(existsSync(path.join(root, 'src'))).toBe(false);
    const content = Buffer.from('const a = 1;\nconst b = 2;\n');
    expect(h.changes).toEqual([{ operation: 'rename', path: 'lib/index.ts', oldPath: 'src/main.ts', before: content, after: content }]);
  });

  it('refuses to overwrite, to rename onto itself, and to move a missing file', async () => {
    expect((await failure(h.call('file.rename', { from: 'README.md', to: 'src/main.ts' }))).message).toContain('"src/main.ts" already exists');
    expect((await failure(h.call('file.rename', { from: 'README.md', to: './README.md' }))).message).toContain('are the same file');
    expect((await failure(h.call('file.rename', { from: 'nope', to: 'x' }))).category).toBe('tool');
    expect(h.changes).toEqual([]);
  });
});

describe('file.list', () => {
  it('lists recursively, sorted, without .git, with sizes', async () => {
    mkdirSync(path.join(root, '.git'));
    writeFileSync(path.join(root, '.git', 'HEAD'), 'ref');
    symlinkSync('/etc', path.join(root, 'etc-link'));
    expect(await h.call('file.list', {})).toEqual({
      path: '.',
      truncated: false,
      entries: [
        { path: 'README.md', type: 'file', size: 21 },
        { path: 'etc-link', type: 'symlink' },
        { path: 'src', type: 'directory' },
        { path: 'src/main.ts', type: 'file', size: 26 },
      ],
    });
    expect(await h.call('file.list', { path: 'src' })).toMatchObject({ path: 'src', entries: [{ path: 'src/main.ts', type: 'file' }] });
  });

  it('fails for a missing directory', async () => {
    expect((await failure(h.call('file.list', { path: 'nope' }))).message).toBe('file.list: "nope" does not exist');
  });
});

describe('file.search', () => {
  it('returns path:line matches of a regular expression over text files', async () => {
    writeFileSync(path.join(root, 'bin.dat'), Buffer.from([0, 99, 111, 110, 115, 116]));
    const result = (await h.call('file.search', { pattern: 'const [ab]' })) as { matches: unknown[]; filesSearched: number };
    expect(result.matches).toEqual([
      { location: 'src/main.ts:1', path: 'src/main.ts', line: 1, column: 1, text: 'const a = 1;' },
      { location: 'src/main.ts:2', path: 'src/main.ts', line: 2, column: 1, text: 'const b = 2;' },
    ]);
    expect(result.filesSearched).toBe(2);
    expect(await h.call('file.search', { pattern: 'Hello', path: 'README.md' })).toMatchObject({ matches: [{ location: 'README.md:3', column: 1 }] });
    expect(await h.call('file.search', { pattern: 'world', path: 'src' })).toMatchObject({ matches: [] });
  });

  it('matches in linear time: ^(a+)+$ over 40 a and a ! returns at once, and finds the line it matches', async () => {
    writeFileSync(path.join(root, 'strings.txt'), `${'a'.repeat(40)}!\n${'a'.repeat(40)}\n`);
    const started = performance.now();
    const result = (await h.call('file.search', { pattern: '^(a+)+$' })) as { matches: { location: string }[] };
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(result.matches.map((m) => m.location)).toEqual(['strings.txt:2']);
  });

  it('refuses what RE2 cannot run, as a validation error of one line that names the pattern and why', async () => {
    const cases: [string, RegExp][] = [
      ['(a)\\1', /^args\.pattern: "\(a\)\\\\1" is not a valid regular expression in RE2 syntax: backreferences \(\\1, \\k<name>\) are not supported$/],
      ['(?=x)y', /^args\.pattern: "\(\?=x\)y" is not a valid regular expression in RE2 syntax: lookahead and lookbehind/],
      ['(?<!x)y', /lookahead and lookbehind/],
      ['(', /^args\.pattern: "\(" is not a valid regular expression in RE2 syntax: missing closing \)/],
      ['a{1000}'.repeat(10), /^args\.pattern: "a\{1000\}.*" is too large for a search: its repetitions expand to about 10000 instructions \(at most 5000\)$/],
      ['x'.repeat(1001), /is too large for a search: 1001 characters \(at most 1000\)$/],
    ];
    for (const [pattern, message] of cases) {
      const started = performance.now();
      const error = await failure(h.call('file.search', { pattern }));
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('\n');
    }
  });

  it('keeps its line semantics: ^ and $ at each line, CRLF lines, UTF-16 columns, (?i), \\A per line', async () => {
    writeFileSync(path.join(root, 'crlf.txt'), 'first\r\nend here\r\n');
    writeFileSync(path.join(root, 'wide.txt'), '😀 café TODO\n');
    expect(await h.call('file.search', { pattern: 'here$', path: 'crlf.txt' })).toMatchObject({ matches: [{ location: 'crlf.txt:2', column: 5, text: 'end here' }] });
    expect(await h.call('file.search', { pattern: 'TODO', path: 'wide.txt' })).toMatchObject({ matches: [{ column: 9 }] });
    expect(await h.call('file.search', { pattern: '(?i)^hello', path: 'README.md' })).toMatchObject({ matches: [{ location: 'README.md:3' }] });
    expect(await h.call('file.search', { pattern: '\\Aconst b', path: 'src' })).toMatchObject({ matches: [{ location: 'src/main.ts:2' }] });
    expect(await h.call('file.search', { pattern: 'a = 1;\\s+const', path: 'src' })).toMatchObject({ matches: [] });
  });

  it('leaves out a line too long to match within a few milliseconds, and says how many', async () => {
    writeFileSync(path.join(root, 'bundle.min.js'), `${'x'.repeat(600_000)}needle\nneedle on a short line\n`);
    const result = await h.call('file.search', { pattern: 'needle', path: 'bundle.min.js' });
    expect(result).toMatchObject({ matches: [{ location: 'bundle.min.js:2' }], filesSearched: 1, longLinesSkipped: 1 });
    expect(await h.call('file.search', { pattern: 'const', path: 'src' })).not.toHaveProperty('longLinesSkipped');
  });
});
