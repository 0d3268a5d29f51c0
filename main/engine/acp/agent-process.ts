import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';

/** A long-lived agent to start over stdio, and what it may touch (the shape the confinement takes). */
export interface AgentProcessRequest {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** Its working folder. */
  sandboxRoot: string;
  /** Its own folder for the plan (settings, sessions, caches); HOME points there. Made if missing. */
  home: string;
  readOnlyPaths: readonly string[];
  allowHosts: readonly string[];
  allowNetwork: boolean;
}

export interface AgentProcess {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends the agent's whole process group (everything it forked). */
  dispose(): Promise<void>;
}

const KILL_GRACE_MS = 2_000;

/** Starts the agent in a process group of its own, which dispose ends (SIGTERM, then SIGKILL). */
export async function startAgentProcess(request: AgentProcessRequest): Promise<AgentProcess> {
  mkdirSync(request.home, { recursive: true, mode: 0o700 });
  const child = spawn(request.file, request.args, {
    cwd: request.sandboxRoot,
    env: { ...request.env, HOME: request.home },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', () => resolve({ code: null, signal: null }));
  });
  const group = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // the group is gone
    }
  };
  let ended = false;
  exited.then(() => {
    ended = true;
    // What the agent forked may outlive it (codex app-server): the group goes with it.
    group('SIGKILL');
  });
  return {
    child,
    exited,
    async dispose() {
      if (ended) return;
      group('SIGTERM');
      const timer = setTimeout(() => group('SIGKILL'), KILL_GRACE_MS);
      await exited;
      clearTimeout(timer);
      group('SIGKILL');
    },
  };
}
