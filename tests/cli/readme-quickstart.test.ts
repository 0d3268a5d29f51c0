import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './cli-harness';

interface Command {
  line: string;
  /** The exit status the README's comment promises: "(exit N)", else 0; null where the README sets no expectation. */
  expected: number | null;
}

/** The `sh` block of "## The command line": every line, and for each `npx agents` line what its comment promises. */
function quickStart(): { script: string[]; commands: Map<number, Command> } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The command line'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const script = block.split('\n');
  const commands = new Map<number, Command>();
  // After a step the reader does by hand, given only as a comment ("# fix the cause ..."), the rest of
  // that paragraph depends on it: those commands run, but what they exit with is not this test's.
  let afterManualStep = false;
  script.forEach((line, index) => {
    if (line.trim() === '') afterManualStep = false;
    if (line.trim().startsWith('#')) afterManualStep = true;
    if (!/\bnpx agents\b/.test(line)) return;
    const exit = /\(exit (\d+)\)/.exec(line);
    commands.set(index, { line, expected: afterManualStep ? null : exit ? Number(exit[1]) : 0 });
  });
  return { script, commands };
}

/** A copy of the repository's files with a .git of its own and a clean status, as a fresh clone has. */
function freshCopy(): string {
  const copy = join(mkdtempSync(join(tmpdir(), 'agents-readme-')), 'repo');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (file === 'node_modules') continue;
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    try {
      cpSync(join(ROOT, file), join(copy, file));
    } catch (error) {
      // A file deleted in the working tree but still in the index is not part of it.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: copy, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-qm', 'copy');
  // `npm ci` would make node_modules; it is the checkout's, and out of git's sight as in a clone.
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  appendFileSync(join(copy, '.git/info/exclude'), 'node_modules\n');
  return copy;
}

describe("the README's command-line quick start", () => {
  let repo: string;
  beforeAll(() => {
    repo = freshCopy();
    // The compiled CLI, as `npm run build` makes it: the same commands, started faster.
    const build = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'vite.cli.config.ts', '--logLevel', 'error'], { cwd: repo, encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
  }, 120_000);

  it('runs twice in a row through a real shell, each command exiting as its comment says, and leaves git status clean', () => {
    const { script, commands } = quickStart();
    expect(commands.size).toBeGreaterThanOrEqual(10);
    const lines = [...commands.values()].map((c) => c.line);
    expect(lines.some((l) => /npx agents demo/.test(l))).toBe(true);
    expect(lines.some((l) => /plan run \$id\s+#.*\(exit 1\)/.test(l))).toBe(true);

    const statuses = join(repo, '..', 'statuses');
    // Each line as the README has it; after each command, its line number and exit status.
    const body = script.map((line, index) => (commands.has(index) ? `${line}\necho "${index} $?" >> "${statuses}"` : line)).join('\n');
    writeFileSync(join(repo, '..', 'quickstart.sh'), body);
    const env: NodeJS.ProcessEnv = { ...process.env, AGENTS_RETRY_BASE_MS: '20' };
    delete env.AGENTS_HOME;
    for (const round of [1, 2]) {
      writeFileSync(statuses, '');
      const run = spawnSync('bash', [join(repo, '..', 'quickstart.sh')], { cwd: repo, env, encoding: 'utf8', timeout: 240_000 });
      expect(run.error).toBeUndefined();
      const seen = new Map(
        readFileSync(statuses, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(' ').map(Number) as [number, number]),
      );
      for (const [index, command] of commands) {
        expect(seen.has(index), `round ${round}: ${command.line} did not run\n${run.stderr}`).toBe(true);
        if (command.expected !== null) expect({ round, line: command.line, status: seen.get(index) }).toEqual({ round, line: command.line, status: command.expected });
      }
      // The plans worked on a copy: the repository's demo project, and everything else tracked, is untouched.
      expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe('');
    }
  }, 600_000);
});
