import { Readable, Writable } from 'node:stream';
import {
  client,
  type ClientConnection,
  type InitializeResponse,
  ndJsonStream,
  type NewSessionResponse,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  RequestError,
  type SessionNotification,
  type StopReason,
  type Usage,
  type WriteTextFileRequest,
} from '@agentclientprotocol/sdk/unstable';
import { EngineError, errorCategoryOf } from '../errors';
import { type AgentProcess, type AgentProcessRequest, startAgentProcess } from './agent-process';
import { promptUsage } from './agent-usage';

/** How long an agent may take to start and answer `initialize`. */
export const DEFAULT_ACP_START_TIMEOUT_MS = 60_000;
/** How long one step's turn may take before the agent is taken as hung. */
export const DEFAULT_ACP_TURN_TIMEOUT_MS = 30 * 60_000;
/** How long `session/new` may take. */
const SESSION_TIMEOUT_MS = 60_000;
/** Characters of the agent's stderr kept for the failure's message. */
const STDERR_TAIL = 2_000;

/** What the client answers for one session: the agent's requests and updates go here. */
export interface AcpHandlers {
  permission(params: RequestPermissionRequest): Promise<RequestPermissionResponse>;
  writeTextFile(params: WriteTextFileRequest): Promise<void>;
  readTextFile(params: ReadTextFileRequest): Promise<{ content: string }>;
  update(params: SessionNotification): Promise<void> | void;
}

/** The agent as a plan names it, for every message that says which agent failed. */
export interface AcpAgentLabel {
  name: string;
  /** The plan it runs for, so an interrupted run ends its own agent only. */
  planId?: string;
  command: string;
  args: readonly string[];
}

function commandLine(agent: AcpAgentLabel): string {
  return [agent.command, ...agent.args].join(' ');
}

/** A failure of the agent itself (it exited, hung, broke the protocol), with a hint naming it and its command. */
export function agentFailure(agent: AcpAgentLabel, message: string, category: 'tool' | 'transient' | 'interrupted' | 'internal' | 'policy', details: Record<string, unknown> = {}): EngineError {
  const hint = `The agent "${agent.name}" (${commandLine(agent)}) failed. Check it with \`agents acp list\`, then retry the step.`;
  return new EngineError(`agent ${agent.name}: ${message}`, category, { agent: agent.name, command: commandLine(agent), hint, ...details });
}

/**
 * One agent process spoken to over ACP (ndjson on its stdio): started, initialized, and ended with
 * its whole process group. Session updates are handled one at a time, in the order they came, and a
 * turn ends only once those that came with its response are handled.
 */
export class AcpConnection {
  /** The connections with a turn running, so an interrupted run can cancel them (session/cancel) and end their agents. */
  private static readonly turns = new Map<AcpConnection, string>();

  /** Sends session/cancel to the turn this process runs for the plan, then ends its agent's process group. */
  static async interrupt(planId: string): Promise<void> {
    const running = [...AcpConnection.turns].filter(([connection]) => connection.agent.planId === planId);
    for (const [connection] of running) AcpConnection.turns.delete(connection);
    await Promise.all(running.map(async ([connection, sessionId]) => {
      await connection.cancel(sessionId);
      await connection.close();
    }));
  }

  private handlers: AcpHandlers | null = null;
  private updates: Promise<void> = Promise.resolve();
  private stderr = '';
  private exitedWith: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  private constructor(
    readonly agent: AcpAgentLabel,
    private readonly process: AgentProcess,
    private readonly connection: ClientConnection,
    readonly info: InitializeResponse,
  ) {}

