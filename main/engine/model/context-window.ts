import type { ModelMessage, ToolSet } from 'ai';
import { z } from 'zod';

/**
 * About four characters a token. No tokenizer serves every provider, and the estimate only has to
 * keep a request under the window with the margin the caller leaves.
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil((typeof value === 'string' ? value.length : JSON.stringify(value).length) / 4);
}

/** The tokens the tools' names, descriptions and argument schemas take in every request. */
export function estimateToolTokens(tools: ToolSet): number {
  let tokens = 0;
  for (const [name, tool] of Object.entries(tools)) {
    const schema = tool.inputSchema instanceof z.ZodType ? z.toJSONSchema(tool.inputSchema, { unrepresentable: 'any' }) : tool.inputSchema;
    tokens += estimateTokens(name) + estimateTokens(tool.description ?? '') + estimateTokens(schema ?? {});
  }
  return tokens;
}

/** What a fold did to the conversation, for the log. */
export interface FoldReport {
  beforeTokens: number;
  afterTokens: number;
  resultsCut: number;
  turnsFolded: number;
}

const CUT_MARK = '[cut to keep the step within its context]';
const FOLD_MARK = 'Earlier in this step (folded to keep the step within its context):';
/** Lines of the fold's summary kept: the newest, so the summary cannot outgrow the window itself. */
const SUMMARY_LINES = 60;
const LINE_CHARS = 120;

type ToolMessage = Extract<ModelMessage, { role: 'tool' }>;
type ToolPart = ToolMessage['content'][number];

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line;
}

function outputText(part: ToolPart): string | null {
  if (part.type !== 'tool-result') return null;
  const { output } = part;
  return output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output);
}

/** A tool result cut to one line that says what it was; a result cut before stays as it is. */
function cutPart(part: ToolPart): ToolPart {
  const text = outputText(part);
  if (part.type !== 'tool-result' || text === null || text.startsWith(CUT_MARK)) return part;
  const value = `${CUT_MARK} ${oneLine(text)} (${text.length} characters)`;
  return { ...part, output: part.output.type === 'error-text' ? { type: 'error-text', value } : { type: 'text', value } };
}

/** One line per call of a folded turn: the tool, its arguments, and how its result began. */
function summaryLines(turn: readonly ModelMessage[]): string[] {
  const results = new Map<string, string>();
  for (const message of turn) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      const text = outputText(part);
      if (part.type === 'tool-result' && text !== null) {
        results.set(part.toolCallId, `${part.output.type === 'error-text' ? 'failed: ' : ''}${text.replace(CUT_MARK, '').trim()}`);
      }
    }
  }
  const lines: string[] = [];
  for (const message of turn) {
    if (message.role === 'assistant' && typeof message.content !== 'string') {
      for (const part of message.content) {
        if (part.type === 'text' && part.text.trim()) lines.push(`- you wrote: ${oneLine(part.text)}`);
        if (part.type === 'tool-call') lines.push(`- ${part.toolName}(${oneLine(JSON.stringify(part.input))}) -> ${oneLine(results.get(part.toolCallId) ?? 'no result')}`);
      }
    } else if (message.role === 'assistant' && typeof message.content === 'string' && message.content.trim()) {
      lines.push(`- you wrote: ${oneLine(message.content)}`);
    } else if (message.role === 'user' && typeof message.content === 'string' && !message.content.startsWith(FOLD_MARK)) {
      lines.push(`- note: ${oneLine(message.content)}`);
    }
  }
  return lines;
}

/** The conversation's turns after the prompt: each starts at an assistant message and runs to the next. */
function turnStarts(messages: readonly ModelMessage[]): number[] {
  const starts: number[] = [];
  messages.forEach((m, i) => {
    if (i > 0 && m.role === 'assistant') starts.push(i);
  });
  return starts;
}

/**
 * Keeps a step's conversation under `limitTokens` (with `fixedTokens` for the system prompt and the
 * tools): first the older tool results are cut to one line each, oldest first, then the oldest turns
 * are folded into one summary message after the prompt. The newest turn is always kept whole, so the
 * model sees the answers to the calls it just made. Null when the conversation fits as it is.
 */
export function fitContext(
  messages: readonly ModelMessage[],
  limitTokens: number,
  fixedTokens: number,
): { messages: ModelMessage[]; report: FoldReport } | null {
  const size = (list: readonly ModelMessage[]) => fixedTokens + estimateTokens(list);
  const beforeTokens = size(messages);
  if (beforeTokens <= limitTokens) return null;
  let current = [...messages];
  let resultsCut = 0;

  const newest = turnStarts(current).at(-1) ?? current.length;
  for (let i = 0; i < newest && size(current) > limitTokens; i++) {
    const message = current[i];
    if (message.role !== 'tool') continue;
    const content = message.content.map(cutPart);
    resultsCut += content.filter((part, k) => part !== message.content[k]).length;
    current[i] = { ...message, content };
  }

  let turnsFolded = 0;
  const summaryOf = (list: readonly ModelMessage[]): string[] | null => {
    const second = list[1];
    return second?.role === 'user' && typeof second.content === 'string' && second.content.startsWith(FOLD_MARK) ? second.content.split('\n').slice(1) : null;
  };
  const withSummary = (lines: string[], rest: readonly ModelMessage[]): ModelMessage[] => [current[0], { role: 'user', content: [FOLD_MARK, ...lines].join('\n') }, ...rest];
  while (size(current) > limitTokens) {
    const starts = turnStarts(current);
    // The prompt, the summary (once there is one), and the newest turn are never folded.
    if (starts.length < 2) break;
    const [from, to] = [starts[0], starts[1]];
    const lines = [...(summaryOf(current) ?? []), ...summaryLines(current.slice(from, to))].slice(-SUMMARY_LINES);
    current = withSummary(lines, current.slice(to));
    turnsFolded += 1;
  }
  // Still too long with one turn left: the summary's oldest lines go.
  let lines = summaryOf(current);
  while (lines && lines.length > 0 && size(current) > limitTokens) {
    lines = lines.slice(1);
    current = withSummary(lines, current.slice(2));
  }
  return { messages: current, report: { beforeTokens, afterTokens: size(current), resultsCut, turnsFolded } };
}
