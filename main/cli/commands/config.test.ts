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
    expect((await agents('config', 'list')).stdout).toMatch(/\ntimeoutMs: +1500 ms\n/);
    expect(resolveModelConfig({ ...agentSpecOf(true)!, model: 'ollama:m' }, {}, new SettingsStore(join(home, 'settings.json'))).timeoutMs).toBe(1500);

    expect(await agents('config', 'unset', 'timeoutMs')).toEqual({ code: 0, stdout: 'timeoutMs cleared\n', stderr: '' });
    expect((await agents('config', 'get', 'timeoutMs')).stdout).toBe('\n');
    expect((await agents('config', 'list')).stdout).toMatch(/\ntimeoutMs: +\(not set\)\n/);
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

  it('the team database is stored with its password masked when shown, and an unreachable one never stops config from changing it', async () => {
    const { agents } = inProcessCli();
    expect((await agents('config', 'set', 'database', 'mysql://db/agents')).stderr).toBe(
      'error: database: mysql:// is not a PostgreSQL URL (expected postgresql://user:password@host:5432/database)\n',
    );
    // Port 1 on loopback: nothing listens, so a command that opened it would fail.
    expect(await agents('config', 'set', 'database', 'postgresql://ops:s3cret@127.0.0.1:1/agents')).toEqual({ code: 0, stdout: 'database set\n', stderr: '' });
    expect((await agents('config', 'get', 'database')).stdout).toBe('postgresql://ops:***@127.0.0.1:1/agents\n');
    expect((await agents('config', 'list')).stdout).not.toContain('s3cret');
    const list = await agents('plan', 'list');
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/^error: database: .*127\.0\.0\.1:1.*\n$/);
    expect(list.stderr).not.toContain('s3cret');
    expect(await agents('config', 'set', 'operator', 'Ada Lovelace')).toEqual({ code: 0, stdout: 'operator set\n', stderr: '' });
    expect(await agents('config', 'unset', 'database')).toEqual({ code: 0, stdout: 'database cleared\n', stderr: '' });
    expect((await agents('plan', 'list')).code).toBe(0);
    expect((await agents('config', 'get', 'operator')).stdout).toBe('Ada Lovelace\n');
  });
});
