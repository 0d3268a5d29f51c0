import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { runCli } from './program';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI in this process, on a fresh data directory removed when the test ends, as `agents ARGS` prints and exits. */
export function inProcessCli(): { home: string; agents: (...args: string[]) => Promise<Ran> } {
  const home = mkdtempSync(join(tmpdir(), 'agents-cli-'));
  onTestFinished(() => rmSync(home, { recursive: true, force: true }));
  const agents = async (...args: string[]): Promise<Ran> => {
    const out = { stdout: '', stderr: '' };
    const code = await runCli(args, {
      stdout: (text) => void (out.stdout += text),
      stderr: (text) => void (out.stderr += text),
      isTTY: false,
      env: { AGENTS_HOME: home, AGENTS_RETRY_BASE_MS: '1' },
    });
    return { code, ...out };
  };
  return { home, agents };
}
