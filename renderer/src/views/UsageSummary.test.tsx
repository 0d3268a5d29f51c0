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
