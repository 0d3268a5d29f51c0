import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A model server for tests: it speaks the OpenAI Chat Completions protocol on 127.0.0.1
 * (streaming SSE and plain JSON), Anthropic's Messages protocol (streaming) on `/messages`,
 * Gemini's `:generateContent` and `:streamGenerateContent` (Gemini CLI) and OpenAI's Responses
 * (streamed, Codex) on `/responses`, and answers from a script, so the provider's real HTTP path
 * runs without the internet. Every request reaches the responder in the Chat Completions shape.
 */

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent as it is (malformed arguments on purpose). */
  args: unknown;
}

export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Tokens the reply reports; `cached` of the input ones were read from the provider's prompt cache. */
  usage?: { input: number; output: number; cached?: number };
  /** An HTTP error instead of a completion. */
  status?: number;
  headers?: Record<string, string>;
  errorBody?: unknown;
  /** Pause between streamed chunks (a slow stream). */
  chunkDelayMs?: number;
  /** Pause before the reply starts (a model's latency). */
  latencyMs?: number;
  /** Characters of text per streamed chunk; default 8. */
  chunkSize?: number;
  /**
   * A server that misbehaves on a streamed request: `cut` closes the socket after the text,
   * `invalid-json` sends a chunk that is not JSON, `no-finish` never sends a finish_reason, `html`
   * answers 200 with a text/html page, `nameless-tool` sends a tool call without a name.
   */
  misbehave?: 'cut' | 'invalid-json' | 'no-finish' | 'html' | 'nameless-tool';
}

export interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: { role: string; content?: unknown; tool_calls?: { function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  [key: string]: unknown;
}

export type Responder = (request: ChatRequest, index: number) => ScriptedReply;

type AnthropicBlock = { type: string; text?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown; cache_control?: unknown };

/** A request to Anthropic's Messages API, as the provider sends it. */
export interface AnthropicRequest {
  model: string;
  system?: string | AnthropicBlock[];
  messages: { role: 'user' | 'assistant'; content: string | AnthropicBlock[] }[];
  tools?: { name: string; description?: string; input_schema?: unknown; cache_control?: unknown }[];
  [key: string]: unknown;
}

/** An Anthropic request in the Chat Completions shape: tool_use blocks become tool_calls, tool_result blocks tool messages. */
function chatRequestOf(raw: AnthropicRequest): ChatRequest {
  const messages: ChatRequest['messages'] = [];
  const system = typeof raw.system === 'string' ? raw.system : (raw.system ?? []).map((b) => b.text ?? '').join('\n');
  if (system) messages.push({ role: 'system', content: system });
  for (const message of raw.messages) {
    if (typeof message.content === 'string') {
      messages.push({ role: message.role, content: message.content });
      continue;
    }
    const text = message.content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('\n');
    if (message.role === 'assistant') {
      const calls = message.content.filter((b) => b.type === 'tool_use').map((b) => ({ function: { name: b.name ?? '', arguments: JSON.stringify(b.input ?? {}) } }));
      messages.push({ role: 'assistant', content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const b of message.content.filter((b) => b.type === 'tool_result')) {
      messages.push({ role: 'tool', tool_call_id: b.tool_use_id, content: typeof b.content === 'string' ? b.content : JSON.stringify(b.content) });
    }
    if (text) messages.push({ role: 'user', content: text });
  }
  const tools = (raw.tools ?? []).map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.input_schema } }));
  return { model: raw.model, stream: raw.stream === true, messages, tools };
}

type GeminiPart = { text?: string; thought?: boolean; functionCall?: { name: string; args?: unknown }; functionResponse?: { name: string; response?: unknown } };

/** A request to Gemini's generateContent, as Gemini CLI sends it. */
export interface GeminiRequest {
  contents?: { role?: string; parts?: GeminiPart[] }[];
  systemInstruction?: { parts?: GeminiPart[] };
  tools?: { functionDeclarations?: { name: string; description?: string; parameters?: unknown; parametersJsonSchema?: unknown }[] }[];
  [key: string]: unknown;
}

