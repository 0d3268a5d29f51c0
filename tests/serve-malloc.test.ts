import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = path.resolve(__dirname, '../scripts/serve-malloc.cjs');
const dir = mkdtempSync(path.join(tmpdir(), 'serve-malloc-'));
// Starts as bin/agents.cjs does, then says what this process (after any re-exec) runs with.
const probe = path.join(dir, 'probe.cjs');
writeFileSync(
  probe,
  `require(${JSON.stringify(SCRIPT)}).serveMalloc();
const environ = require('node:fs').readFileSync('/proc/self/environ', 'utf8').split('\\0');
console.log(JSON.stringify({
  started: environ.find((v) => v.startsWith('MALLOC_MMAP_THRESHOLD_=')) ?? null,
  inherited: process.env.MALLOC_MMAP_THRESHOLD_ ?? null,
  marker: process.env.AGENTS_SERVE_MALLOC ?? null,
  argv: process.argv.slice(2),
}));
`,
);

function run(args: string[], env: Record<string, string> = {}) {
  const base = { ...process.env };
  delete base.MALLOC_MMAP_THRESHOLD_;
  const result = spawnSync(process.execPath, [probe, ...args], { env: { ...base, ...env }, encoding: 'utf8', timeout: 30_000 });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { started: string | null; inherited: string | null; marker: string | null; argv: string[] };
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(process.platform === 'linux')("agents serve's malloc setting (scripts/serve-malloc.cjs)", () => {
  it('serve starts again with the mmap threshold at 64 KB, its arguments kept, and its children do not inherit the setting', () => {
    expect(run(['serve', '--port', '0'])).toEqual({ started: 'MALLOC_MMAP_THRESHOLD_=65536', inherited: null, marker: null, argv: ['serve', '--port', '0'] });
    expect(run(['--database', 'postgres://x/y', 'serve'])).toMatchObject({ started: 'MALLOC_MMAP_THRESHOLD_=65536', argv: ['--database', 'postgres://x/y', 'serve'] });
  });

  it('leaves other commands, and an operator who set the threshold, alone', () => {
    expect(run(['plan', 'list'])).toMatchObject({ started: null, inherited: null });
    expect(run(['worker'])).toMatchObject({ started: null });
    expect(run(['serve'], { MALLOC_MMAP_THRESHOLD_: '131072' })).toMatchObject({ started: 'MALLOC_MMAP_THRESHOLD_=131072', inherited: '131072' });
  });
});
