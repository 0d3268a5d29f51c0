import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../shared/domain';
import type { StreamEvent } from '../../../shared/events';
import { makeApproval, makeDecision, makePlan, NOTIFY_DEFAULTS } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { ApprovalCard } from './ApprovalCard';
import { FailureCard } from './FailureCard';
import { ModelOutput } from './ModelOutput';
import { PlanHeader } from './PlanHeader';
import { SettingsSheet } from './SettingsSheet';
import { render } from '../test-support/render';


const agent = { model: null, maxTurnsPerStep: 20, maxOutputTokens: 16000 };
const usable = { model: 'openai-compatible:scripted', baseUrl: 'http://127.0.0.1:9/v1', usable: true, problem: null };
const unusable = { model: 'anthropic:claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com/v1', usable: false, problem: 'AGENTS_API_KEY: needs a key' };
const output = (seq: number, decisionId: string | null, text: string): StreamEvent => ({
  planId: 'P1',
  seq,
  ts: '2026-01-01T00:00:00.000Z',
  type: 'model_output',
  data: { decisionId, phase: decisionId ? 'execute' : 'strategize', text },
});

describe('the agent in the console', () => {
  it('streams the model output, one block per phase or step, under the step’s description', () => {
    const { store } = testRuntime();
    const step = makeDecision('D1', 'ROOT', 1, { description: 'Write NOTES.md' });
    store.setState({ decisions: { D1: step }, events: [output(1, null, 'Let me look '), output(2, null, 'around.'), output(3, 'D1', 'Writing it now.')] });
    const html = render(store, <ModelOutput plan={makePlan({ agent })} />);
    expect(html).toContain('role="log"');
    expect(html).toMatch(/<h4>Strategize<\/h4><p>Let me look around\.<\/p>/);
    expect(html).toMatch(/<h4>Write NOTES\.md<\/h4><p>Writing it now\.<\/p>/);
    expect(render(store, <ModelOutput plan={makePlan()} />)).toBe('');
  });

  it('shows the tokens in the plan header, and their cost once a price is set', () => {
    const { store } = testRuntime();
    const plan = makePlan({ agent, usage: { inputTokens: 1_000_000, outputTokens: 200_000, steps: [] } });
    expect(render(store, <PlanHeader plan={plan} />)).toContain('Tokens: 1,000,000 in, 200,000 out');
    store.setState({
      settings: { model: null, baseUrl: null, apiKeySet: false, price: { inputPerMTok: 3, outputPerMTok: 15 }, database: null, operator: null, notify: NOTIFY_DEFAULTS, effective: { model: null, modelSource: 'none', baseUrl: null, apiKeySource: 'none' } },
      settingsStatus: 'loaded',
    });
    expect(render(store, <PlanHeader plan={plan} />)).toContain('cost 6.0000');
    // Input read from the provider's cache is shown, and priced at its own rate.
    const cached = makePlan({ agent, usage: { inputTokens: 1_000_000, cachedInputTokens: 600_000, outputTokens: 200_000, steps: [] } });
    store.setState({ settings: { ...store.getState().settings!, price: { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 } } });
    const html = render(store, <PlanHeader plan={cached} />);
    expect(html).toContain('Tokens: 1,000,000 in (600,000 cached), 200,000 out');
    // 400,000 at 3, 600,000 at 0.3 and 200,000 at 15, per million.
    expect(html).toContain('cost 4.3800');
  });

  it('offers Ask the agent to fix it on the failure card of an agent plan that failed in execute', () => {
    const { store } = testRuntime();
    const failed = makePlan({ agent, phase: 'execute', processingState: 'errored', errorMessage: 'step "Write" used its 3 turns without finishing' });
    // The engine corrects a step that failed: the store holds one.
    store.setState({ planModel: usable, decisions: { s1: makeDecision('s1', 'root', 0, { status: 'failed' }) } });
    // The open plan, whose actions the host lists.
    const card = (plan: Plan) => {
      store.setState({ plan });
      return render(store, <FailureCard plan={plan} />);
    };
    const html = card(failed);
    expect(html).toContain('Ask the agent to fix it');
    expect(html).toMatch(/<label for="correct-note">Note for the agent<\/label>/);
    expect(card({ ...failed, agent: undefined })).not.toContain('Ask the agent to fix it');
    // Not where the host cannot use the plan's model: the button could only fail.
    store.setState({ planModel: unusable });
    expect(card(failed)).not.toContain('Ask the agent to fix it');
  });

  it("names the plan's own model in the header, and says when this host cannot use it", () => {
    const { store } = testRuntime();
    const plan = makePlan({ agent: { ...agent, model: 'anthropic:claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com/v1' } });
    store.setState({ planModel: usable });
    expect(render(store, <PlanHeader plan={plan} />)).toMatch(/data-testid="plan-model"[^>]*>Model openai-compatible:scripted</);
    store.setState({ planModel: unusable });
    expect(render(store, <PlanHeader plan={plan} />)).toContain('not usable here: AGENTS_API_KEY: needs a key');
  });

  it("turns Approve off and says why when the host cannot use the plan's model", () => {
    const { store } = testRuntime();
    const steps = [{ description: 'Write NOTES.md', rationale: 'Asked for', toolCalls: [] }];
    store.setState({ pendingApproval: makeApproval('A1', { kind: 'plan', tool: null, args: { steps }, description: 'The model proposes 1 step' }), approvalsStatus: 'loaded', planModel: unusable });
    const plan = makePlan({ agent, processingState: 'paused', waitingFor: 'approval' });
    const off = render(store, <ApprovalCard plan={plan} />);
    expect(off).toMatch(/<button[^>]*disabled=""[^>]*>Approve<\/button>/);
    expect(off).toContain('AGENTS_API_KEY: needs a key');
    store.setState({ planModel: usable });
    const on = render(store, <ApprovalCard plan={plan} />);
    expect(on).not.toMatch(/<button[^>]*disabled=""[^>]*>Approve<\/button>/);
    expect(on).not.toContain('approval-model-problem');
  });

  it('shows a proposed plan as its steps, with Approve and Reject but no Approve all', () => {
    const { store } = testRuntime();
    const steps = [{ description: 'Write NOTES.md', rationale: 'Asked for\nAcceptance: it exists', toolCalls: [] }];
    store.setState({ pendingApproval: makeApproval('A1', { kind: 'plan', tool: null, args: { steps }, description: 'The model proposes 1 step' }), approvalsStatus: 'loaded' });
    const html = render(store, <ApprovalCard plan={makePlan({ agent, processingState: 'paused', waitingFor: 'approval' })} />);
    expect(html).toContain('Approval needed: the proposed plan');
    expect(html).toContain('<strong>Write NOTES.md</strong>');
    expect(html).not.toContain('Approve all');
    expect(html).toContain('What the model should change in its plan');
  });

  it('never shows an API key in the settings, only whether one is set', () => {
    const { store } = testRuntime();
    store.setState({
      settingsOpen: true,
      settings: { model: 'ollama:llama3.2', baseUrl: null, apiKeySet: true, price: null, database: null, operator: null, notify: NOTIFY_DEFAULTS, effective: { model: 'ollama:llama3.2', modelSource: 'settings', baseUrl: null, apiKeySource: 'settings' } },
    });
    const html = render(store, <SettingsSheet />);
    expect(html).toContain('type="password"');
    expect(html).toContain('A key is set; type to replace it');
    expect(html).toContain('Remove the API key');
  });

  it('lists the MCP servers by name and command with a Remove button each, and adds one through the host', async () => {
    const t = testRuntime();
    t.fake.mcpServers = [{ name: 'files', summary: 'npx mcp-server-filesystem . (env: TOKEN)', local: true }];
    t.state().setSettingsOpen(true);
    await t.settle();
    const html = render(t.store, <SettingsSheet />);
    expect(html).toContain('<h3 id="settings-mcp-title">MCP servers</h3>');
    expect(html).toContain('<code>files</code> <span class="muted">npx mcp-server-filesystem . (env: TOKEN)</span>');
    expect(html).toContain('aria-label="Remove MCP server files"');
    expect(html).toContain('<label for="settings-mcp-target">Command line or URL</label>');
    expect(await t.state().addMcpServer({ name: 'tracker', url: 'https://mcp.example.com/mcp' })).toBe(true);
    expect(t.fake.callsTo('settings.mcpAdd')).toEqual([{ name: 'tracker', url: 'https://mcp.example.com/mcp' }]);
    expect(t.state().mcpServers?.map((s) => s.name)).toEqual(['files', 'tracker']);
    expect(t.state().status.text).toBe('MCP server tracker added');
    await t.state().removeMcpServer('files');
    expect(t.state().mcpServers?.map((s) => s.name)).toEqual(['tracker']);
    t.fake.fail('settings.mcpAdd', 'name: must be a simple name');
    expect(await t.state().addMcpServer({ name: 'bad name', commandLine: 'x' })).toBe(false);
    expect(t.state().mcpError).toBe('name: must be a simple name');
  });
});
