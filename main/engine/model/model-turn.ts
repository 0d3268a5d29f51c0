import type { LanguageModel, ModelMessage, SystemModelMessage, ToolSet } from 'ai';
import { z } from 'zod';
import type { ModelConfig } from './provider';
import { classifyProviderError } from './provider-errors';

/** A tool call the model made in a turn (its schema built at its first parse, as the next one's). */
export const ModelToolCallSchema = z.lazy(() => z.object({
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
  /** The SDK could not parse or validate the arguments, or the tool does not exist. */
  invalid: z.boolean(),
  error: z.string().nullable(),
}));
export type ModelToolCall = z.infer<typeof ModelToolCallSchema>;

/** Our answer to one of the model's tool calls, sent back with the next turn. */
export const ToolResultSchema = z.lazy(() => z.object({ id: z.string(), name: z.string(), text: z.string(), isError: z.boolean() }));
export type ToolResult = z.infer<typeof ToolResultSchema>;

export interface TurnResult {
  text: string;
  toolCalls: ModelToolCall[];
  /** The assistant's message, and the SDK's error results for invalid calls. */
  messages: ModelMessage[];
  inputTokens: number;
  /** Of the input tokens, those read from the provider's prompt cache. */
  cachedInputTokens: number;
  outputTokens: number;
  /** The model the provider says answered, and why it stopped (`stop`, `tool-calls`, `length`...). */
  responseModel?: string;
  finishReason?: string;
}

export interface TurnInput {
  model: LanguageModel;
  config: ModelConfig;
  system: string;
  messages: ModelMessage[];
  tools: ToolSet;
  maxOutputTokens: number;
  onText?: (delta: string) => void;
}

/**
 * One model call, streamed. The SDK's own retries are off: the plan's automation profile is the
 * one retry limit, so provider errors are classified and thrown to the executor's recovery.
 */
export async function runTurn(input: TurnInput): Promise<TurnResult> {
  const { config } = input;
  try {
    // Loaded on first use: the CLI starts a second faster without the SDK.
    const { streamText } = await import('ai');
    const cacheable = promptCaching(input);
    const result = streamText({
      model: input.model,
      ...cacheable,
      maxOutputTokens: input.maxOutputTokens,
      maxRetries: 0,
      timeout: { totalMs: config.timeoutMs, chunkMs: config.chunkTimeoutMs },
      // Errors come back through the stream and are thrown below; nothing is printed.
      onError: () => undefined,
    });
    let text = '';
    const errors = new Map<string, string>();
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        text += part.text;
        input.onText?.(part.text);
      } else if (part.type === 'tool-error') {
        errors.set(part.toolCallId, String(part.error instanceof Error ? part.error.message : part.error));
      } else if (part.type === 'error') {
        throw part.error;
      } else if (part.type === 'abort') {
        throw Object.assign(new Error('the model call was aborted'), { name: 'TimeoutError' });
      }
    }
    const [toolCalls, usage, response, finishReason] = await Promise.all([result.toolCalls, result.usage, result.response, result.finishReason]);
    return {
      text,
      toolCalls: toolCalls.map((call) => {
        const invalid = 'invalid' in call && call.invalid === true;
        const error = invalid ? (errors.get(call.toolCallId) ?? describe((call as { error?: unknown }).error)) : null;
        return { id: call.toolCallId, name: call.toolName, input: call.input, invalid, error };
      }),
      messages: response.messages,
      inputTokens: usage.inputTokens ?? 0,
      cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
      outputTokens: usage.outputTokens ?? 0,
      ...(response.modelId ? { responseModel: response.modelId } : {}),
      finishReason,
    };
  } catch (error) {
    throw classifyProviderError(error, config);
  }
}

/** Anthropic caches a request's prefix where it is marked: the tools and the system prompt, the same in every turn of a step. */
const CACHE_POINT = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/**
 * The system prompt, the conversation and the tools of a turn, with the tools and the system prompt
 * marked cacheable for a provider that caches only what is marked. OpenAI-compatible servers cache
 * a repeated prefix by themselves and report the cached tokens all the same.
 */
function promptCaching(input: TurnInput): { instructions: string | SystemModelMessage; messages: ModelMessage[]; tools: ToolSet } {
  if (input.config.provider !== 'anthropic') return { instructions: input.system, messages: input.messages, tools: input.tools };
  const last = Object.keys(input.tools).at(-1);
  const tools = last ? { ...input.tools, [last]: { ...input.tools[last], providerOptions: CACHE_POINT } } : input.tools;
  return { instructions: { role: 'system', content: input.system, providerOptions: CACHE_POINT }, messages: input.messages, tools };
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'name' in error) return String((error as { name: unknown }).name);
  return 'invalid tool call';
}

/** Appends our results for the turn's calls, merged into the SDK's tool message when it made one. */
export function withToolResults(messages: ModelMessage[], results: readonly ToolResult[]): ModelMessage[] {
  if (results.length === 0) return messages;
  const parts = results.map((r) => ({
    type: 'tool-result' as const,
    toolCallId: r.id,
    toolName: r.name,
    output: r.isError ? { type: 'error-text' as const, value: r.text } : { type: 'text' as const, value: r.text },
  }));
  const last = messages.at(-1);
  if (last?.role === 'tool') return [...messages.slice(0, -1), { ...last, content: [...last.content, ...parts] }];
  return [...messages, { role: 'tool', content: parts }];
}

export { DeltaBatcher } from '../run/delta-batcher';
