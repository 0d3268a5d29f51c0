// Shared by the sandbox, tools and changeset tests: real temp directories and the real ToolRunner.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, lstatSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AutomationProfile } from '../../../shared/profiles';
import type { ChangeEntry } from '../../../shared/changes';
import { BUILTIN_PROFILES } from '../../../shared/profiles';
import { toChangeEntry } from '../run/change-capture';
import { ToolCallError } from '../errors';
import type { InvariantRules } from '../gates/invariants';
import type { CapturedChange } from './definition';
import { ToolRegistry, ToolRunner } from '../run/tool-runner';
import { registerBuiltinTools, type BuiltinToolsOptions } from './index';
import { InMemoryInvocationLog } from '../test-support/in-memory-stores';

const made: string[] = [];

/** A fresh real directory under the OS temp dir, removed by `cleanupTempDirs`. */
export function tempDir(prefix = 'agents-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface Harness {
  runner: ToolRunner;
  changes: CapturedChange[];
  entries: ChangeEntry[];
  /** Runs a tool through the real ToolRunner; returns its result, or throws the tool's own error. */
  call(tool: string, args: Record<string, unknown>): Promise<unknown>;
}

export function harness(sandboxRoot: string, options: { profile?: AutomationProfile; tools?: BuiltinToolsOptions; rules?: InvariantRules } = {}): Harness {
  const runner = new ToolRunner(registerBuiltinTools(new ToolRegistry(), options.tools), new InMemoryInvocationLog());
  const changes: CapturedChange[] = [];
  const entries: ChangeEntry[] = [];
  return {
    runner,
    changes,
    entries,
    async call(tool, args) {
      try {
        const invocation = await runner.execute(
          { tool, args },
          {
            planId: 'PLAN',
            decisionId: 'DECISION',
            sandboxRoot,
            profile: options.profile ?? BUILTIN_PROFILES.trusted,
            rules: options.rules,
            recordChange: async (change, invocationId) => {
              changes.push(change);
              entries.push(toChangeEntry(change, { decisionId: 'DECISION', invocationId }));
            },
          },
        );
        return invocation.result;
      } catch (error) {
        throw error instanceof ToolCallError ? error.cause : error;
      }
    },
  };
}

/** Every entry below `root` (`.git` excluded unless asked) as path -> content hash, `dir`, or `-> target` for links. */
export function treeState(root: string, options: { includeGit?: boolean } = {}): Record<string, string> {
  const state: Record<string, string> = {};
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git' && !options.includeGit) continue;
      const abs = path.join(dir, name);
      const relPath = rel ? `${rel}/${name}` : name;
      const stats = lstatSync(abs);
      if (stats.isSymbolicLink()) state[relPath] = `-> ${readlinkSync(abs)}`;
      else if (stats.isDirectory()) {
        state[relPath] = 'dir';
        walk(abs, relPath);
      } else state[relPath] = createHash('sha256').update(readFileSync(abs)).digest('hex');
    }
  };
  walk(root, '');
  return state;
}
