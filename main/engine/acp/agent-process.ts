import { errorCategoryOf } from '../errors';
import { type AgentProcessRequest, type ConfinedAgentProcess, startConfinedAgent, startUnconfinedAgent } from '../tools/agent-process';

export type { AgentProcessRequest };
export type AgentProcess = ConfinedAgentProcess;

/** Every agent this process started and has not seen end: none may outlive it, whatever way it exits. */
const live = new Set<number>();
let exitHook = false;

function killLiveGroups(): void {
  for (const pid of live) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  live.clear();
}

/**
 * Starts a coding agent confined as shell.run and local MCP servers are (its sandbox and own home
 * writable, its network limited to its base URLs and allowHosts); where the system cannot confine
 * it, only a profile with `allowUnconfinedShell` starts it unconfined, and otherwise the one-line
 * refusal stands. Its process group is ended with this process, whatever way that exits.
 */
export async function startAgentProcess(request: AgentProcessRequest, allowUnconfined = false): Promise<AgentProcess> {
  let started: AgentProcess;
  try {
    started = await startConfinedAgent(request);
  } catch (error) {
    if (!allowUnconfined || errorCategoryOf(error) !== 'policy') throw error;
    started = await startUnconfinedAgent(request);
  }
  const pid = started.child.pid;
  if (pid) {
    live.add(pid);
    void started.exited.then(() => live.delete(pid));
  }
  if (!exitHook) {
    exitHook = true;
    // An agent runs in a process group of its own (so it can be ended whole): it would not die with us.
    process.once('exit', killLiveGroups);
  }
  return started;
}