  /** Starts the agent and initializes it within `startTimeoutMs`; a failure names the agent, its command and what it said on stderr. */
  static async start(agent: AcpAgentLabel, request: AgentProcessRequest, startTimeoutMs = DEFAULT_ACP_START_TIMEOUT_MS, start: (request: AgentProcessRequest) => Promise<AgentProcess> = (r) => startAgentProcess(r)): Promise<AcpConnection> {
    let proc: AgentProcess;
    try {
      proc = await start(request);
    } catch (error) {
      // The confinement's refusal stays a refusal (policy): the profile, not the agent, decides.
      throw agentFailure(agent, `cannot start: ${error instanceof Error ? error.message : String(error)}`, errorCategoryOf(error) === 'policy' ? 'policy' : 'tool');
    }
    let spawnError: Error | null = null;
    proc.child.once('error', (error) => {
      spawnError = error;
    });
    let self: AcpConnection | null = null;
    const forward = <T>(use: (handlers: AcpHandlers) => Promise<T>): Promise<T> => {
      const handlers = self?.handlers;
      if (!handlers) throw RequestError.internalError(undefined, 'no session is running');
      return use(handlers);
    };
    const stream = ndJsonStream(Writable.toWeb(proc.child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(proc.child.stdout) as ReadableStream<Uint8Array>);
    const connection = client()
      .onRequest('session/request_permission', ({ params }) => forward((h) => h.permission(params)))
      .onRequest('fs/write_text_file', ({ params }) => forward(async (h) => (await h.writeTextFile(params), {})))
      .onRequest('fs/read_text_file', ({ params }) => forward((h) => h.readTextFile(params)))
      .onNotification('session/update', ({ params }) => {
        // In arrival order: a tool call's updates and the changes they settle must not overtake each other.
        const handlers = self?.handlers;
        if (handlers) self!.updates = self!.updates.then(() => handlers.update(params)).catch(() => undefined);
      })
      // Agents send their own extensions (qwen/notify/..., _auth/status_update): not for us.
      .onRequest('*', ({ method }) => {
        throw RequestError.methodNotFound(method);
      })
      .onNotification('*', () => undefined)
      .connect(stream);
    const stderrOf = (chunk: Buffer) => {
      if (self) self.stderr = (self.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      else early = (early + chunk.toString('utf8')).slice(-STDERR_TAIL);
    };
    let early = '';
    proc.child.stderr.on('data', stderrOf);
    const init = connection.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      clientInfo: { name: 'cleveragents', version: '0.1.0' },
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      const info = await Promise.race([
        init,
        proc.exited.then(({ code, signal }) => {
          const why = spawnError ? (spawnError as Error).message : `exited (${signal ?? `code ${code}`})`;
          throw agentFailure(agent, `${why} before it answered initialize${early.trim() ? `: ${lastLines(early)}` : ''}`, 'tool', { code, signal });
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(agentFailure(agent, `did not answer initialize within ${Math.round(startTimeoutMs / 1000)} s`, 'tool')), startTimeoutMs);
        }),
      ]);
      self = new AcpConnection(agent, proc, connection, info);
      self.stderr = early;
      proc.exited.then((exit) => {
        if (self) self.exitedWith = exit;
      });
      return self;
    } catch (error) {
      // A closed connection is most often an agent that exited: say how, and what it said, once it has.
      const exit = await exitWithin(proc.exited, EXIT_WAIT_MS);
      connection.close();
      await proc.dispose();
      if (error instanceof EngineError) throw error;
      if (exit) {
        const why = spawnError ? (spawnError as Error).message : `exited (${exit.signal ?? `code ${exit.code}`})`;
        throw agentFailure(agent, `${why} before it answered initialize${early.trim() ? `: ${lastLines(early)}` : ''}`, 'tool', { ...exit });
      }
      throw agentFailure(agent, `broke the protocol at initialize: ${errorText(error)}`, 'tool');
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the agent's process has ended. */
  get exited(): boolean {
    return this.exitedWith !== null;
  }

  /** The tokens the last turn used, where the agent reports them in its prompt response. */
  lastUsage: Usage | null = null;

  /** `qwen-code 0.24.4`, as initialize reported it. */
  get version(): string | null {
    const info = this.info.agentInfo;
    return info ? `${info.name}${info.version ? ` ${info.version}` : ''}` : null;
  }

  /** Runs `request`, failing as the agent does if it exits, and after `timeoutMs` as hung. */
  private async guarded<T>(what: string, request: Promise<T>, timeoutMs: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        request.catch(async (error: unknown) => {
          if (this.exitedWith || this.connection.signal.aborted) {
            // The pipe often closes before the exit is reported: wait a moment to say how the agent ended.
            if (!this.exitedWith) await exitWithin(this.process.exited, EXIT_WAIT_MS);
            throw this.exitFailure(what);
          }
          throw agentFailure(this.agent, `${what} failed: ${errorText(error)}`, 'tool', { protocolError: true });
        }),
        this.process.exited.then(() => {
          throw this.exitFailure(what);
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(agentFailure(this.agent, `did not finish ${what} within ${Math.round(timeoutMs / 1000)} s`, 'tool')), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  private exitFailure(what: string): EngineError {
    const exit = this.exitedWith;
    const how = exit ? (exit.signal ? `was killed (${exit.signal})` : `exited (code ${exit.code})`) : 'closed its connection';
    // Killed from outside: the step was interrupted, and retry runs it again; an agent that exits by itself needs looking at.
    return agentFailure(this.agent, `${how} during ${what}${this.stderr.trim() ? `: ${lastLines(this.stderr)}` : ''}`, exit?.signal ? 'interrupted' : 'tool', { exit });
  }

  async newSession(cwd: string): Promise<NewSessionResponse> {
    return this.guarded('session/new', this.connection.agent.request('session/new', { cwd, mcpServers: [] }), SESSION_TIMEOUT_MS);
  }

  /** Whether the agent can resume a session it kept (`session/load`). */
  get canLoadSession(): boolean {
    return this.info.agentCapabilities?.loadSession === true;
  }

  /** Resumes a session the agent kept; the history it replays is not this turn's (no handlers yet). Null where the agent cannot. */
  async loadSession(sessionId: string, cwd: string): Promise<NewSessionResponse | null> {
    try {
      const loaded = await this.guarded('session/load', this.connection.agent.request('session/load', { sessionId, cwd, mcpServers: [] }), SESSION_TIMEOUT_MS);
      // Updates replayed with the answer are let in and dropped before a turn's handlers are set.
      await new Promise((resolve) => setImmediate(resolve));
      await this.updates;
      return { ...loaded, sessionId };
    } catch (error) {
      if (this.exitedWith) throw error;
      return null;
    }
  }

  /** Puts the session in `modeId` where the agent offers it; false where it does not. */
  async setMode(session: NewSessionResponse, modeId: string): Promise<boolean> {
    if (!session.modes?.availableModes.some((m) => m.id === modeId)) return false;
    if (session.modes.currentModeId === modeId) return true;
    await this.guarded('session/set_mode', this.connection.agent.request('session/set_mode', { sessionId: session.sessionId, modeId }), SESSION_TIMEOUT_MS);
    return true;
  }

  /** One prompt turn with `handlers` answering the agent; resolves once the updates that came with its end are handled. */
  async prompt(sessionId: string, text: string, handlers: AcpHandlers, timeoutMs = DEFAULT_ACP_TURN_TIMEOUT_MS): Promise<StopReason> {
    this.handlers = handlers;
    AcpConnection.turns.set(this, sessionId);
    try {
      const response = await this.guarded('its turn (session/prompt)', this.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] }), timeoutMs);
      // An update in the same chunk as the response is dispatched after it: let it in, then drain.
      await new Promise((resolve) => setImmediate(resolve));
      await this.updates;
      this.lastUsage = promptUsage(response);
      return response.stopReason;
    } finally {
      AcpConnection.turns.delete(this);
      await this.updates;
    }
  }

  /** Asks the agent to stop its turn (session/cancel); it answers the prompt with `cancelled`. */
  async cancel(sessionId: string): Promise<void> {
    if (this.exitedWith) return;
    await this.connection.agent.notify('session/cancel', { sessionId }).catch(() => undefined);
  }

  /** Ends the connection and the agent's whole process group. */
  async close(): Promise<void> {
    this.handlers = null;
    this.connection.close();
    await this.process.dispose();
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'message' in error) return String((error as { message: unknown }).message);
  return String(error);
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ').slice(-500);
}

/** How long a closed pipe waits for the process's exit to be reported: it often closes a moment before. */
const EXIT_WAIT_MS = 1_000;

/** The process's exit, or null if it is not reported within `ms` (the timer does not outlive the wait). */
async function exitWithin<T>(exited: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([exited, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
