import { join } from 'node:path';
import { claudeAddArgs } from './acp-agents';
import type { ChatRequest, Responder, ScriptedModelServer, ScriptedReply, ScriptedToolCall } from './scripted-model-server';

/** One call of a step: given the project folder and the names of the tools the agent offers in this request. */
export type StepCall = (dir: string, tools: string[]) => ScriptedToolCall;

/**
 * The model of a one-step plan: the request that carries the step's prompt and the agent's tools
 * gets the next of `calls` (one per request, counted by the calls already in the conversation: a
 * tool search's schemas come back as the user's text, not as a tool result), then a plain answer.
 * `delay(n)` holds the reply to the request that makes call n (a slow model), so a test sees the
 * step mid-way. Side requests (a title, a summary) get plain text.
 */
export function oneStep(calls: StepCall[], delay: (made: number) => number = () => 0): Responder {
  return (request: ChatRequest) => {
    const text = JSON.stringify(request.messages);
    if (!/Your step \(1 of 1\)/.test(text) || !request.tools?.length) return { text: 'Scripted side answer.' };
    const dir = /The project is the folder (\S+) \(your working folder\)/.exec(text)?.[1] ?? '.';
    const from = request.messages.findIndex((m) => JSON.stringify(m.content ?? '').includes('Your step (1 of 1)'));
    const made = request.messages.slice(from).reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
    const reply: ScriptedReply = made < calls.length ? { toolCalls: [calls[made](dir, request.tools.map((t) => t.function.name))] } : { text: 'The step is done.' };
    const latencyMs = delay(made);
    return latencyMs > 0 ? { ...reply, latencyMs } : reply;
  };
}

/** `agents acp add` for Claude Code with its task tools on: it offers them to the newest models only when asked to. */
export function claudeWithTasksAddArgs(name: string, server: ScriptedModelServer): string[] {
  const args = claudeAddArgs(name, server);
  args.splice(args.indexOf('--'), 0, '--env', 'CLAUDE_CODE_ENABLE_TODO_TOOLS=1');
  return args;
}

const create = (subject: string, activeForm: string): StepCall => () => ({ name: 'TaskCreate', args: { subject, description: subject, activeForm } });

/**
 * Claude Code's model lists three sub-tasks (TaskCreate, loaded through ToolSearch), writes
 * NOTES.md, and marks the first two done (TaskUpdate): the adapter sends each change as a `plan`.
 */
export const CLAUDE_TASK_CALLS: StepCall[] = [
  () => ({ name: 'ToolSearch', args: { query: 'select:TaskCreate,TaskUpdate' } }),
  create('Read the README', 'Reading the README'),
  create('Write NOTES.md', 'Writing NOTES.md'),
  create('Check the notes', 'Checking the notes'),
  (dir) => ({ name: 'Write', args: { file_path: join(dir, 'NOTES.md'), content: '# Notes\n' } }),
  () => ({ name: 'TaskUpdate', args: { taskId: '1', status: 'completed' } }),
  () => ({ name: 'TaskUpdate', args: { taskId: '2', status: 'completed' } }),
];

/**
 * A model for turns told apart by their prompt: the last message that matches one of `turns`'
 * patterns says which turn the request is in, and it gets that turn's next call (counted by the
 * calls made since that message), then a plain answer. Side requests get plain text.
 */
export function byTurn(turns: [RegExp, StepCall[]][]): Responder & { prompts: string[] } {
  const prompts: string[] = [];
  const responder = (request: ChatRequest) => {
    if (!request.tools?.length) return { text: 'Scripted side answer.' };
    const contents = request.messages.map((m) => JSON.stringify(m.content ?? ''));
    for (let at = contents.length - 1; at >= 0; at--) {
      const turn = turns.find(([pattern]) => pattern.test(contents[at]));
      if (!turn) continue;
      const dir = /The project is the folder (\S+) \(your working folder\)/.exec(contents[at])?.[1] ?? '.';
      const made = request.messages.slice(at).reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
      if (made === 0) prompts.push(contents[at]);
      const calls = turn[1];
      return made < calls.length ? { toolCalls: [calls[made](dir, request.tools.map((t) => t.function.name))] } : { text: 'Done.' };
    }
    return { text: 'Scripted side answer.' };
  };
  return Object.assign(responder, { prompts });
}
