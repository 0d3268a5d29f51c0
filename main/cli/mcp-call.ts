import { createInterface } from 'node:readline';
import type { CallToolResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { Ctx } from './run-command';
import { checkedAnswer, RequestedSchemaSchema } from '../../shared/elicitation';
import { askFields, questionLines } from './question-prompt';

/** One progress report as a line: `progress 3/10 (30%): copying`. */
export function progressLine(p: { progress: number; total?: number; message?: string }): string {
  const of = p.total ? `/${p.total} (${Math.round((100 * p.progress) / p.total)}%)` : '';
  return `progress ${p.progress}${of}${p.message ? `: ${p.message}` : ''}`;
}

const bytesOf = (base64: string) => Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

/**
 * A tool's result as the operator reads it: its text as it is, an image, audio or resource named
 * (a resource's text follows its name), and structured content as JSON.
 */
export function formatToolResult(result: CallToolResult): string {
  const lines: string[] = [];
  for (const part of result.content ?? []) {
    if (part.type === 'text') lines.push(part.text);
    else if (part.type === 'image' || part.type === 'audio') lines.push(`[${part.type}: ${part.mimeType}, ${bytesOf(part.data)} bytes]`);
    else if (part.type === 'resource_link') lines.push(`[resource: ${part.name} ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ''}]`);
    else if (part.type === 'resource') {
      const resource = part.resource;
      lines.push(`[resource: ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}${'blob' in resource ? `, ${bytesOf(resource.blob)} bytes` : ''}]`);
      if ('text' in resource) lines.push(resource.text);
    }
  }
  if (result.structuredContent !== undefined) lines.push(`structured content:\n${JSON.stringify(result.structuredContent, null, 2)}`);
  if (lines.length === 0) lines.push('(no content)');
  return lines.join('\n');
}

type Elicitation = ElicitRequest['params'];

/**
 * A server's question (`elicitation/create`) during `agents mcp call`: `--input` answers it, checked
 * against the question as `plan approve --input` checks it (the schema's defaults fill what it
 * leaves out; an answer that does not fit cancels, and `badInput` hears why); a terminal asks field
 * by field, as `plan run` does; anything else declines, saying how to answer.
 */
export async function answerElicitation(ctx: Ctx, request: Elicitation, input: Record<string, unknown> | undefined, badInput: (problem: string) => void = () => undefined): Promise<ElicitResult> {
  ctx.io.stderr(`the server asks: ${request.message}\n`);
  if (request.mode === 'url') {
    ctx.io.stderr('declined: it asks to open a page, which `agents mcp call` does not do\n');
    return { action: 'decline' };
  }
  const schema = RequestedSchemaSchema.parse(request.requestedSchema);
  if (input !== undefined) {
    const checked = checkedAnswer(schema, input);
    if ('content' in checked) return { action: 'accept', content: checked.content };
    badInput(checked.problem);
    return { action: 'cancel' };
  }
  if (!process.stdin.isTTY || !ctx.io.isTTY) {
    ctx.io.stderr('declined: no terminal to ask on; answer with --input JSON\n');
    return { action: 'decline' };
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const ask = async (question: string): Promise<string | null> => {
    ctx.io.stderr(question);
    const next = await lines.next();
    return next.done ? null : String(next.value).trim();
  };
  for (const line of questionLines({ server: 'the server', message: request.message, requestedSchema: schema }).slice(1)) ctx.io.stderr(`${line}\n`);
  try {
    const answer = (await ask('answer? [y]es, [n]o (decline), [c]ancel: '))?.toLowerCase();
    if (answer === 'n' || answer === 'no') return { action: 'decline' };
    if (answer !== 'y' && answer !== 'yes') return { action: 'cancel' };
    const content = await askFields(schema, ask, (text) => ctx.io.stderr(text));
    if (content === null) return { action: 'cancel' };
    return { action: 'accept', content: content as ElicitResult['content'] };
  } finally {
    rl.close();
  }
}
