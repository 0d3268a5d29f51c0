import type { ChatRequest, Responder, ScriptedReply } from './scripted-model-server';

/** True when the request is strategize's (it offers propose_plan). */
export function isStrategize(request: ChatRequest): boolean {
  return (request.tools ?? []).some((t) => t.function.name === 'propose_plan');
}

/** The text of the step the request is about (execute's prompt says "Your step (k of n): ..."). */
export function stepOf(request: ChatRequest): string | null {
  const first = request.messages.find((m) => m.role === 'user');
  const text = typeof first?.content === 'string' ? first.content : JSON.stringify(first?.content ?? '');
  return /Your step \(\d+ of \d+\): (.+)/.exec(text)?.[1] ?? null;
}

/** How many tool results the conversation has had since the prompt. */
export function toolResults(request: ChatRequest): number {
  return request.messages.filter((m) => m.role === 'tool').length;
}

/**
 * A well-behaved model: strategize lists the project and proposes one step per file; each step
 * writes its file, reads it back, and finishes with a summary.
 */
export function fileWritingAgent(files: Record<string, string>, options: { text?: string } = {}): Responder {
  const paths = Object.keys(files);
  return (request): ScriptedReply => {
    const results = toolResults(request);
    if (isStrategize(request)) {
      if (results === 0) return { text: options.text ?? 'Let me look at the project first.', toolCalls: [{ name: 'file_list', args: {} }], usage: { input: 120, output: 20 } };
      return {
        text: 'Here is my plan.',
        toolCalls: [
          {
            name: 'propose_plan',
            args: {
              steps: paths.map((path) => ({
                description: `Write ${path}`,
                rationale: `The definition of done asks for ${path}`,
                acceptance: `${path} exists with the expected content`,
                toolCalls: [{ tool: 'file.write', args: { path } }],
              })),
            },
          },
        ],
        usage: { input: 200, output: 60 },
      };
    }
    const step = stepOf(request) ?? '';
    const path = paths.find((p) => step === `Write ${p}`) ?? paths[0];
    if (results === 0) {
      return { text: options.text ?? `I will write ${path} now.`, toolCalls: [{ name: 'file_write', args: { path, content: files[path] } }], usage: { input: 150, output: 40 } };
    }
    if (results === 1) return { toolCalls: [{ name: 'file_read', args: { path } }], usage: { input: 180, output: 10 } };
    return { text: 'Done.', toolCalls: [{ name: 'finish_step', args: { summary: `Wrote ${path} and read it back.` } }], usage: { input: 200, output: 15 } };
  };
}

/**
 * A model that searches during strategize: each of `patterns` in turn (a refused one comes back as
 * an error and the next follows), then proposes one step, which it finishes at once.
 */
export function searchingAgent(patterns: string[]): Responder {
  return (request): ScriptedReply => {
    const results = toolResults(request);
    if (isStrategize(request)) {
      if (results < patterns.length) return { toolCalls: [{ name: 'file_search', args: { pattern: patterns[results] } }] };
      const step = { description: 'Report what the search found', rationale: 'The definition of done asks for it', acceptance: 'The summary names the matches' };
      return { toolCalls: [{ name: 'propose_plan', args: { steps: [step] } }] };
    }
    return { toolCalls: [{ name: 'finish_step', args: { summary: 'Reported the matches.' } }] };
  };
}
