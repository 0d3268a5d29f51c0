// Real coding agents from npm (tests/agents), started confined: their only network is the scripted
// model server's port on 127.0.0.1, relayed into their namespace. Each answers the Agent Client
// Protocol over stdio and runs a turn whose model call goes through the relay.
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ConfinedAgentProcess, hostsFromEnv, startConfinedAgent } from '../../main/engine/tools/agent-process';
import { cleanupTempDirs, tempDir } from '../../main/engine/tools/test-support';
import { CLAUDE_ENTRY, QWEN_ENTRY, testAgentsInstalled } from '../support/acp-agents';
import { type ChatRequest, ScriptedModelServer } from '../support/scripted-model-server';

const CLAUDE = CLAUDE_ENTRY;
const QWEN = QWEN_ENTRY;

/** A minimal ACP client over ndjson: requests by id, and "method not found" for whatever the agent asks. */
class NdjsonPeer {
  private buffer = '';
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly updates: unknown[] = [];
  stderr = '';

  constructor(private readonly agent: ConfinedAgentProcess) {
    agent.child.stderr.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-4000)));
    agent.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      for (let end = this.buffer.indexOf('\n'); end >= 0; end = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, end).trim();
        this.buffer = this.buffer.slice(end + 1);
        if (line) this.receive(JSON.parse(line) as { id?: number; method?: string; params?: unknown; result?: unknown; error?: { message: string } });
      }
    });
    void agent.exited.then((exit) => {
      for (const { reject } of this.waiting.values()) reject(new Error(`the agent exited (${JSON.stringify(exit)}): ${this.stderr}`));
    });
  }

  private receive(message: { id?: number; method?: string; params?: unknown; result?: unknown; error?: { message: string } }): void {
    if (message.method === 'session/request_permission' && message.id !== undefined) {
      // Allowed once: the confinement, not the question, is what this test is about.
      const options = (message.params as { options: { optionId: string; kind: string }[] }).options;
      const allow = options.find((option) => option.kind === 'allow_once') ?? options[0];
      this.send({ jsonrpc: '2.0', id: message.id, result: { outcome: { outcome: 'selected', optionId: allow.optionId } } });
    } else if (message.method && message.id !== undefined) {
      this.send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `method not found: ${message.method}` } });
    } else if (message.method) {
      this.updates.push(message.params);
    } else if (message.id !== undefined) {
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.error) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
    }
  }

  private send(message: unknown): void {
    this.agent.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }
}

const model = new ScriptedModelServer();
const agents: ConfinedAgentProcess[] = [];

beforeAll(async () => {
  if (!testAgentsInstalled) throw new Error('the test agents are not installed: npm install --prefix tests/agents');
  await model.start();
  model.respondWith(() => ({ text: 'Hello from the scripted model.' }));
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.dispose()));
  model.respondWith(() => ({ text: 'Hello from the scripted model.' }));
});
afterAll(async () => {
  await model.close();
  cleanupTempDirs();
});

