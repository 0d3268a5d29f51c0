import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type ChatRequest, type Responder, type ScriptedModelServer, type ScriptedToolCall, transcript } from './scripted-model-server';

/** The real agents the tests drive, installed apart from the app (npm install --prefix tests/agents). */
export const TEST_AGENTS = resolve(__dirname, '../agents/node_modules');

export const QWEN_ENTRY = join(TEST_AGENTS, '@qwen-code/qwen-code/cli-entry.js');
export const CLAUDE_ENTRY = join(TEST_AGENTS, '@agentclientprotocol/claude-agent-acp/dist/index.js');

export const GEMINI_ENTRY = join(TEST_AGENTS, '@google/gemini-cli/bundle/gemini.js');

/** Whether `npm install --prefix tests/agents` ran: without it the tests that drive real agents cannot. */
export const testAgentsInstalled = existsSync(QWEN_ENTRY) && existsSync(CLAUDE_ENTRY) && existsSync(GEMINI_ENTRY);

/** The larger agents, installed by `npm run test:agents` only (tests/agents/extra). */
export const EXTRA_AGENTS = resolve(__dirname, '../agents/extra/node_modules');
export const OPENCODE_BIN = join(EXTRA_AGENTS, 'opencode-linux-x64/bin/opencode');
export const CODEX_ENTRY = join(EXTRA_AGENTS, '@agentclientprotocol/codex-acp/dist/index.js');
export const extraAgentsInstalled = existsSync(OPENCODE_BIN) && existsSync(CODEX_ENTRY);

/** `agents acp add NAME ...` arguments for Qwen Code against the scripted server (Chat Completions). */
export function qwenAddArgs(name: string, server: ScriptedModelServer): string[] {
  const env = { OPENAI_BASE_URL: server.baseUrl, OPENAI_API_KEY: 'scripted', OPENAI_MODEL: 'qwen3-coder', QWEN_USAGE_STATISTICS_ENABLED: 'false' };
  return ['acp', 'add', name, ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]), '--', process.execPath, QWEN_ENTRY, '--acp'];
}

/** The same for Claude Code's ACP adapter (Anthropic Messages), with its offline switches. */
export function claudeAddArgs(name: string, server: ScriptedModelServer): string[] {
  const env = {
    ANTHROPIC_BASE_URL: server.baseUrl.replace(/\/v1$/, ''),
    ANTHROPIC_API_KEY: 'scripted',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_AUTOUPDATER: '1',
  };
  return ['acp', 'add', name, ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]), '--', process.execPath, CLAUDE_ENTRY];
}

/** Gemini CLI against the scripted server (Gemini's generateContent), usage statistics off in its system settings. */
export function geminiAddArgs(name: string, server: ScriptedModelServer): string[] {
  const env = { GOOGLE_GEMINI_BASE_URL: server.baseUrl.replace(/\/v1$/, ''), GEMINI_API_KEY: 'scripted', GEMINI_MODEL: 'gemini-2.5-flash' };
  return ['acp', 'add', name, ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]), '--', process.execPath, GEMINI_ENTRY, '--acp'];
}

const pairs = (env: Record<string, string>) => Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);

/**
 * opencode against the scripted server: an OpenAI-compatible provider in OPENCODE_CONFIG_CONTENT
 * (its address named with --allow-host, as no *_BASE_URL variable holds it), with its offline switches.
 */
export function opencodeAddArgs(name: string, server: ScriptedModelServer): string[] {
  const config = {
    provider: { scripted: { npm: '@ai-sdk/openai-compatible', name: 'Scripted', options: { baseURL: server.baseUrl, apiKey: 'scripted' }, models: { coder: { name: 'coder', tool_call: true } } } },
    model: 'scripted/coder',
    small_model: 'scripted/coder',
  };
  const env = {
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
  };
  return ['acp', 'add', name, ...pairs(env), '--allow-host', new URL(server.baseUrl).host, '--', OPENCODE_BIN, 'acp'];
}

/** Codex through its ACP adapter against the scripted server: a provider speaking OpenAI's Responses, in the adapter's CODEX_CONFIG. */
export function codexAddArgs(name: string, server: ScriptedModelServer): string[] {
  const config = {
    model: 'gpt-5-codex',
    model_provider: 'scripted',
    model_providers: { scripted: { name: 'Scripted', base_url: server.baseUrl, env_key: 'SCRIPTED_API_KEY', wire_api: 'responses' } },
  };
  const env = { CODEX_CONFIG: JSON.stringify(config), MODEL_PROVIDER: 'scripted', SCRIPTED_API_KEY: 'scripted' };
  return ['acp', 'add', name, ...pairs(env), '--allow-host', new URL(server.baseUrl).host, '--', process.execPath, CODEX_ENTRY];
}

/** One tool call of a step, its paths relative to the project: the responder makes them absolute (Qwen Code takes only those). */
export type AgentCall = (projectDir: string) => ScriptedToolCall;

/** The user's messages since the model last spoke (an agent may send its prompt and its reminders as several). */
function newUserText(request: ChatRequest): string {
  const messages = request.messages;
  let from = messages.length;
  while (from > 0 && messages[from - 1].role === 'user') from -= 1;
  return messages
    .slice(from)
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')))
    .join('\n');
}

/**
 * A model for a coding agent: each step's prompt (the console's "Your step (N of M): ...", matched
 * by a word of the step's description) gets that step's tool calls, one per request, then a plain
 * answer ending the turn. The agents' side requests (a title, a memory summary, a suggestion) get
 * plain text, as the toolchain notes say they must.
 */
export function agentSteps(steps: Record<string, AgentCall[]>): Responder & { prompts: string[] } {
  const prompts: string[] = [];
  let current: { calls: AgentCall[]; next: number; dir: string } | null = null;
  const responder = (request: ChatRequest) => {
    const last = request.messages.at(-1);
    const text = newUserText(request);
    const step = /Your step \(\d+ of \d+\): ([^\n\\]*)/.exec(text);
    if (step && request.tools?.length) {
      prompts.push(transcript(request));
      const key = Object.keys(steps).find((word) => step[1].includes(word));
      const dir = /The project is the folder (\S+) \(your working folder\)/.exec(text)?.[1] ?? '.';
      current = { calls: key ? steps[key] : [], next: 0, dir };
    } else if (last?.role !== 'tool' || !current) {
      return { text: 'Scripted side answer.' };
    }
    if (current.next < current.calls.length) return { toolCalls: [current.calls[current.next++](current.dir)] };
    return { text: 'The step is done.' };
  };
  return Object.assign(responder, { prompts });
}
