// The escape suite: every way out of the sandbox we know of, through the real tools and the real
// ToolRunner, on real directories. After each case the canary directory beside the sandbox must be
// exactly as it was, and the call must be refused with a message naming the path and the rule.
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES } from '../../../shared/profiles';
import { EngineError } from '../errors';
import { InvariantRules } from '../gates/invariants';
import { createSandbox } from '../sandbox/sandbox';
import { cleanupTempDirs, type Harness, harness, tempDir, treeState } from './test-support';

let base: string;
let canary: string;
let sandbox: string;
let h: Harness;
let canaryBefore: Record<string, string>;
let baseBefore: string[];

beforeAll(async () => {
  base = realpathSync(tempDir('agents-escape-'));
  canary = path.join(base, 'canary');
  mkdirSync(canary);
  writeFileSync(path.join(canary, 'secret.txt'), 'top secret\n');
  const project = path.join(base, 'project');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(project, 'ok.txt'), 'ok\n');
  writeFileSync(path.join(project, 'src', 'main.ts'), 'secret search target\n');
  // Links that came with the project.
  symlinkSync('/etc', path.join(project, 'etc-link'));
  symlinkSync(path.join(canary, 'secret.txt'), path.join(project, 'secret-link'));
  symlinkSync(canary, path.join(project, 'canary-dir'));
  symlinkSync('../canary', path.join(project, 'rel-canary'));
  symlinkSync(path.join(canary, 'planted.txt'), path.join(project, 'dangling'));
  symlinkSync('rel-canary', path.join(project, 'chain'));
  execFileSync('git', ['init', '-q'], { cwd: project });
  sandbox = await createSandbox(project, path.join(base, 'sandboxes'), 'ESCAPE');
  h = harness(sandbox);
  canaryBefore = treeState(canary);
  baseBefore = readdirSync(base).sort();
});
afterAll(cleanupTempDirs);

type Case = [name: string, tool: string, args: Record<string, unknown>, pathShown: string, rule: string];

