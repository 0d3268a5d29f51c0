import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planAgentOf, resolveAgentName, resolvePlanAgent } from './acp-agents';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder with an executable named `program`, as npm installs an agent's command. */
function folderWith(program: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agents-acp-bin-'));
  made.push(dir);
  writeFileSync(path.join(dir, program), '#!/bin/sh\n');
  chmodSync(path.join(dir, program), 0o755);
  return dir;
}

describe('the agents a plan may name', () => {
  it('finds a built-in in the settings folder before PATH, with its offline switches and only the variables it reads from the environment', () => {
    const folder = folderWith('claude-agent-acp');
    const env = { PATH: '/usr/bin:/bin', ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'not-claude', IS_SANDBOX: 'yes', HOME: '/root' };
    const launch = resolveAgentName('claude', { agents: {}, folder }, env);
    expect(launch.command).toBe(path.join(folder, 'claude-agent-acp'));
    expect(launch.env).toMatchObject({ ANTHROPIC_API_KEY: 'k', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', CLAUDE_CODE_ENABLE_TODO_TOOLS: '1', PATH: '/usr/bin:/bin' });
    // IS_SANDBOX would make the adapter skip permissions as root; HOME is the run's own for the plan.
    expect(Object.keys(launch.env)).not.toContain('IS_SANDBOX');
    expect(Object.keys(launch.env)).not.toContain('OPENAI_API_KEY');
    expect(Object.keys(launch.env)).not.toContain('HOME');
    expect(launch.allowHosts).toEqual(['api.anthropic.com:443']);
  });

  it('says how to install a built-in that is missing, and lists the agents for an unknown name', () => {
    expect(() => resolveAgentName('qwen', { agents: {} }, { PATH: '/nonexistent' })).toThrow(/the qwen agent is not installed: qwen is not on PATH \(install it with npm install -g @qwen-code\/qwen-code/);
    expect(() => resolveAgentName('nobody', { agents: { mine: { command: 'x', args: [], env: {}, allowHosts: [] } } }, {})).toThrow('unknown agent "nobody"; the agents are mine, claude, qwen, opencode, gemini, codex');
  });

  it('an operator\'s agent wins over a built-in of the same name; a plan keeps an inline agent\'s environment, a named one\'s stays in the settings', () => {
    const settings = { agents: { qwen: { command: '/opt/qwen', args: ['--acp'], env: { OPENAI_API_KEY: 's' }, allowHosts: [] } } };
    expect(resolveAgentName('qwen', settings, {}).command).toBe('/opt/qwen');
    const named = planAgentOf({ acp: 'qwen' }, settings, {});
    expect(named).toEqual({ name: 'qwen', command: '/opt/qwen', args: ['--acp'], allowHosts: [], version: null });
    expect(resolvePlanAgent(named, settings, {}).env).toEqual({ OPENAI_API_KEY: 's' });
    const inline = planAgentOf({ acp: { command: '/opt/other', args: [], env: { TOKEN: 't' }, allowHosts: ['h:1'] } }, settings, {});
    expect(inline).toMatchObject({ name: 'inline', env: { TOKEN: 't' }, allowHosts: ['h:1'] });
    expect(() => resolvePlanAgent({ ...named, name: 'gone' }, settings, {})).toThrow(/this plan runs the agent "gone", which this machine does not have/);
  });
});
