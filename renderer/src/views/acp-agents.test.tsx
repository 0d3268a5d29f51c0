import { describe, expect, it } from 'vitest';
import { testRuntime } from '../test-support/runtime';
import { render } from '../test-support/render';
import { AcpAgents } from './AcpAgents';
import { SettingsSheet } from './SettingsSheet';

const qwen = { name: 'qwen-local', builtin: false, summary: 'node /opt/qwen/cli-entry.js --acp (env: OPENAI_API_KEY, OPENAI_BASE_URL)', installed: true, starts: true, version: 'qwen-code 0.24.4', modes: ['default', 'plan', 'yolo'], problem: null };
const broken = { name: 'broken', builtin: false, summary: '/bin/false', installed: true, starts: false, version: null, modes: [], problem: 'the agent /bin/false exited before it answered initialize' };
const gemini = { name: 'gemini', builtin: true, summary: null, installed: false, starts: false, version: null, modes: [], problem: 'the gemini agent is not installed: gemini is not on PATH (install it with npm install -g @google/gemini-cli)' };

describe('the coding agents in Settings', () => {
  it('lists each agent by name, command, version and modes, whether it starts, and only the names of its environment', async () => {
    const t = testRuntime();
    t.fake.acpAgents = [qwen, broken, gemini];
    await t.state().loadAcpAgents();
    const html = render(t.store, <AcpAgents />);
    expect(html).toContain('<h3 id="settings-acp-title">Coding agents</h3>');
    expect(html).toContain('<ul class="settings-mcp-list" aria-label="Coding agents">');
    expect(html).toContain('<code>qwen-local</code> <span class="muted">node /opt/qwen/cli-entry.js --acp (env: OPENAI_API_KEY, OPENAI_BASE_URL)</span>');
    expect(html).toContain('Starts: qwen-code 0.24.4; modes: default, plan, yolo');
    expect(html).toContain('<span class="inline-error">Does not start: the agent /bin/false exited before it answered initialize</span>');
    // A built-in agent is listed as not installed, without a Remove button and not as a failure.
    expect(html).toContain('<code>gemini</code><span class="muted"> (built in)</span> <span class="muted">not installed</span>');
    expect(html).toContain('<span class="muted">Not installed: the gemini agent is not installed');
    expect(html).toContain('aria-label="Remove agent qwen-local"');
    expect(html).not.toContain('aria-label="Remove agent gemini"');
    // The environment is typed in a password field and its values are never shown back.
    expect(html).toMatch(/<input id="settings-acp-env" class="input" type="password" autoComplete="off"/);
  });

  it('says the host is starting the agents while it checks them', () => {
    const t = testRuntime();
    t.store.setState({ acpAgentsBusy: true });
    const html = render(t.store, <AcpAgents />);
    expect(html).toContain('<p role="status" class="muted">Starting each agent to check it…</p>');
    expect(html).toMatch(/<button type="submit" class="button" disabled="">Add agent<\/button>/);
  });

  it('adds an agent through the host with its environment and hosts, removes it, and shows a refusal in one line', async () => {
    const t = testRuntime();
    expect(await t.state().addAcpAgent({ name: 'qwen-local', commandLine: 'qwen --acp', env: ['OPENAI_API_KEY=sk-secret'], allowHosts: ['api.example.com:443'] })).toBe(true);
    expect(t.fake.callsTo('settings.acpAdd')).toEqual([{ name: 'qwen-local', commandLine: 'qwen --acp', env: ['OPENAI_API_KEY=sk-secret'], allowHosts: ['api.example.com:443'] }]);
    expect(t.state().status.text).toBe('Agent qwen-local added');
    expect(render(t.store, <AcpAgents />)).not.toContain('sk-secret');
    await t.state().removeAcpAgent('qwen-local');
    expect(t.state().acpAgents).toEqual([]);
    expect(t.state().status.text).toBe('Agent qwen-local removed');
    t.fake.fail('settings.acpAdd', 'command: must be one command, without pipes, variables or substitutions');
    expect(await t.state().addAcpAgent({ name: 'piped', commandLine: 'qwen | tee log' })).toBe(false);
    expect(t.state().acpAgentsBusy).toBe(false);
    expect(render(t.store, <AcpAgents />)).toContain('<p class="inline-error" role="alert">command: must be one command, without pipes, variables or substitutions</p>');
  });

  it('sits in the Settings sheet beside the MCP servers', () => {
    const t = testRuntime();
    t.store.setState({ settingsOpen: true });
    const html = render(t.store, <SettingsSheet />);
    expect(html.indexOf('settings-mcp-title')).toBeGreaterThan(0);
    expect(html.indexOf('settings-acp-title')).toBeGreaterThan(html.indexOf('settings-mcp-title'));
  });
});
