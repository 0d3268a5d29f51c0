import { accessSync, closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { AutomationProfile } from '../../../shared/profiles';
import type { Confinement } from '../../../shared/tool-calls';
import type { McpServer } from '../../../shared/mcp';
import { isStdioServer } from '../../../shared/mcp';
import { EngineError } from '../errors';
import { type ConfinementProbe, detectConfinement, isUnder, unconfined } from '../tools/confinement';
import { confinedPath } from '../tools/shell-run';

/** How long a server may take to start and answer `initialize`. */
export const DEFAULT_MCP_START_TIMEOUT_MS = 30_000;
/** How long one call may take, unless the server's `timeoutMs` says otherwise. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;

/** The failure of one server, with a hint naming it that the failure card and the CLI show; `message` names it too. */
export function serverFailure(name: string, message: string, category: 'tool' | 'transient' | 'policy', details: Record<string, unknown> = {}): EngineError {
  const hint =
    category === 'policy'
      ? `The MCP server "${name}" is a local command the profile does not run here (no shell, or no confinement). Change the profile, or remove the server (agents mcp remove ${name}).`
      : `The MCP server "${name}" failed. Check it with \`agents mcp list\`, fix its command or URL (or remove it: agents mcp remove ${name}), then retry.`;
  return new EngineError(message, category, { server: name, hint, ...details });
}

/** `name` as the shell would find it on PATH; undefined when it is not there. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The folder a program or script is installed in: for anything inside a `node_modules`, that
 * outermost `node_modules` (the package and the dependencies it needs); otherwise the nearest
 * folder with a package.json, or the file's own folder. For a file straight in the home folder or
 * at `/`, that folder would be every file there: then only the file itself.
 */
export function installationFolder(file: string, home = homedir()): string {
  const parts = file.split(path.sep);
  const at = parts.indexOf('node_modules');
  if (at > 0) return parts.slice(0, at + 1).join(path.sep);
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    // The home folder (a package.json there is common) or above it would make every project readable.
    if (tooWide(dir, home)) break;
    if (existsSync(path.join(dir, 'package.json'))) return dir;
  }
  return tooWide(path.dirname(file), home) ? file : path.dirname(file);
}

/** Whether reading `dir` would read the home folder: it is `/`, the home folder, or above it (as written or through links). */
function tooWide(dir: string, home: string): boolean {
  const homes = [home, existsSync(home) ? realpathSync(home) : home];
  return dir === path.parse(dir).root || homes.some((h) => isSameOrAbove(dir, h));
}

/** Whether `dir` is `other` or one of the folders above it. */
function isSameOrAbove(dir: string, other: string): boolean {
  const rel = path.relative(dir, other);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** A package folder and, where its node_modules is a link elsewhere, the folder it links to. */
function withDependencies(folder: string): string[] {
  const modules = path.join(folder, 'node_modules');
  const real = existsSync(modules) ? realpathSync(modules) : modules;
  return real === modules ? [folder] : [folder, real];
}

/** The real path of an executable named by a path (relative to `cwd`) or found on PATH; null when there is none. */
function realProgram(command: string, cwd: string): string | null {
  const found = command.includes('/') ? path.resolve(cwd, command) : onPath(command);
  if (!found || !existsSync(found)) return null;
  return realpathSync(found);
}

/** Programs whose first argument is the script they run. */
const INTERPRETERS = /^(node|nodejs|bun|deno|python[0-9.]*|ruby|perl|php)$/;

/** What runs for a local server: the program by its real path, and the folders (or files) it must read. */
export function resolveLocalCommand(command: string, args: readonly string[], cwd = process.cwd(), home = homedir()): { file: string; args: string[]; readable: string[] } {
  const program = realProgram(command, cwd);
  if (!program) return { file: command, args: [...args], readable: [] };
  const readable = withDependencies(installationFolder(program, home));
  // An interpreter's script (`node server.js`): the script's package too.
  const script = INTERPRETERS.test(path.basename(program)) && args[0] !== undefined && !args[0].startsWith('-') ? path.resolve(cwd, args[0]) : null;
  const realScript = script && statSync(script, { throwIfNoEntry: false })?.isFile() ? realpathSync(script) : null;
  if (realScript) readable.push(...withDependencies(installationFolder(realScript, home)));
  // A package's node_modules may link anywhere: never to the home folder or above it.
  return { file: program, args: realScript ? [realScript, ...args.slice(1)] : [...args], readable: readable.filter((dir, i) => readable.indexOf(dir) === i && !tooWide(dir, home)) };
}

/** Quotes a word for /bin/sh. */
export function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export interface LocalLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Where the server's stderr goes: a file, read back when it fails to start. */
  stderr: number;
  confinement: Confinement;
  stderrTail(): string;
  dispose(): void;
}

/**
 * How a local server is started: confined as shell.run's commands are (the sandbox its working
 * folder and only writable place, its installation folder readable, no network unless the profile
 * allows it), through the same confiner. Refused where nothing confines it, unless the profile
 * allows unconfined commands.
 */
export async function localLaunch(
  name: string,
  server: Extract<McpServer, { command: string }>,
  sandboxRoot: string,
  profile: Pick<AutomationProfile, 'allowNetwork' | 'allowUnconfinedShell'> & { allowShell?: boolean },
  confinement: () => Promise<ConfinementProbe> = detectConfinement,
): Promise<LocalLaunch> {
  // A local server is a command: a profile that runs none (restricted) starts none.
  if (profile.allowShell === false) throw serverFailure(name, `MCP server "${name}": refused: the automation profile runs no commands, and a local server is one`, 'policy');
  const probe = await confinement();
  if (!probe.ok && !profile.allowUnconfinedShell) {
    throw serverFailure(name, `MCP server "${name}": refused: a local server cannot be confined here (${probe.reason})`, 'policy', { reason: probe.reason });
  }
  const confiner = probe.ok ? probe.confiner : unconfined;
  const resolved = resolveLocalCommand(server.command, server.args);
  const logDir = mkdtempSync(path.join(tmpdir(), 'agents-mcp-'));
  const logFile = path.join(logDir, 'stderr');
  const stderr = openSync(logFile, 'w');
  const env = { ...server.env, PATH: confinedPath(), HOME: sandboxRoot, LANG: 'C.UTF-8' };
  const dispose = () => {
    try {
      closeSync(stderr);
    } catch {
      // closed already
    }
    rmSync(logDir, { recursive: true, force: true });
  };
  const stderrTail = () => {
    try {
      return readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' | ').slice(-400);
    } catch {
      return '';
    }
  };
  if (confiner.kind === 'none') {
    // As shell.run's unconfined commands: the host's PATH, nothing else of our environment (no API key).
    return { command: resolved.file, args: resolved.args, env: { ...env, PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' }, cwd: sandboxRoot, stderr, confinement: 'none', stderrTail, dispose };
  }
  const readOnlyPaths = resolved.readable.filter((dir) => !isUnder(sandboxRoot, dir) && !isUnder(dir, sandboxRoot));
  const launch = confiner.launch({ command: `exec ${[resolved.file, ...resolved.args].map(shellWord).join(' ')}`, sandboxRoot, allowNetwork: profile.allowNetwork, readOnlyPaths });
  return { command: launch.file, args: launch.args, env, cwd: sandboxRoot, stderr, confinement: confiner.kind, stderrTail, dispose };
}

export { isStdioServer };