/** A Gemini request in the Chat Completions shape: function calls become tool_calls, function responses tool messages. */
function chatRequestOfGemini(raw: GeminiRequest, model: string, stream: boolean): ChatRequest {
  const messages: ChatRequest['messages'] = [];
  const system = (raw.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('\n');
  if (system) messages.push({ role: 'system', content: system });
  for (const content of raw.contents ?? []) {
    const parts = content.parts ?? [];
    const text = parts.filter((p) => p.text !== undefined && !p.thought).map((p) => p.text).join('\n');
    if (content.role === 'model') {
      const calls = parts.filter((p) => p.functionCall).map((p) => ({ function: { name: p.functionCall?.name ?? '', arguments: JSON.stringify(p.functionCall?.args ?? {}) } }));
      messages.push({ role: 'assistant', content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    for (const p of parts.filter((p) => p.functionResponse)) messages.push({ role: 'tool', tool_call_id: p.functionResponse?.name, content: JSON.stringify(p.functionResponse?.response ?? {}) });
    if (text) messages.push({ role: 'user', content: text });
  }
  const tools = (raw.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((d) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parametersJsonSchema ?? d.parameters } }));
  return { model, stream, messages, ...(tools.length > 0 ? { tools } : {}) };
}

type ResponsesItem = { type?: string; role?: string; content?: unknown; name?: string; arguments?: string; input?: string; call_id?: string; output?: unknown };

/** A request to OpenAI's Responses API, as Codex sends it. */
export interface ResponsesRequest {
  model: string;
  instructions?: string;
  input?: string | ResponsesItem[];
  tools?: { type: string; name?: string; description?: string; parameters?: unknown }[];
  stream?: boolean;
  [key: string]: unknown;
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((c: { text?: string }) => c.text ?? '').join('\n') : '';

/** A Responses request in the Chat Completions shape: function and custom tool calls become tool_calls, their outputs tool messages. */
function chatRequestOfResponses(raw: ResponsesRequest): ChatRequest {
  const messages: ChatRequest['messages'] = [];
  if (raw.instructions) messages.push({ role: 'system', content: raw.instructions });
  const items = typeof raw.input === 'string' ? [{ type: 'message', role: 'user', content: raw.input }] : (raw.input ?? []);
  for (const item of items) {
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      messages.push({ role: 'assistant', content: '', tool_calls: [{ function: { name: item.name ?? '', arguments: item.arguments ?? item.input ?? '' } }] });
    } else if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output') {
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: typeof item.output === 'string' ? item.output : JSON.stringify(item.output) });
    } else if (item.type === 'message' || item.role) {
      messages.push({ role: item.role === 'developer' ? 'system' : (item.role ?? 'user'), content: textOf(item.content) });
    }
  }
  const tools = (raw.tools ?? []).filter((t) => t.name).map((t) => ({ type: t.type, function: { name: t.name ?? '', description: t.description, parameters: t.parameters } }));
  return { model: raw.model, stream: raw.stream === true, messages, ...(tools.length > 0 ? { tools } : {}) };
}

/** The text of every message of a request, for assertions and for responders that branch on it. */
export function transcript(request: ChatRequest): string {
  return request.messages
    .map((m) => {
      const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '');
      const calls = (m.tool_calls ?? []).map((c) => `${c.function.name}(${c.function.arguments})`).join(' ');
      return `${m.role}: ${content} ${calls}`.trim();
    })
    .join('\n');
}

export class ScriptedModelServer {
  /** Every request, an Anthropic one in the Chat Completions shape (so one responder serves both). */
  readonly requests: ChatRequest[] = [];
  /** Anthropic's requests as they came, for what the Chat Completions shape has no place for (cache_control). */
  readonly anthropicRequests: AnthropicRequest[] = [];
  /** The headers of every request that reached the server, any route (an Authorization header, say). */
  readonly headers: IncomingMessage['headers'][] = [];
  private readonly queue: ScriptedReply[] = [];
  private responder: Responder | null = null;
  private server: Server | null = null;
  private port = 0;
  /** Models the server knows; any other name gets a 404 like OpenAI's. Empty: every name is known. */
  knownModels: string[] = [];

