import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AcpAgentsView } from '../../shared/acp';
import type { Envelope } from '../../shared/contract';
import { QWEN_ENTRY, testAgentsInstalled } from '../../tests/support/acp-agents';
import { type TempApp, tempApp } from '../app/test-support';
import { createRouter, type Router } from './router';

const agentsOf = (envelope: Envelope<unknown>) => {
  if (!envelope.ok) throw new Error(JSON.stringify(envelope.error));
  return (envelope.data as AcpAgentsView).agents;
};

describe('the coding agents of the settings over the contract', () => {
  let t: TempApp;
  let router: Router;
  beforeEach(async () => {
    t = await tempApp();
    router = createRouter(t.app.service, { log: () => undefined });
  });
  afterEach(() => t.dispose());

  it('adds an agent as agents acp add does, starts it to say whether it starts, never answers its environment values, and removes it', async () => {
    const added = agentsOf(await router.handle('settings.acpAdd', { name: 'broken', commandLine: '/bin/false --quiet', env: ['TOKEN=s3cret-value'], allowHosts: ['api.example.com:443'] }));
    const broken = added.find((a) => a.name === 'broken');
    expect(broken).toMatchObject({ builtin: false, installed: true, starts: false, version: null, summary: '/bin/false --quiet (env: TOKEN) (hosts: api.example.com:443)' });
    expect(broken?.problem).toMatch(/exited \(code 1\) before it answered initialize/);
    expect(JSON.stringify(added)).not.toContain('s3cret-value');
    // The built-in agents are listed too, each installed or not.
    expect(added.filter((a) => a.builtin).map((a) => a.name)).toEqual(['claude', 'qwen', 'opencode', 'gemini', 'codex']);
    // On disk the value is there, for the agent's process.
    expect(JSON.parse(readFileSync(join(t.app.dataDir, 'settings.json'), 'utf8')).acp.agents.broken).toEqual({ command: '/bin/false', args: ['--quiet'], env: { TOKEN: 's3cret-value' }, allowHosts: ['api.example.com:443'] });
    expect(JSON.stringify(agentsOf(await router.handle('settings.acp', {})))).not.toContain('s3cret-value');

    const removed = agentsOf(await router.handle('settings.acpRemove', { name: 'broken' }));
    expect(removed.map((a) => a.name)).not.toContain('broken');
  });

  it('refuses a pipe, a pair without =, a bad name or removing a built-in, naming the field, and keeps nothing', async () => {
    expect(await router.handle('settings.acpAdd', { name: 'piped', commandLine: 'qwen --acp | tee log' })).toMatchObject({ ok: false, error: { field: 'command', message: expect.stringContaining('one command') } });
    expect(await router.handle('settings.acpAdd', { name: 'pairless', commandLine: 'qwen --acp', env: ['TOKEN'] })).toMatchObject({ ok: false, error: { field: 'env', message: expect.stringContaining('"TOKEN" is not KEY=VALUE') } });
    expect(await router.handle('settings.acpAdd', { name: 'Bad Name', commandLine: 'qwen --acp' })).toMatchObject({ ok: false, error: { field: 'name' } });
    expect(await router.handle('settings.acpRemove', { name: 'claude' })).toMatchObject({ ok: false, error: { message: expect.stringContaining('claude is built in and cannot be removed') } });
    expect(t.app.settings.read().acp).toBeUndefined();
  });

  it.skipIf(!testAgentsInstalled)('lists a real agent with the version its initialize reports and its modes', { timeout: 120_000 }, async () => {
    const agents = agentsOf(await router.handle('settings.acpAdd', { name: 'qwen-local', commandLine: `${process.execPath} ${QWEN_ENTRY} --acp`, env: ['OPENAI_API_KEY=sk-never-shown', 'OPENAI_BASE_URL=http://127.0.0.1:9/v1', 'OPENAI_MODEL=qwen3-coder', 'QWEN_USAGE_STATISTICS_ENABLED=false'] }));
    expect(agents.find((a) => a.name === 'qwen-local')).toMatchObject({ starts: true, version: 'qwen-code 0.24.4', modes: expect.arrayContaining(['default', 'plan']), problem: null });
    expect(JSON.stringify(agents)).not.toContain('sk-never-shown');
  });
});
