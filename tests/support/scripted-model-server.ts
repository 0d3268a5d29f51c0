import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A model server for tests: it speaks the OpenAI Chat Completions protocol on 127.0.0.1
 * (streaming SSE and plain JSON) and answers from a script, so the provider's real HTTP path
 * runs without the internet.
 */

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent as it is (malformed arguments on purpose). */
  args: unknown;
}

export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: { input: number; output: number };
  /** An HTTP error instead of a completion. */
  status?: number;
  headers?: Record<string, string>;
  errorBody?: unknown;
  /** Pause between streamed chunks (a slow stream). */
  chunkDelayMs?: number;
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
  readonly requests: ChatRequest[] = [];
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
    this.server = createServer((req, res) => void this.handle(req, res));
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
    this.headers.length = 0;
    this.responder = null;
    this.knownModels = [];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.headers.push(req.headers);
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
    return { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output };
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