async function runTurn(command: string[], env: Record<string, string>, prompt = 'Say hello.', root = realpathSync(tempDir('agents-confined-agent-'))): Promise<{ peer: NdjsonPeer; initialized: { protocolVersion: number; agentInfo?: { name: string } }; stopReason: string }> {
  const sandbox = path.join(root, 'sandbox');
  mkdirSync(sandbox);
  const agent = await startConfinedAgent({ file: process.execPath, args: command, env, sandboxRoot: sandbox, home: path.join(root, 'home'), readOnlyPaths: [], allowHosts: hostsFromEnv(env), allowNetwork: false });
  agents.push(agent);
  const peer = new NdjsonPeer(agent);
  const initialized = await peer.request<{ protocolVersion: number; agentInfo?: { name: string } }>('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
  const session = await peer.request<{ sessionId: string }>('session/new', { cwd: sandbox, mcpServers: [] });
  // The asking mode: Claude Code's auto mode would ask a classifier model instead.
  if (command[0] === CLAUDE) await peer.request('session/set_mode', { sessionId: session.sessionId, modeId: 'default' });
  const prompted = await peer.request<{ stopReason: string }>('session/prompt', { sessionId: session.sessionId, prompt: [{ type: 'text', text: prompt }] });
  return { peer, initialized, stopReason: prompted.stopReason };
}

/** Claude Code against the scripted model, with TOOLCHAIN.md's offline switches. */
function claudeEnv(): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: model.baseUrl.replace(/\/v1$/, ''),
    ANTHROPIC_API_KEY: 'test-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** Whether the agent was sent the model's words. */
function heard(peer: NdjsonPeer): boolean {
  const chunks = peer.updates.map((params) => (params as { update?: { sessionUpdate?: string; content?: { text?: string } } }).update).filter((update) => update?.sessionUpdate === 'agent_message_chunk');
  return chunks.map((update) => update?.content?.text ?? '').join('').includes('Hello from the scripted model.');
}

describe('real agents, confined, with only the model reachable', () => {
  it('Claude Code answers initialize and runs a turn through the relay', async () => {
    const before = model.requests.length;
    const { peer, initialized, stopReason } = await runTurn([CLAUDE], claudeEnv());
    expect(initialized.protocolVersion).toBe(1);
    expect(stopReason).toBe('end_turn');
    expect(model.requests.length).toBeGreaterThan(before);
    expect(heard(peer)).toBe(true);
  });

  it('Qwen Code answers initialize and runs a turn through the relay', async () => {
    const before = model.requests.length;
    const { peer, initialized, stopReason } = await runTurn([QWEN, '--acp'], {
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: 'test-key',
      OPENAI_MODEL: 'scripted',
      QWEN_USAGE_STATISTICS_ENABLED: 'false',
    });
    expect(initialized.protocolVersion).toBe(1);
    expect(stopReason).toBe('end_turn');
    expect(model.requests.length).toBeGreaterThan(before);
    expect(heard(peer)).toBe(true);
  });

  it('a command Claude Code runs reaches no other port on 127.0.0.1 and writes only in the sandbox and its home, while its model calls go through', async () => {
    const other = createServer((_req, res) => res.end('the other service'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    let reached = 0;
    other.on('request', () => (reached += 1));
    const port = (other.address() as AddressInfo).port;
    const fetchOther = `node -e "fetch('http://127.0.0.1:${port}/').then((r) => r.text()).then((t) => console.log('REACHED ' + t), (e) => console.log('BLOCKED ' + e.cause?.code))"`;
    const writes = ['in-sandbox.txt', '$HOME/in-home.txt', '../beside.txt'].map((file) => `(echo x > ${file} && echo 'WROTE ${file}' || echo 'REFUSED ${file}')`);
    const probe = [fetchOther, ...writes].join('; ');
    // The first request that carries the tools gets the command; the one with its result, a word on it.
    const results: string[] = [];
    model.respondWith((request: ChatRequest) => {
      const result = request.messages.find((m) => m.role === 'tool');
      if (result) {
        results.push(JSON.stringify(result.content));
        return { text: 'The command ran.' };
      }
      if (!request.tools?.some((tool) => tool.function.name === 'Bash')) return { text: 'A title' };
      return { toolCalls: [{ name: 'Bash', args: { command: probe, description: 'Fetch another local port' } }] };
    });
    const root = realpathSync(tempDir('agents-confined-agent-'));
    try {
      const { stopReason } = await runTurn([CLAUDE], claudeEnv(), 'Fetch the other port.', root);
      expect(stopReason).toBe('end_turn');
      const output = results.join('\n');
      expect(output).toContain('BLOCKED ECONNREFUSED');
      expect(reached).toBe(0);
      expect(output).toContain('WROTE in-sandbox.txt');
      expect(output).toContain('WROTE $HOME/in-home.txt');
      expect(output).toContain('REFUSED ../beside.txt');
      expect([existsSync(path.join(root, 'sandbox', 'in-sandbox.txt')), existsSync(path.join(root, 'home', 'in-home.txt')), existsSync(path.join(root, 'beside.txt'))]).toEqual([true, true, false]);
    } finally {
      other.close();
    }
  });
});