const escapes: Case[] = [
  ['.. out of the root', 'file.write', { path: '../canary/pwned.txt', content: 'x' }, '"../canary/pwned.txt"', 'escapes the sandbox (.. outside the root)'],
  ['.. hidden behind a subdirectory', 'file.write', { path: 'src/../../canary/pwned.txt', content: 'x' }, '"src/../../canary/pwned.txt"', 'escapes the sandbox'],
  ['.. in a read', 'file.read', { path: '../canary/secret.txt' }, '"../canary/secret.txt"', 'escapes the sandbox'],
  ['absolute path write', 'file.write', { path: '/tmp/agents-pwned.txt', content: 'x' }, '"/tmp/agents-pwned.txt"', 'is absolute'],
  ['absolute path read of /etc/passwd', 'file.read', { path: '/etc/passwd' }, '"/etc/passwd"', 'is absolute'],
  ['absolute path into the canary', 'file.edit', { path: '__CANARY__/secret.txt', find: 'top', replace: 'x' }, '/canary/secret.txt"', 'is absolute'],
  ['project symlink to /etc', 'file.read', { path: 'etc-link/passwd' }, '"etc-link/passwd"', 'resolves outside the sandbox through symlink "etc-link" -> "/etc"'],
  ['project symlink to a file outside, written', 'file.write', { path: 'secret-link', content: 'x' }, '"secret-link"', 'resolves outside the sandbox through symlink "secret-link"'],
  ['project symlink to a file outside, edited', 'file.edit', { path: 'secret-link', find: 'top', replace: 'x' }, '"secret-link"', 'resolves outside the sandbox'],
  ['symlinked directory outside', 'file.write', { path: 'canary-dir/pwned.txt', content: 'x' }, '"canary-dir/pwned.txt"', 'resolves outside the sandbox through symlink "canary-dir"'],
  ['relative symlink climbing out', 'file.read', { path: 'rel-canary/secret.txt' }, '"rel-canary/secret.txt"', 'through symlink "rel-canary" -> "../canary"'],
  ['chain of symlinks', 'file.write', { path: 'chain/pwned.txt', content: 'x' }, '"chain/pwned.txt"', 'resolves outside the sandbox'],
  ['dangling symlink to a new file outside', 'file.write', { path: 'dangling', content: 'x' }, '"dangling"', 'resolves outside the sandbox through symlink "dangling"'],
  ['NUL byte', 'file.write', { path: 'ok.txt\0../../canary/secret.txt', content: 'x' }, '"ok.txt\\u0000', 'contains a NUL byte'],
  ['over-long path', 'file.write', { path: `${'d/'.repeat(2100)}x`, content: 'x' }, '"d/d/d/', 'bytes long (the limit is 4096)'],
  ['over-long component', 'file.write', { path: 'x'.repeat(300), content: 'x' }, '"xxxx', 'is longer than 255 bytes'],
  ['rename target outside', 'file.rename', { from: 'ok.txt', to: '../canary/moved.txt' }, '"../canary/moved.txt"', 'escapes the sandbox'],
  ['rename target through a symlinked directory', 'file.rename', { from: 'ok.txt', to: 'canary-dir/moved.txt' }, '"canary-dir/moved.txt"', 'resolves outside the sandbox'],
  ['rename source outside', 'file.rename', { from: '../canary/secret.txt', to: 'stolen.txt' }, '"../canary/secret.txt"', 'escapes the sandbox'],
  ['rename source through a symlinked directory', 'file.rename', { from: 'canary-dir/secret.txt', to: 'stolen.txt' }, '"canary-dir/secret.txt"', 'resolves outside the sandbox'],
  ['delete through a symlinked directory', 'file.delete', { path: 'canary-dir/secret.txt' }, '"canary-dir/secret.txt"', 'resolves outside the sandbox'],
  ['list outside', 'file.list', { path: '..' }, '".."', 'escapes the sandbox'],
  ['list a symlinked directory outside', 'file.list', { path: 'canary-dir' }, '"canary-dir"', 'resolves outside the sandbox'],
  ['search outside', 'file.search', { pattern: 'secret', path: '../canary' }, '"../canary"', 'escapes the sandbox'],
  ['search through a symlink outside', 'file.search', { pattern: 'secret', path: 'rel-canary' }, '"rel-canary"', 'resolves outside the sandbox'],
  ['write into .git (hooks run on the operator machine)', 'file.write', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' }, '".git/hooks/pre-commit"', 'is inside .git'],
  ['Windows drive path', 'file.write', { path: 'C:\\canary\\pwned.txt', content: 'x' }, '"C:\\\\canary', 'is absolute'],
];

describe('escape suite: no tool path leaves the sandbox', () => {
  it.each(escapes)('refuses %s', async (_name, tool, args, pathShown, rule) => {
    const resolvedArgs = JSON.parse(JSON.stringify(args).replaceAll('__CANARY__', canary)) as Record<string, unknown>;
    const error = await h.call(tool, resolvedArgs).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    const { message, category } = error as EngineError;
    expect(message).toContain(pathShown);
    expect(message).toContain(rule);
    expect(['policy', 'validation']).toContain(category);
    expect(treeState(canary)).toEqual(canaryBefore);
    expect(readdirSync(base).sort()).toEqual(baseBefore);
  });

  it('refuses to delete a symlink as if it were the file outside it points to', async () => {
    await expect(h.call('file.delete', { path: 'secret-link' })).rejects.toThrow('file.delete: "secret-link" is not a regular file');
    expect(treeState(canary)).toEqual(canaryBefore);
  });

  it('a link made by shell.run is removed and reported, so a later write lands inside', async () => {
    const result = (await h.call('shell.run', { command: `ln -s ${canary} shell-link` })) as { removedSymlinks: unknown };
    expect(result.removedSymlinks).toEqual([{ path: 'shell-link', target: canary }]);
    await h.call('file.write', { path: 'shell-link/pwned.txt', content: 'x' });
    expect(readFileSync(path.join(sandbox, 'shell-link', 'pwned.txt'), 'utf8')).toBe('x');
    expect(treeState(canary)).toEqual(canaryBefore);
  });

  it('a link planted behind the tools’ back is caught at the moment of use', async () => {
    await h.call('file.write', { path: 'later/file.txt', content: 'inside' });
    // Whatever made it (a process that left the shell's process group, say), the next use judges it.
    execFileSync('rm', ['-r', path.join(sandbox, 'later')]);
    symlinkSync(canary, path.join(sandbox, 'later'));
    await expect(h.call('file.write', { path: 'later/file.txt', content: 'x' })).rejects.toThrow('path "later/file.txt": resolves outside the sandbox through symlink "later"');
    await expect(h.call('file.rename', { from: 'ok.txt', to: 'later/ok.txt' })).rejects.toThrow('resolves outside the sandbox');
    expect(treeState(canary)).toEqual(canaryBefore);
  });

  it('a hard link to a file outside, planted behind the tools’ back, is never written through', async () => {
    try {
      linkSync(path.join(canary, 'secret.txt'), path.join(sandbox, 'hard.txt'));
    } catch {
      return; // hard links across these directories are not allowed here: nothing to prove
    }
    await h.call('file.write', { path: 'hard.txt', content: 'overwritten' });
    await h.call('file.edit', { path: 'hard.txt', find: 'overwritten', replace: 'edited' });
    expect(readFileSync(path.join(sandbox, 'hard.txt'), 'utf8')).toBe('edited');
    expect(treeState(canary)).toEqual(canaryBefore);
  });

  it('file.list and file.search of the root do not follow links outside', async () => {
    const listed = (await h.call('file.list', {})) as { entries: { path: string; type: string }[] };
    expect(listed.entries.filter((e) => e.path.startsWith('canary-dir'))).toEqual([{ path: 'canary-dir', type: 'symlink' }]);
    const found = (await h.call('file.search', { pattern: 'top secret' })) as { matches: unknown[] };
    expect(found.matches).toEqual([]);
  });

  it('left the canary exactly as it was, and made nothing beside the sandbox', () => {
    expect(escapes.length).toBeGreaterThanOrEqual(20);
    expect(treeState(canary)).toEqual(canaryBefore);
    expect(existsSync(path.join(canary, 'planted.txt'))).toBe(false);
    expect(readdirSync(base).sort()).toEqual(baseBefore);
    expect(existsSync('/tmp/agents-pwned.txt')).toBe(false);
  });
});

// A model may also try to hold the host rather than leave the sandbox: a pattern that backtracks for
// ever. file.search matches in linear time, and what RE2 cannot run is refused as bad input.
describe('escape suite: no search pattern holds the host', () => {
  it('^(a+)+$ over 40 a and a ! returns at once; a backreference is refused as validation, naming the pattern', async () => {
    writeFileSync(path.join(sandbox, 'strings.txt'), `${'a'.repeat(40)}!\n`);
    const started = performance.now();
    expect(await h.call('file.search', { pattern: '^(a+)+$', path: 'strings.txt' })).toMatchObject({ matches: [], filesSearched: 1 });
    expect(performance.now() - started).toBeLessThan(1_000);
    const error = await h.call('file.search', { pattern: '^(a+)\\1$' }).then(
      () => null,
      (e: unknown) => e as Error & { field?: string },
    );
    expect(error?.message).toMatch(/^args\.pattern: "\^\(a\+\)\\\\1\$" is not a valid regular expression in RE2 syntax: backreferences/);
    expect(error?.field).toBe('args.pattern');
  });
});

// The same rule for commands: whatever a shell command tries, it fails (the OS confinement has no
// way out to offer) and nothing outside the sandbox changes. These run under the confinement the
// platform provides; a machine without one fails here rather than passing unconfined.
describe('escape suite: no shell command leaves the sandbox', () => {
  let listener: Server;
  let port: number;
  let connections = 0;
  const secret = () => path.join(canary, 'secret.txt');

  beforeAll(async () => {
    listener = createServer((socket) => {
      connections += 1;
      socket.on('error', () => undefined); // the client may exit before reading
      socket.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  const nodeConnect = (p: () => number) =>
    `node -e "require('net').connect(${p()}, '127.0.0.1').on('connect', () => { console.log('connected'); process.exit(0) }).on('error', (e) => { console.error(e.code); process.exit(1) })"`;

  type ShellCase = [name: string, command: () => string];
  const shellEscapes: ShellCase[] = [
    ['write through an absolute path', () => `echo pwned > ${canary}/pwned.txt`],
    ['overwrite a file outside through an absolute path', () => `echo pwned > ${secret()}`],
    ['write through ..', () => 'echo pwned > ../../canary/pwned.txt'],
    ['write beside the sandbox through ..', () => 'echo pwned > ../pwned.txt'],
    ['make a folder beside the sandbox', () => 'mkdir ../pwned'],
    ['write through a symlink the command makes', () => `ln -s ${canary} out-link && echo pwned > out-link/pwned.txt`],
    ['write through a relative symlink climbing out', () => 'ln -s ../../canary up-link && echo pwned > up-link/pwned.txt'],
    ['write through /proc/self/cwd', () => 'echo pwned > /proc/self/cwd/../../canary/pwned.txt'],
    ['write through /proc/self/root', () => `echo pwned > /proc/self/root${canary}/pwned.txt`],
    ['write into a system folder', () => 'echo pwned > /etc/agents-pwned'],
    ['write into the real /tmp', () => `echo pwned > ${path.dirname(base)}/agents-pwned.txt && test -e ${base}/canary`],
    ['hard-link a file outside', () => `ln ${secret()} hard-link.txt`],
    ['read a secret file outside', () => `cat ${secret()}`],
    ['read a secret through a symlink', () => `ln -s ${secret()} s-link && cat s-link`],
    ['read a secret through /proc/self/cwd', () => 'cat /proc/self/cwd/../../canary/secret.txt'],
    ['list the canary', () => `ls ${canary}`],
    ['list the home folder', () => `ls ${homedir()}`],
    ['read /run/user', () => 'ls /run/user'],
    ['connect to a listener on 127.0.0.1', () => nodeConnect(() => port)],
    // What only root may read: hidden even when the engine runs as root (the command is nobody).
    ['read /etc/shadow', () => 'cat /etc/shadow'],
    ['read /etc/gshadow', () => 'cat /etc/gshadow'],
    ['list /etc/ssl/private', () => 'ls -a /etc/ssl/private'],
    ['list /root', () => 'ls -a /root'],
    ['read /root/.bashrc', () => 'cat /root/.bashrc'],
    ['read the shadow file through a link it makes', () => 'ln -s /etc/shadow shadow-link && cat shadow-link'],
  ];
  /** Lines only root may read, as the test (root on CI) sees them: none may come back from a command. */
  const rootOnlyLines = ['/etc/shadow', '/etc/gshadow', '/root/.bashrc'].flatMap((file) => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter((line) => line.trim().length > 3);
    } catch {
      return [];
    }
  });

  it.each(shellEscapes)('a command cannot %s', async (_name, command) => {
    const error = await h.call('shell.run', { command: command() }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    const { category, details } = error as EngineError;
    expect(category).toBe('tool');
    expect(details.confinement).toBe(process.platform === 'darwin' ? 'sandbox-exec' : 'bwrap-nobody');
    const output = `${String(details.stdoutTail)}${String(details.stderrTail)}`;
    expect(output).not.toMatch(/top secret|connected|hello from the host/);
    expect(rootOnlyLines.filter((line) => output.includes(line))).toEqual([]);
    expect(treeState(canary)).toEqual(canaryBefore);
    expect(readdirSync(base).sort()).toEqual(baseBefore);
    expect(readdirSync(path.join(base, 'sandboxes'))).toEqual(['ESCAPE']);
  });

  it('no connection reached the listener, and one does where the profile allows the network', async () => {
    expect(connections).toBe(0);
    const networked = harness(sandbox, { profile: { ...BUILTIN_PROFILES.trusted, approvalRequired: [], allowNetwork: true } });
    expect(await networked.call('shell.run', { command: nodeConnect(() => port) })).toMatchObject({ stdout: 'connected\n' });
    expect(connections).toBe(1);
  });

  it('no background, setsid or nohup process outlives the call', async () => {
    const late = (name: string) => `sleep 1.0531; echo late > ${sandbox}/${name}`;
    const started = Date.now();
    await h.call('shell.run', {
      command: `(${late('bg.txt')}) >/dev/null 2>&1 & setsid sh -c '${late('setsid.txt')}' >/dev/null 2>&1 & nohup sh -c '${late('nohup.txt')}' >/dev/null 2>&1 & echo started`,
    });
    expect(Date.now() - started).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(readdirSync(sandbox).filter((name) => ['bg.txt', 'setsid.txt', 'nohup.txt'].includes(name))).toEqual([]);
  });

  it('ends with 0 escapes: the canary as it was, nothing beside the sandbox, nothing in the real /tmp', () => {
    expect(shellEscapes.length).toBeGreaterThanOrEqual(21);
    expect(treeState(canary)).toEqual(canaryBefore);
    expect(readdirSync(base).sort()).toEqual(baseBefore);
    expect(existsSync(path.join(path.dirname(base), 'agents-pwned.txt'))).toBe(false);
    expect(existsSync('/etc/agents-pwned')).toBe(false);
  });
});

// A project's denyCommands holds every simple command of a shell.run command: no chained, spaced,
// quoted, nested or wrapped form of a denied command runs, and docs/ is still there afterwards.
describe('escape suite: no form of a denied command runs', () => {
  const rules = new InvariantRules({ protect: [], denyCommands: ['rm -rf *'], notes: [] });
  let guarded: Harness;
  const docs = () => path.join(sandbox, 'docs');

  beforeAll(() => {
    mkdirSync(docs(), { recursive: true });
    writeFileSync(path.join(docs(), 'guide.md'), '# Guide\n');
    guarded = harness(sandbox, { rules });
  });

  const forms: [name: string, command: string, simple: string][] = [
    ['chained with ;', 'true; rm -rf docs', 'rm -rf docs'],
    ['chained with &&', 'true && rm -rf docs', 'rm -rf docs'],
    ['chained with ||', 'false || rm -rf docs', 'rm -rf docs'],
    ['at the end of a pipe', 'echo x | rm -rf docs', 'rm -rf docs'],
    ['with extra spaces', '  rm   -rf   docs', 'rm -rf docs'],
    ['with quoted words', 'rm "-rf" \'docs\'', 'rm -rf docs'],
    ['behind a backslash', '\\rm -rf docs', 'rm -rf docs'],
    ['by its path', '/bin/rm -rf docs', '/bin/rm -rf docs'],
    ['in a subshell', '(rm -rf docs)', 'rm -rf docs'],
    ['in $(…)', 'echo $(rm -rf docs)', 'rm -rf docs'],
    ['in backticks', 'echo `rm -rf docs`', 'rm -rf docs'],
    ['in sh -c', "sh -c 'rm -rf docs'", 'rm -rf docs'],
    ['in bash -c', 'bash -c "echo hi; rm -rf docs"', 'rm -rf docs'],
    ['in eval', "eval 'rm -rf docs'", 'rm -rf docs'],
    ['in eval of eval', `eval "eval 'rm -rf docs'"`, 'rm -rf docs'],
    ['after xargs', 'echo docs | xargs rm -rf', 'rm -rf {}'],
    ['after env', 'env X=1 rm -rf docs', 'rm -rf docs'],
    ['after timeout and nohup', 'timeout 5 nohup rm -rf docs', 'rm -rf docs'],
    ['in find -exec', 'find . -maxdepth 1 -name docs -exec rm -rf {} +', 'rm -rf {}'],
    ['in a here-document fed to sh', "sh <<'EOF'\nrm -rf docs\nEOF", 'rm -rf docs'],
    ['in a function', 'f() { rm -rf docs; }; f', 'rm -rf docs'],
    ['in a trap', "trap 'rm -rf docs' EXIT", 'rm -rf docs'],
  ];

  it.each(forms)('refuses a denied command %s, before it runs', async (_name, command, simple) => {
    const error = await guarded.call('shell.run', { command }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EngineError);
    const { category, message, details } = error as EngineError;
    expect(category).toBe('invariant');
    expect(message).toContain(`"${simple}" is denied by the project invariant denyCommands "rm -rf *"`);
    expect(details).toEqual({ rule: 'denyCommands "rm -rf *"', command: simple });
    expect(existsSync(path.join(docs(), 'guide.md'))).toBe(true);
  });

  const hidden: [name: string, command: string][] = [
    ['from a variable', 'X=rm; $X -rf docs'],
    ['from a command substitution', '$(echo rm) -rf docs'],
    ['through eval of a variable', 'C="rm -rf docs"; eval "$C"'],
    ['through sh -c of a variable', 'C="rm -rf docs"; sh -c "$C"'],
    ['through a pipe into sh', 'echo "rm -rf docs" | sh'],
    ['through a glob for its name', '/bin/r? -rf docs'],
    ['with its option from a variable', 'rm -rf${u} docs'],
    ["with its option in $'…'", "rm $'-rf' docs"],
    ['with its option from a command substitution', 'rm "$(printf -- -rf)" docs'],
    ['through sh -', "echo 'rm -rf docs' | sh -"],
    ['through sh /dev/stdin', "sh /dev/stdin <<'E'\nrm -rf docs\nE"],
    ['through bash of a process substitution', 'bash <(echo rm -rf docs)'],
    ['through . /dev/stdin', ". /dev/stdin <<< 'rm -rf docs'"],
    ['through source of a process substitution', 'source <(echo rm -rf docs)'],
    ['through bash -c running . of a here-string', `bash -c ". /dev/stdin <<< 'rm -rf docs'"`],
  ];

  it.each(hidden)('under restricted, refuses a command built at run time %s', async (_name, command) => {
    const restricted = harness(sandbox, { rules, profile: { ...BUILTIN_PROFILES.restricted, approvalRequired: [], allowShell: true } });
    await expect(restricted.call('shell.run', { command })).rejects.toMatchObject({ category: 'policy', message: expect.stringContaining('the restricted profile refuses it') });
    expect(existsSync(path.join(docs(), 'guide.md'))).toBe(true);
  });

  it('the same forms, with no rule in the way, do delete: the suite above is not vacuous', async () => {
    const free = harness(sandbox);
    // /bin/sh (dash) has no $'…', <(…) or <<<: bash runs those.
    const forms = ['rm -rf${u} junk', `bash -c "rm \\$'-rf' junk"`, 'rm "$(printf -- -rf)" junk', "echo 'rm -rf junk' | sh -", "bash -c 'bash <(echo rm -rf junk)'", `bash -c ". /dev/stdin <<< 'rm -rf junk'"`];
    for (const command of forms) {
      mkdirSync(path.join(sandbox, 'junk', 'sub'), { recursive: true });
      await free.call('shell.run', { command });
      expect(existsSync(path.join(sandbox, 'junk')), command).toBe(false);
    }
  });

  it('a harmless command with an expansion runs under restricted, where no rule names it', async () => {
    const restricted = harness(sandbox, { rules, profile: { ...BUILTIN_PROFILES.restricted, approvalRequired: [], allowShell: true } });
    expect(await restricted.call('shell.run', { command: 'echo "$HOME" $((1 + 1))' })).toMatchObject({ stdout: expect.stringMatching(/ 2\n$/) });
  });

  it('runs what the rules allow, confined, and a chained delete does run where no rule denies it', async () => {
    expect(await guarded.call('shell.run', { command: 'ls docs' })).toMatchObject({ stdout: 'guide.md\n' });
    mkdirSync(path.join(sandbox, 'scratch'));
    await harness(sandbox).call('shell.run', { command: 'true; rm -rf scratch' });
    expect(existsSync(path.join(sandbox, 'scratch'))).toBe(false);
    expect(existsSync(path.join(docs(), 'guide.md'))).toBe(true);
  });
});
