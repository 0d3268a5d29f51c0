import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { ProjectInvariants } from '../../shared/domain';
import { EngineError } from './errors';
import type { CapturedChange } from './tool-runner';

/** `*` matches anything, the rest is literal; the glob must match the whole command. */
function commandPattern(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
}

/**
 * A project's rules from `.agents/invariants.yaml`, held against every tool call: protected paths
 * (gitignore-style globs on sandbox paths) and denied commands. A violation fails the step with
 * category `invariant` and names the rule.
 */
export class InvariantRules {
  private readonly protect: { glob: string; matcher: Ignore }[];
  private readonly deny: { glob: string; pattern: RegExp }[];

  constructor(invariants: ProjectInvariants) {
    this.protect = invariants.protect.map((glob) => ({ glob, matcher: ignore().add(glob) }));
    this.deny = invariants.denyCommands.map((glob) => ({ glob, pattern: commandPattern(glob) }));
  }

  get isEmpty(): boolean {
    return this.protect.length === 0 && this.deny.length === 0;
  }

  /** The protect rule that covers a sandbox-relative path, if any. */
  protectedBy(relPath: string): string | undefined {
    const clean = relPath.replace(/^\.\/+/, '');
    return this.protect.find((rule) => clean !== '' && rule.matcher.ignores(clean))?.glob;
  }

  /** Before a call runs: the paths it names and, for shell.run, its command. */
  checkCall(tool: string, args: Record<string, unknown>): void {
    if (tool === 'shell.run' && typeof args.command === 'string') {
      const rule = this.deny.find((d) => d.pattern.test(args.command as string));
      if (rule) throw violation(`${tool}: the command is denied by the project invariant denyCommands "${rule.glob}"`, `denyCommands "${rule.glob}"`);
    }
    if (tool === 'file.read' || tool === 'file.list' || tool === 'file.search') return;
    for (const key of ['path', 'from', 'to'] as const) {
      const value = args[key];
      const rule = typeof value === 'string' ? this.protectedBy(value) : undefined;
      if (rule) throw violation(`${tool}: ${String(value)} is protected by the project invariant protect "${rule}"`, `protect "${rule}"`);
    }
  }

  /** After a call ran (shell.run): the captured changes that touch a protected path. */
  violations(changes: readonly CapturedChange[]): { change: CapturedChange; rule: string }[] {
    const found: { change: CapturedChange; rule: string }[] = [];
    for (const change of changes) {
      const rule = this.protectedBy(change.path) ?? (change.oldPath ? this.protectedBy(change.oldPath) : undefined);
      if (rule) found.push({ change, rule });
    }
    return found;
  }
}

function violation(message: string, rule: string): EngineError {
  return new EngineError(message, 'invariant', { rule });
}

/** Puts a path back as it was before a refused change, so the sandbox keeps no trace of it. */
export function revertChange(sandboxRoot: string, change: CapturedChange): void {
  const target = path.join(sandboxRoot, change.path);
  rmSync(target, { force: true });
  const original = path.join(sandboxRoot, change.oldPath ?? change.path);
  if (change.before !== null) {
    mkdirSync(path.dirname(original), { recursive: true });
    writeFileSync(original, change.before);
  }
}

export function refusedChanges(found: { change: CapturedChange; rule: string }[]): EngineError {
  const first = found[0];
  const more = found.length > 1 ? ` (and ${found.length - 1} more)` : '';
  return violation(`${first.change.path}${more} is protected by the project invariant protect "${first.rule}"; the change was undone`, `protect "${first.rule}"`);
}
