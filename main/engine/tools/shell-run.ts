import { spawn } from 'node:child_process';
import path from 'node:path';
import { z } from 'zod';
import { EngineError } from '../errors';
import { resolveInSandbox } from '../sandbox/paths';
import { TreeChangeTracker } from '../sandbox/tracker';
import { defineTool, sandboxRootOf } from './common';
import type { AutomationProfile } from '../../../shared/profiles';
import { type Confiner, type ConfinementProbe, detectConfinement, type LaunchSpec, NODE_MOUNT, nodeFolder, unconfined } from './confinement';
import { OutputCapture } from './output-capture';

const name = 'shell.run';
/** sysexits.h EX_TEMPFAIL: "try again later", so the engine may retry. */
export const EX_TEMPFAIL = 75;
export const DEFAULT_SHELL_TIMEOUT_MS = 60_000;
/** After the shell exits, how long to wait for stdout/stderr to close before giving up on them. */
const STREAM_GRACE_MS = 1_000;

export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: OutputCapture;
  stderr: OutputCapture;
  durationMs: number;
}

/** Kills every process of the group whose leader is `pid`: the shell and anything it started. */
function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already empty.
  }
}

/** The PATH a confined command sees: the system's folders and the Node that runs us. */
export function confinedPath(): string {
  return [path.join(NODE_MOUNT, 'bin'), NODE_MOUNT, path.join(nodeFolder(), 'bin'), path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].filter((d, i, all) => all.indexOf(d) === i).join(':');
}

/**
 * Runs `command` with /bin/sh (or `launch`, the confined form of it) in its own process group
 * (detached), with a minimal environment and no stdin. On timeout the whole group is killed; when
 * the shell exits, stragglers it left running in the background are killed too, so nothing keeps
 * changing the sandbox after the call returns. (Confined, the PID namespace ends them all, setsid
 * children included.)
 */
export function runCommand(
  command: string,
  cwd: string,
  options: { timeoutMs: number; maxOutputBytes: number; launch?: LaunchSpec; onOutput?: (chunk: Buffer) => void },
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const stdout = new OutputCapture(options.maxOutputBytes);
    const stderr = new OutputCapture(options.maxOutputBytes);
    const launch = options.launch ?? { file: '/bin/sh', args: ['-c', command] };
    const child = spawn(launch.file, launch.args, {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: options.launch ? confinedPath() : (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'), HOME: cwd, LANG: 'C.UTF-8', TERM: 'dumb' },
    });
    let timedOut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, options.timeoutMs);
    let grace: NodeJS.Timeout | undefined;

    const finish = () => {
      if (settled || !exit) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      resolve({ exitCode: exit.code, signal: exit.signal, timedOut, stdout, stderr, durationMs: performance.now() - started });
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      options.onOutput?.(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      options.onOutput?.(chunk);
    });
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child.pid);
      reject(new EngineError(`${name}: could not start ${launch.file}: ${error.message}`, 'internal', { command }));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killGroup(child.pid);
      // A process that left the group (setsid) may still hold our pipes: don't wait for it forever.
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish();
      }, STREAM_GRACE_MS);
    });
    child.on('close', finish);
  });
}

export interface ShellRunOptions {
  /** Shared with nothing else by default; pass one to inspect or dispose what it keeps. */
  tracker?: TreeChangeTracker;
  defaultTimeoutMs?: number;
  /** Bytes kept of stdout and of stderr each (head and tail); the middle becomes a marker. */
  maxOutputBytes?: number;
  /** Finds the OS confinement; default: detected once per process (bwrap on Linux, sandbox-exec on macOS). */
  confinement?: () => Promise<ConfinementProbe>;
}

/**
 * How a command of the plan runs: confined by the OS (bwrap, sandbox-exec) with the profile's
 * network, or unconfined only where the profile allows it; shell.run and the plan's checks alike.
 * Throws the profile's refusal (category policy) with `tool` naming the caller.
 */