  /** `http://127.0.0.1:PORT/v1` */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      // A client that hangs up mid-request (an agent ended for an approval) is no failure of the server.
      this.handle(req, res).catch((error: unknown) => {
        if (!req.destroyed && !res.destroyed) console.error('scripted model server:', error);
        res.destroy();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Replies in order, one per request; used before the responder. */
  enqueue(...replies: ScriptedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Answers every request the queue does not. */
  respondWith(responder: Responder): this {
    this.responder = responder;
    return this;
  }

  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.anthropicRequests.length = 0;
    this.headers.length = 0;
    this.responder = null;
    this.knownModels = [];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.headers.push(req.headers);
    // Claude Code asks for `/v1/messages?beta=true`.
    if (req.method === 'POST' && req.url?.split('?')[0].endsWith('/messages')) {
      await this.handleAnthropic(req, res);
      return;
    }
    if (req.method === 'POST' && /:(stream)?generateContent$|:countTokens$/i.test(req.url?.split('?')[0] ?? '')) {
      await this.handleGemini(req, res);
      return;
    }
    if (req.method === 'POST' && req.url?.split('?')[0].endsWith('/responses')) {
      await this.handleResponses(req, res);
      return;
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    const index = this.requests.push(request) - 1;
    if (this.knownModels.length > 0 && !this.knownModels.includes(request.model)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `The model \`${request.model}\` does not exist`, type: 'invalid_request_error', code: 'model_not_found' } }));
      return;
    }
    const reply = this.queue.shift() ?? this.responder?.(request, index) ?? { text: 'I have nothing scripted to say.' };
    if (reply.latencyMs) await new Promise((resolve) => setTimeout(resolve, reply.latencyMs));
    if (reply.status !== undefined && reply.status >= 400) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(JSON.stringify(reply.errorBody ?? { error: { message: `scripted status ${reply.status}`, type: 'server_error' } }));
      return;
    }
    if (request.stream) await this.stream(res, request, reply);
    else this.complete(res, request, reply);
  }

  private toolCalls(reply: ScriptedReply, index: number) {
    return (reply.toolCalls ?? []).map((call, i) => ({
      id: `call_${index}_${i}`,
      type: 'function',
      function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
    }));
  }

  private usage(reply: ScriptedReply) {
    const usage = reply.usage ?? { input: 10, output: 5 };
    return {
      prompt_tokens: usage.input,
      completion_tokens: usage.output,
      total_tokens: usage.input + usage.output,
      ...(usage.cached !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached } } : {}),
    };
  }

  private async body<T>(req: IncomingMessage): Promise<T> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
  }

  /** Gemini's generateContent (plain or `alt=sse`) and countTokens: a reply's text and calls as parts. */
  private async handleGemini(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await this.body<GeminiRequest>(req);
    const [, model = 'gemini', method = ''] = /models\/([^:/?]+):(\w+)/.exec(req.url ?? '') ?? [];
    if (method === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    const stream = method === 'streamGenerateContent';
    const request = chatRequestOfGemini(raw, model, stream);
    const index = this.requests.push(request) - 1;
    const reply = this.queue.shift() ?? this.responder?.(request, index) ?? { text: 'I have nothing scripted to say.' };
    const usage = reply.usage ?? { input: 10, output: 5 };
    const parts: GeminiPart[] = [...(reply.text ? [{ text: reply.text }] : []), ...(reply.toolCalls ?? []).map((call) => ({ functionCall: { name: call.name, args: typeof call.args === 'string' ? JSON.parse(call.args) : call.args } }))];
    const body = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output, cachedContentTokenCount: usage.cached ?? 0 },
      modelVersion: model,
    };
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(`data: ${JSON.stringify(body)}\r\n\r\n`);
  }

  /** OpenAI's Responses API, streamed: a message item for the text, a function (or custom) tool call item per call, then `response.completed`. */
  private async handleResponses(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await this.body<ResponsesRequest>(req);
    const request = chatRequestOfResponses(raw);
    const index = this.requests.push(request) - 1;
    const reply = this.queue.shift() ?? this.responder?.(request, index) ?? { text: 'I have nothing scripted to say.' };
    const usage = reply.usage ?? { input: 10, output: 5 };
    const items: Record<string, unknown>[] = [];
    if (reply.text) items.push({ type: 'message', id: `msg_${index}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply.text, annotations: [] }] });
    for (const [i, call] of (reply.toolCalls ?? []).entries()) {
      const args = typeof call.args === 'string' ? call.args : JSON.stringify(call.args);
      // A freeform tool (Codex's apply_patch) takes its input as text.
      const custom = raw.tools?.some((t) => t.name === call.name && t.type === 'custom');
      items.push(custom ? { type: 'custom_tool_call', id: `ctc_${index}_${i}`, call_id: `call_${index}_${i}`, name: call.name, input: typeof call.args === 'string' ? call.args : String((call.args as { input?: string }).input ?? args), status: 'completed' } : { type: 'function_call', id: `fc_${index}_${i}`, call_id: `call_${index}_${i}`, name: call.name, arguments: args, status: 'completed' });
    }
    const response = { id: `resp_${index}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model: raw.model, status: 'completed', output: items };
    const usageOf = { input_tokens: usage.input, input_tokens_details: { cached_tokens: usage.cached ?? 0 }, output_tokens: usage.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: usage.input + usage.output };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let seq = 0;
    const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
    send('response.created', { response: { ...response, status: 'in_progress', output: [] } });
    for (const [i, item] of items.entries()) {
      send('response.output_item.added', { output_index: i, item: { ...item, status: 'in_progress' } });
      if (item.type === 'message') send('response.output_text.delta', { item_id: item.id, output_index: i, content_index: 0, delta: reply.text });
      send('response.output_item.done', { output_index: i, item });
    }
    send('response.completed', { response: { ...response, usage: usageOf } });
    res.end();
  }

  /** Anthropic's Messages API, streamed: the request kept as it came and as a chat request, the reply as Anthropic's events. */
  private async handleAnthropic(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AnthropicRequest;
    this.anthropicRequests.push(raw);
    const request = chatRequestOf(raw);
    const index = this.requests.push(request) - 1;
    const reply = this.queue.shift() ?? this.responder?.(request, index) ?? { text: 'I have nothing scripted to say.' };
    if (reply.latencyMs) await new Promise((resolve) => setTimeout(resolve, reply.latencyMs));
    const usage = reply.usage ?? { input: 10, output: 5 };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
    const send = (type: string, data: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    const cached = usage.cached ?? 0;
    send('message_start', {
      message: {
        id: `msg_${index}`,
        type: 'message',
        role: 'assistant',
        content: [],
        model: raw.model,
        stop_reason: null,
        stop_sequence: null,
        // Anthropic counts the cached input apart from the rest.
        usage: { input_tokens: usage.input - cached, output_tokens: 1, cache_read_input_tokens: cached, cache_creation_input_tokens: 0 },
      },
    });
    let block = 0;
    if (reply.text) {
      send('content_block_start', { index: block, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index: block, delta: { type: 'text_delta', text: reply.text } });
      send('content_block_stop', { index: block });
      block += 1;
    }
    for (const [i, call] of (reply.toolCalls ?? []).entries()) {
      send('content_block_start', { index: block, content_block: { type: 'tool_use', id: `toolu_${index}_${i}`, name: call.name, input: {} } });
      send('content_block_delta', { index: block, delta: { type: 'input_json_delta', partial_json: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) } });
      send('content_block_stop', { index: block });
      block += 1;
    }
    send('message_delta', { delta: { stop_reason: reply.toolCalls?.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output } });
    send('message_stop', {});
    res.end();
  }

  private complete(res: ServerResponse, request: ChatRequest, reply: ScriptedReply): void {
    const calls = this.toolCalls(reply, this.requests.length);
    res.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${this.requests.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: request.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.text ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
            finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
          },
        ],
        usage: this.usage(reply),
      }),
    );
  }

  private async stream(res: ServerResponse, request: ChatRequest, reply: ScriptedReply): Promise<void> {
    const id = `chatcmpl-${this.requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const send = async (payload: unknown) => {
      if (res.destroyed) return;
      res.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
      if (reply.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs));
    };
    const chunk = (delta: unknown, finish: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: request.model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    if (reply.misbehave === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...reply.headers });
    await send(chunk({ role: 'assistant', content: '' }));
    const text = reply.text ?? '';
    const size = reply.chunkSize ?? 8;
    for (let i = 0; i < text.length; i += size) await send(chunk({ content: text.slice(i, i + size) }));
    if (reply.misbehave === 'cut') {
      res.socket?.destroy();
      return;
    }
    if (reply.misbehave === 'invalid-json') await send('{"id": "broken", "choices": [');
    if (reply.misbehave === 'nameless-tool') {
      await send(chunk({ tool_calls: [{ index: 99, id: 'call_nameless', type: 'function', function: { arguments: '{}' } }] }));
    }
    if (reply.misbehave === 'no-finish') {
      await send('[DONE]');
      res.end();
      return;
    }
    const calls = this.toolCalls(reply, this.requests.length);
    for (const [index, call] of calls.entries()) {
      const half = Math.ceil(call.function.arguments.length / 2);
      await send(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments.slice(0, half) } }] }));
      await send(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments.slice(half) } }] }));
    }
    await send(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
    await send({ id, object: 'chat.completion.chunk', created, model: request.model, choices: [], usage: this.usage(reply) });
    await send('[DONE]');
    res.end();
  }
}
