import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { ProjectInvariants } from '../../../shared/domain';
import { EngineError } from '../errors';
import { analyseShellCommand, type SimpleCommand } from './shell-commands';
import type { CapturedChange, ToolEffect } from '../tools/definition';

/** `*` matches anything, the rest is literal; the glob must match the whole command. */
function commandPattern(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's');
}

/** The command as written, and with its program's directory dropped (`/bin/rm -rf x` is `rm -rf x` too). */
function commandForms(command: SimpleCommand): string[] {
  const [program, ...args] = command.words;
  const base = path.posix.basename(program);
  return base === program ? [command.text] : [command.text, [base, ...args].join(' ').replace(/\s+/g, ' ')];
}

/**
 * A project's rules from `.agents/invariants.yaml`, held against every tool call: protected paths
 * (gitignore-style globs on sandbox paths), and denied and allowed commands (globs on each simple
 * command of a shell.run command). A violation fails the step with category `invariant` and names
 * the rule.
 */
export class InvariantRules {
  private readonly protect: { glob: string; matcher: Ignore }[];
  private readonly deny: { glob: string; pattern: RegExp }[];
  private readonly allow: { glob: string; pattern: RegExp }[] | undefined;

  constructor(invariants: ProjectInvariants) {
    this.protect = invariants.protect.map((glob) => ({ glob, matcher: ignore().add(glob) }));
    this.deny = invariants.denyCommands.map((glob) => ({ glob, pattern: commandPattern(glob) }));
    this.allow = invariants.allowCommands?.map((glob) => ({ glob, pattern: commandPattern(glob) }));
  }

  get isEmpty(): boolean {
    return this.protect.length === 0 && !this.hasCommandRules;
  }

  /** Whether shell.run commands are held to denyCommands or allowCommands. */
  get hasCommandRules(): boolean {
    return this.deny.length > 0 || this.allow !== undefined;
  }

  /**
   * Whether a command rule may turn on the words of a command run as `program`: a deny rule's
   * first word matches it (as written or without its directory), or allowCommands holds every command.
   */
  namesCommand(program: string): boolean {
    if (this.allow !== undefined) return true;
    const names = [program, path.posix.basename(program)];
    return this.deny.some(({ glob }) => {
      const first = glob.trim().split(/\s+/, 1)[0] ?? '';
      const patterns = [commandPattern(first), commandPattern(path.posix.basename(first))];
      return patterns.some((p) => names.some((name) => p.test(name)));
    });
  }

  /** The first simple command of `command` a command rule refuses, as the error the call fails with. */
  async commandRefusal(command: string): Promise<EngineError | undefined> {
    if (!this.hasCommandRules) return undefined;
    for (const simple of (await analyseShellCommand(command)).commands) {
      const forms = commandForms(simple);
      const denied = this.deny.find((d) => forms.some((form) => d.pattern.test(form)));
      if (denied) {
        return violation(`shell.run: "${simple.text}" is denied by the project invariant denyCommands "${denied.glob}"`, `denyCommands "${denied.glob}"`, simple.text);
      }
      if (this.allow && !this.allow.some((a) => a.pattern.test(simple.text))) {
        const rule = `allowCommands (it matches none of ${this.allow.map((a) => `"${a.glob}"`).join(', ') || 'an empty list'})`;
        return violation(`shell.run: "${simple.text}" is not allowed by the project invariant ${rule}`, rule, simple.text);
      }
    }
    return undefined;
  }

  /** The protect rule that covers a sandbox-relative path, if any. */
  protectedBy(relPath: string): string | undefined {
    const clean = relPath.replace(/^\.\/+/, '');
    return this.protect.find((rule) => clean !== '' && rule.matcher.ignores(clean))?.glob;
  }

  /**
   * Before a call runs: the paths a tool that changes files names and, for shell.run, each simple
   * command of its command. `effect` is the tool's own (undefined for a tool not registered): a
   * tool that only reads may name a protected path.
   */
  async checkCall(tool: string, args: Record<string, unknown>, effect: ToolEffect | undefined): Promise<void> {
    if (tool === 'shell.run' && typeof args.command === 'string') {
      const refused = await this.commandRefusal(args.command);
      if (refused) throw refused;
    }
    if (effect === 'read') return;
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

/** `command`: the simple command a command rule refused, which the plan tree shows beside the rule. */
function violation(message: string, rule: string, command?: string): EngineError {
  return new EngineError(message, 'invariant', command === undefined ? { rule } : { rule, command });
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