export async function confinedLaunch(
  tool: string,
  command: string,
  root: string,
  profile: AutomationProfile,
  confinement: () => Promise<ConfinementProbe> = detectConfinement,
): Promise<{ kind: Confiner['kind']; launch: LaunchSpec | undefined }> {
  if (!profile.allowShell) {
    throw new EngineError(`${tool} is not allowed by the automation profile "${profile.name}"`, 'policy', { tool, profile: profile.name });
  }
  const probe = await confinement();
  if (!probe.ok && !profile.allowUnconfinedShell) {
    throw new EngineError(
      `${tool}: refused: commands cannot be confined here (${probe.reason}); set allowUnconfinedShell: true in the automation profile to run them unconfined`,
      'policy',
      { tool, profile: profile.name, reason: probe.reason },
    );
  }
  const confiner = probe.ok ? probe.confiner : unconfined;
  const launch = confiner.launch({ command, sandboxRoot: root, allowNetwork: profile.allowNetwork });
  return { kind: confiner.kind, launch: confiner.kind === 'none' ? undefined : launch };
}

export function createShellRunTool(options: ShellRunOptions = {}) {
  const tracker = options.tracker ?? new TreeChangeTracker();
  return defineTool({
    name,
    effect: 'exec',
    description:
      'Run a shell command (/bin/sh -c) in the sandbox root, confined by the OS: only the sandbox is writable, no network unless the profile allows it. Exit status 75 and a timeout are transient failures; every file it changes is captured.',
    schema: () => z.strictObject({
      command: z.string().min(1, 'must not be empty'),
      timeoutMs: z.number().int('must be a whole number').positive('must be positive').max(3_600_000, 'must be at most an hour').optional(),
    }),
    async run(args, context) {
      const { root } = await resolveInSandbox(sandboxRootOf(name, context), '.');
      const confiner = await confinedLaunch(name, args.command, root, context.profile, options.confinement);
      context.recordConfinement?.(confiner.kind);
      const timeoutMs = args.timeoutMs ?? options.defaultTimeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS;
      const tracked = await tracker.track(root, () => runCommand(args.command, root, { timeoutMs, maxOutputBytes: options.maxOutputBytes ?? 64 * 1024, launch: confiner.launch }));
      // Whatever the command did to the sandbox is recorded, even when it failed.
      for (const change of tracked.changes) context.recordChange(change);
      if (!tracked.outcome.ok) throw tracked.outcome.error;
      const result = tracked.outcome.value;
      const details = {
        tool: name,
        command: args.command,
        exitCode: result.exitCode,
        signal: result.signal,
        durationMs: Math.round(result.durationMs),
        stdoutTail: result.stdout.tail(),
        stderrTail: result.stderr.tail(),
        confinement: confiner.kind,
        ...(tracked.removedSymlinks.length > 0 ? { removedSymlinks: tracked.removedSymlinks } : {}),
      };
      // The message names the command (shortened), so "fix the command it names" can be followed.
      const shown = shortCommand(args.command);
      if (result.timedOut) {
        throw new EngineError(`${name}: command timed out after ${timeoutMs} ms; its process group was killed`, 'transient', { ...details, timeoutMs });
      }
      if (result.exitCode === EX_TEMPFAIL) {
        throw new EngineError(`${name}: command exited with status ${EX_TEMPFAIL} (EX_TEMPFAIL: temporary failure, try again)`, 'transient', details);
      }
      if (result.exitCode !== 0) {
        const how = result.exitCode === null ? `was killed by ${result.signal}` : `exited with status ${result.exitCode}`;
        const lastLine = result.stderr.tail(400).trim().split('\n').at(-1);
        throw new EngineError(`${name}: \`${shown}\` ${how}${lastLine ? `: ${lastLine}` : ''}`, 'tool', details);
      }
      return {
        exitCode: 0,
        stdout: result.stdout.toString(),
        stderr: result.stderr.toString(),
        durationMs: Math.round(result.durationMs),
        ...(tracked.removedSymlinks.length > 0 ? { removedSymlinks: tracked.removedSymlinks } : {}),
      };
    },
  });
}

/** The command on one line, at most `max` characters: enough to recognise it in a message. */
export function shortCommand(command: string, max = 60): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}
