import { describe, expect, it } from 'vitest';
import { makePlan } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { render } from '../test-support/render';
import { PlanHeader } from './PlanHeader';

const text = (html: string) => html.replace(/<[^>]+>/g, '');
const acp = { name: 'claude', command: 'claude-agent-acp', args: [], allowHosts: [], version: 'claude-agent-acp 0.101.0' };

describe("a coding agent's usage in the plan header", () => {
  it('shows the tokens and the cost the agent reported, without a price in the settings', () => {
    const { store } = testRuntime();
    const usage = { inputTokens: 1200, outputTokens: 20_000, costUsd: 0.3036, steps: [] };
    expect(text(render(store, <PlanHeader plan={makePlan({ acp, usage })} />))).toContain('Tokens: 1,200 in, 20,000 out · cost 0.3036');
  });

  it('is not there for a scripted plan', () => {
    const { store } = testRuntime();
    const html = render(store, <PlanHeader plan={makePlan()} />);
    expect(html).not.toContain('plan-usage');
    expect(text(html)).not.toContain('Tokens:');
  });
});

describe('the price in the settings', () => {
  it("prices our model's tokens, never a coding agent's: an agent that reports no cost (Qwen Code) shows tokens alone", () => {
    const { store } = testRuntime();
    store.setState({ settings: { ...store.getState().settings, price: { inputPerMTok: 1, outputPerMTok: 1 } } as never, settingsStatus: 'loaded' });
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, steps: [] };
    const qwen = { ...acp, name: 'qwen', command: 'qwen', version: 'qwen-code 0.24.4' };
    expect(text(render(store, <PlanHeader plan={makePlan({ acp: qwen, usage })} />))).toContain('Tokens: 1,000,000 in, 1,000,000 out');
    expect(text(render(store, <PlanHeader plan={makePlan({ acp: qwen, usage })} />))).not.toContain('cost');
    expect(text(render(store, <PlanHeader plan={makePlan({ agent: { model: 'openai-compatible:m', maxTurnsPerStep: 5, maxOutputTokens: 100 }, usage })} />))).toContain('cost');
  });
});
