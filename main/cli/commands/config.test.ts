import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentSpecOf } from '../../../shared/agent';
import { CONFIG_KEYS, resolveModelConfig, SettingsStore } from '../../app/settings';
import { inProcessCli } from '../test-support';

describe('agents config', () => {
  it('config get timeoutMs prints the timeout config set stored, which a model call then uses', async () => {
    const { home, agents } = inProcessCli();
    expect(await agents('config', 'set', 'timeoutMs', '1500')).toEqual({ code: 0, stdout: 'timeoutMs set\n', stderr: '' });
    expect(await agents('config', 'get', 'timeoutMs')).toEqual({ code: 0, stdout: '1500\n', stderr: '' });
    expect((await agents('config', 'list')).stdout).toContain('\ntimeoutMs:        1500 ms\n');
    expect(resolveModelConfig({ ...agentSpecOf(true)!, model: 'ollama:m' }, {}, new SettingsStore(join(home, 'settings.json'))).timeoutMs).toBe(1500);

    expect(await agents('config', 'unset', 'timeoutMs')).toEqual({ code: 0, stdout: 'timeoutMs cleared\n', stderr: '' });
    expect((await agents('config', 'get', 'timeoutMs')).stdout).toBe('\n');
    expect((await agents('config', 'list')).stdout).toContain('\ntimeoutMs:        (not set)\n');
  });

  it('get, set and list know the same keys, from one table', async () => {
    const { agents } = inProcessCli();
    const list = (await agents('config', 'list')).stdout;
    for (const key of CONFIG_KEYS) {
      expect((await agents('config', 'get', key)).code, key).toBe(0);
      expect(list).toMatch(new RegExp(`^${key}: `, 'm'));
    }
    const unknown = await agents('config', 'get', 'colour');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`error: key: unknown setting "colour"; the settings are ${CONFIG_KEYS.join(', ')}\n`);
    expect((await agents('config', 'set', 'colour', 'blue')).stderr).toBe(unknown.stderr);
    expect((await agents('config', 'set', 'timeoutMs', '-5')).code).toBe(2);
  });
});
