import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '../..');
export const BIN = join(ROOT, 'bin/agents.cjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A fresh data directory and a copy of the examples, so tests never touch the checked-in demo. */
export function sandboxWorkspace(): { home: string; examples: string } {
  const base = mkdtempSync(join(tmpdir(), 'agents-cli-'));
  const examples = join(base, 'examples');
  cpSync(join(ROOT, 'examples'), examples, { recursive: true, filter: (src) => !src.endsWith('large-refactor.yaml') });
  return { home: join(base, 'home'), examples };
}

export function startAgents(args: string[], home: string, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, AGENTS_HOME: home, AGENTS_RETRY_BASE_MS: '20', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function agents(args: string[], home: string, env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = startAgents(args, home, env);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
  });
}

export async function agentsJson<T = unknown>(args: string[], home: string): Promise<T> {
  const result = await agents([...args, '--json'], home);
  if (result.code !== 0) throw new Error(`agents ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export async function createPlan(file: string, home: string, extra: string[] = []): Promise<string> {
  const result = await agents(['plan', 'create', file, ...extra], home);
  if (result.code !== 0) throw new Error(`create failed: ${result.stderr}`);
  return result.stdout.trim();
}

export function editYaml(file: string, edit: (text: string) => string): void {
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
}
