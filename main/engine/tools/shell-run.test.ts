import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES } from '../../../shared/profiles';
import type { EngineError } from '../errors';
import { OutputCapture } from './output-capture';
import { cleanupTempDirs, type Harness, harness, tempDir } from './test-support';

let root: string;
let h: Harness;

beforeEach(() => {
  root = realpathSync(tempDir('agents-shell-'));
  writeFileSync(path.join(root, 'keep.txt'), 'keep\n');
  writeFileSync(path.join(root, 'edit.txt'), 'old\n');
  writeFileSync(path.join(root, 'gone.txt'), 'bye\n');
  h = harness(root);
});
afterEach(cleanupTempDirs);

const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('should have failed'), (e: unknown) => e as EngineError);

/** Whether a process is gone: no such pid, or a zombie waiting to be reaped. */
function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

/** Host pids of live processes whose command line contains `marker`. */
function hostProcessesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmdline.includes(marker) && !processGone(Number(entry))) pids.push(Number(entry));
    } catch {
      // It ended while we looked.
    }
  }
  return pids;
}

async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return check();
}

describe('shell.run', () => {
  it('runs in the sandbox root with a minimal environment and returns its output', async () => {
    const result = (await h.call('shell.run', { command: 'pwd; echo "home=$HOME lang=$LANG term=$TERM"; echo oops >&2; env | wc -l' })) as Record<string, unknown>;
    const [cwd, vars, count] = String(result.stdout).trim().split('\n');
    expect(cwd).toBe(root);
    expect(vars).toBe(`home=${root} lang=C.UTF-8 term=dumb`);
    expect(Number(count)).toBeLessThanOrEqual(6);
    expect(result).toMatchObject({ exitCode: 0, stderr: 'oops\n' });
    expect(result.durationMs).toEqual(expect.any(Number));
  });

  it('captures every file the command created, modified, deleted or moved', async () => {
    await h.call('shell.run', {
      command: "mkdir -p out && printf 'made\\n' > out/new.txt && printf 'new\\n' > edit.txt && rm gone.txt && mv keep.txt kept.txt && printf '\\000\\001' > blob.bin",
    });
    const summary = h.changes.map((c) => [c.operation, c.oldPath ? `${c.oldPath} -> ${c.path}` : c.path, c.before?.toString('hex') ?? null, c.after?.toString('hex') ?? null]);
    const hex = (s: string) => Buffer.from(s).toString('hex');
    expect(summary).toEqual([
      ['create', 'blob.bin', null, '0001'],
      ['modify', 'edit.txt', hex('old\n'), hex('new\n')],
      ['delete', 'gone.txt', hex('bye\n'), null],
      ['rename', 'keep.txt -> kept.txt', hex('keep\n'), hex('keep\n')],
      ['create', 'out/new.txt', null, hex('made\n')],
    ]);
  });

  it('sees changes the file tools made between two commands', async () => {
    await h.call('shell.run', { command: 'true' });
    await h.call('file.write', { path: 'edit.txt', content: 'by tool\n' });
    await h.call('shell.run', { command: 'echo "by shell" >> edit.txt' });
    expect(h.changes.map((c) => [c.operation, c.before?.toString(), c.after?.toString()])).toEqual([
      ['modify', 'old\n', 'by tool\n'],
      ['modify', 'by tool\n', 'by tool\nby shell\n'],
    ]);
  });

  it('fails with a tool error carrying the exit code and output tails, and still records what changed', async () => {
    const error = await failure(h.call('shell.run', { command: 'echo partial > half.txt; echo working; echo "fatal: no" >&2; exit 3' }));
    expect(error).toMatchObject({ category: 'tool', message: 'shell.run: `echo partial > half.txt; echo working; echo "fatal: no" >&2…` exited with status 3: fatal: no' });
    expect(error.details).toMatchObject({ exitCode: 3, stdoutTail: 'working\n', stderrTail: 'fatal: no\n' });
    expect(h.changes).toMatchObject([{ operation: 'create', path: 'half.txt' }]);
  });

  it('names a long command shortened to one line', async () => {
    const command = `true &&\n  ${'echo x && '.repeat(10)}exit 1`;
    const error = await failure(h.call('shell.run', { command }));
    expect(error.message).toBe('shell.run: `true && echo x && echo x && echo x && echo x && echo x && e…` exited with status 1');
  });

  it('treats exit status 75 (EX_TEMPFAIL) as transient', async () => {
    expect(await failure(h.call('shell.run', { command: 'exit 75' }))).toMatchObject({ category: 'transient', message: expect.stringContaining('EX_TEMPFAIL') });
  });

  // Inside the PID namespace `$!` is not a host pid: find the processes by a unique argument instead.
  it('kills every process of the call on timeout, and the timeout is transient', async () => {
    const started = Date.now();
    const error = await failure(h.call('shell.run', { command: 'sleep 30.0417 & wait', timeoutMs: 400 }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(error).toMatchObject({ category: 'transient', message: 'shell.run: command timed out after 400 ms; its process group was killed' });
    expect(await eventually(() => hostProcessesWith('30.0417').length === 0)).toBe(true);
  });

  it('kills background jobs the command leaves behind, so nothing changes the sandbox afterwards', async () => {
    await h.call('shell.run', { command: '(sleep 1.0419; echo late > late.txt) >/dev/null 2>&1 & echo started' });
    expect(await eventually(() => hostProcessesWith('1.0419').length === 0)).toBe(true);
    await new Promise((r) => setTimeout(r, 1300));
    expect(existsSync(path.join(root, 'late.txt'))).toBe(false);
  });

  it('does not wait forever for a process that left the group but holds the output pipe', async () => {
    const started = Date.now();
    await h.call('shell.run', { command: 'setsid sleep 4 & echo started' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('records on the invocation that the command ran confined by bubblewrap, as nobody', async () => {
    await h.call('shell.run', { command: 'true' });
    expect((await h.runner.log.listForPlan('PLAN')).at(-1)).toMatchObject({ tool: 'shell.run', ok: true, confinement: 'bwrap-nobody' });
    await failure(h.call('shell.run', { command: 'exit 3' }));
    expect((await h.runner.log.listForPlan('PLAN')).at(-1)).toMatchObject({ ok: false, confinement: 'bwrap-nobody' });
  });

  it('runs the command as nobody (uid and gid 65534), whatever user runs the engine', async () => {
    expect(await h.call('shell.run', { command: 'id -u; id -g' })).toMatchObject({ stdout: '65534\n65534\n' });
  });

  it('as nobody, still writes the sandbox: the files belong to the engine’s user on the host and are captured', async () => {
    const inside = await h.call('shell.run', { command: "mkdir -p made && printf 'by nobody\\n' > made/out.txt && chmod 600 made/out.txt && printf 'more\\n' >> edit.txt && stat -c %u:%g made/out.txt" });
    expect(inside).toMatchObject({ stdout: '65534:65534\n' });
    const made = statSync(path.join(root, 'made', 'out.txt'));
    expect([made.uid, made.gid]).toEqual([process.getuid?.(), process.getgid?.()]);
    expect(readFileSync(path.join(root, 'made', 'out.txt'), 'utf8')).toBe('by nobody\n');
    expect(h.changes.map((c) => [c.operation, c.path, c.after?.toString()])).toEqual([
      ['modify', 'edit.txt', 'old\nmore\n'],
      ['create', 'made/out.txt', 'by nobody\n'],
    ]);
  });

  it('as nobody, runs the Node that runs the engine, and the system tools', async () => {
    const result = await h.call('shell.run', { command: 'node -e "console.log(process.version, process.getuid())" && printf "a\\nb\\n" | sort -r | tr -d "\\n" && echo' });
    expect(result).toMatchObject({ stdout: `${process.version} 65534\nba\n` });
  });

  it('refuses with one line saying why where no confinement is available, and runs nothing', async () => {
    const bare = harness(root, { tools: { confinement: async () => ({ ok: false, reason: 'bubblewrap (bwrap) is not installed' }) } });
    const error = await failure(bare.call('shell.run', { command: 'touch ran.txt' }));
    expect(error.category).toBe('policy');
    expect(error.message).toBe(
      'shell.run: refused: commands cannot be confined here (bubblewrap (bwrap) is not installed); set allowUnconfinedShell: true in the automation profile to run them unconfined',
    );
    expect(existsSync(path.join(root, 'ran.txt'))).toBe(false);
  });

  it('runs unconfined only when the profile allows it, and records that on the call', async () => {
    const profile = { ...BUILTIN_PROFILES.trusted, approvalRequired: [], allowUnconfinedShell: true };
    const bare = harness(root, { profile, tools: { confinement: async () => ({ ok: false, reason: 'no bwrap' }) } });
    expect(await bare.call('shell.run', { command: 'touch ran.txt' })).toMatchObject({ exitCode: 0 });
    expect(existsSync(path.join(root, 'ran.txt'))).toBe(true);
    expect((await bare.runner.log.listForPlan('PLAN')).at(-1)).toMatchObject({ ok: true, confinement: 'none' });
  });

  it('refuses to run at all when the profile does not allow the shell', async () => {
    const restricted = harness(root, { profile: BUILTIN_PROFILES.restricted });
    const error = await failure(restricted.call('shell.run', { command: 'touch ran.txt' }));
    expect(error).toMatchObject({ category: 'policy', message: 'shell.run is not allowed by the automation profile "restricted"' });
    expect(existsSync(path.join(root, 'ran.txt'))).toBe(false);
    expect(restricted.changes).toEqual([]);
  });

  it('truncates long output in the middle under a visible marker', async () => {
    const result = (await h.call('shell.run', { command: 'i=0; while [ $i -lt 3000 ]; do echo "line $i ................................"; i=$((i+1)); done' })) as { stdout: string };
    expect(result.stdout.length).toBeLessThan(66 * 1024);
    expect(result.stdout.startsWith('line 0 ')).toBe(true);
    expect(result.stdout.trimEnd().endsWith('line 2999 ................................')).toBe(true);
    expect(result.stdout).toMatch(/\n… \[truncated \d+ bytes\] …\n/);
  });

  it('removes symlinks the command pointed outside the sandbox and reports them; links inside stay', async () => {
    const outside = tempDir('agents-outside-');
    mkdirSync(path.join(root, 'dir'));
    const result = (await h.call('shell.run', { command: `ln -s ${outside} out-link && ln -s ../../etc/passwd dir/up && ln -s keep.txt in-link` })) as Record<string, unknown>;
    expect(result.removedSymlinks).toEqual([
      { path: 'dir/up', target: '../../etc/passwd' },
      { path: 'out-link', target: outside },
    ]);
    expect(existsSync(path.join(root, 'out-link'))).toBe(false);
    expect(readFileSync(path.join(root, 'in-link'), 'utf8')).toBe('keep\n');
  });
});

describe('special files', () => {
  it('a FIFO made by a command neither hangs file.read nor the next snapshot', async () => {
    await h.call('shell.run', { command: 'mkfifo pipe' });
    await expect(h.call('file.read', { path: 'pipe' })).rejects.toThrow('file.read: "pipe" is not a regular file');
    expect(await h.call('file.list', { path: '.' })).toMatchObject({ entries: expect.arrayContaining([{ path: 'pipe', type: 'other' }]) });
    await h.call('shell.run', { command: 'echo after > after.txt' });
    expect(h.changes.map((c) => c.path)).toEqual(['after.txt']);
  });
});

describe('OutputCapture', () => {
  it('keeps everything under the limit and never splits a UTF-8 character at a cut', () => {
    const small = new OutputCapture(16);
    small.push(Buffer.from('short'));
    expect(small.toString()).toBe('short');
    const big = new OutputCapture(10);
    big.push(Buffer.from('ééééééééééé'));
    expect(big.toString()).not.toContain('\uFFFD');
    expect(big.toString()).toMatch(/^éé\n… \[truncated \d+ bytes\] …\néé$/);
  });
});
