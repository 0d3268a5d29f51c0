import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { contextTokensOf } from '../../../shared/agent';
import { estimateTokens, fitContext } from './context-window';

/** A conversation of `turns` turns, each one call of file_read answered with `resultChars` characters. */
function conversation(turns: number, resultChars: number): ModelMessage[] {
  const messages: ModelMessage[] = [{ role: 'user', content: 'Your step (1 of 1): read the files' }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${i}`, toolName: 'file_read', input: { path: `f${i}.txt` } }] });
    messages.push({ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 'file_read', output: { type: 'text', value: `line ${i}\n${'x'.repeat(resultChars)}` } }] });
  }
  return messages;
}

/** Every tool call is answered right after it, and every answer has its call: what providers require. */
function paired(messages: readonly ModelMessage[]): boolean {
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    const calls = m.content.filter((p) => p.type === 'tool-call').map((p) => p.toolCallId);
    const next = messages[i + 1];
    const answered = next?.role === 'tool' ? next.content.map((p) => (p.type === 'tool-result' ? p.toolCallId : '')) : [];
    if (calls.some((id) => !answered.includes(id))) return false;
  }
  return messages.every((m, i) => m.role !== 'tool' || messages[i - 1]?.role === 'assistant');
}

describe('fitContext', () => {
  it('leaves a conversation that fits as it is', () => {
    expect(fitContext(conversation(3, 100), 10_000, 500)).toBeNull();
  });

  it('cuts the older tool results to one line first, and keeps the newest whole', () => {
    const messages = conversation(6, 4_000);
    const fit = fitContext(messages, 5_000, 200);
    expect(fit).not.toBeNull();
    const { messages: kept, report } = fit!;
    expect(report.turnsFolded).toBe(0);
    expect(report.resultsCut).toBeGreaterThan(0);
    expect(report.afterTokens).toBeLessThanOrEqual(5_000);
    expect(report.beforeTokens).toBe(200 + estimateTokens(messages));
    expect(kept).toHaveLength(messages.length);
    const first = kept[2] as Extract<ModelMessage, { role: 'tool' }>;
    const cut = first.content[0];
    expect(cut.type === 'tool-result' && cut.output.type === 'text' && cut.output.value).toMatch(/^\[cut to keep the step within its context\] line 0 x+… \(4007 characters\)$/);
    expect(kept.at(-1)).toEqual(messages.at(-1));
    expect(paired(kept)).toBe(true);
  });

  it('then folds the oldest turns into one summary after the prompt, which later folds extend', () => {
    const messages = conversation(40, 200);
    const fit = fitContext(messages, 2_500, 100)!;
    expect(fit.report.turnsFolded).toBeGreaterThan(0);
    expect(fit.report.afterTokens).toBeLessThanOrEqual(2_500);
    const [prompt, summary] = fit.messages;
    expect(prompt).toEqual(messages[0]);
    expect(summary.role).toBe('user');
    expect(summary.content).toMatch(/^Earlier in this step \(folded to keep the step within its context\):\n- file_read\(\{"path":"f0\.txt"\}\) -> line 0 x+/);
    expect(fit.messages.at(-1)).toEqual(messages.at(-1));
    expect(paired(fit.messages)).toBe(true);

    // The conversation goes on and grows past the window again: the same summary takes the next turns.
    const longer = [...fit.messages, ...conversation(45, 200).slice(81)];
    const again = fitContext(longer, 2_500, 100)!;
    expect(again.messages.filter((m) => typeof m.content === 'string' && m.content.startsWith('Earlier in this step'))).toHaveLength(1);
    expect(again.report.turnsFolded).toBeGreaterThan(0);
    expect(again.messages[1].content).toContain('f0.txt');
    // The turn that came first after the summary is now in it.
    const firstKept = (fit.messages[2].content as { input: { path: string } }[])[0].input.path;
    expect(again.messages[1].content).toContain(firstKept);
    expect(again.messages.at(-1)).toEqual(longer.at(-1));
    expect(paired(again.messages)).toBe(true);
  });
});

describe('contextTokensOf', () => {
  it("takes the plan's own size, else the known window of the model, else a default", () => {
    expect(contextTokensOf({ model: 'anthropic:claude-sonnet-4-5', contextTokens: 50_000 })).toBe(50_000);
    expect(contextTokensOf({ model: 'anthropic:claude-sonnet-4-5' })).toBe(200_000);
    expect(contextTokensOf({ model: 'openai:gpt-4o-mini' })).toBe(128_000);
    expect(contextTokensOf({ model: 'openai-compatible:qwen2.5-coder:7b' })).toBe(32_000);
    expect(contextTokensOf({ model: 'openai-compatible:anthropic/claude-3.5-haiku' })).toBe(200_000);
    expect(contextTokensOf({ model: 'openai-compatible:scripted' })).toBe(32_000);
    expect(contextTokensOf({ model: null })).toBe(32_000);
  });
});
