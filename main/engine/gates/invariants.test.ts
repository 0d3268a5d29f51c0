import { describe, expect, it } from 'vitest';
import { InvariantRules } from './invariants';

const rules = (deny: string[], allow?: string[]) => new InvariantRules({ protect: [], denyCommands: deny, allowCommands: allow, notes: [] });

describe('InvariantRules: command rules on each simple command', () => {
  it('denies a simple command anywhere in the command, naming it and the rule', async () => {
    const refusal = await rules(['rm -rf *']).commandRefusal('echo start && (cd . ; rm -rf docs) | cat');
    expect(refusal).toMatchObject({ category: 'invariant', details: { rule: 'denyCommands "rm -rf *"', command: 'rm -rf docs' } });
    expect(refusal?.message).toBe('shell.run: "rm -rf docs" is denied by the project invariant denyCommands "rm -rf *"');
  });

  it('only allowCommands is a boundary: denyCommands does not stop another way to delete', async () => {
    const other = ['find docs -delete', `node -e "require('fs').rmSync('docs', { recursive: true })"`];
    for (const command of other) {
      expect(await rules(['rm -rf *']).commandRefusal(command)).toBeUndefined();
      expect(await rules([], ['npm *']).commandRefusal(command)).toMatchObject({ category: 'invariant' });
    }
  });

  it('names a command whose words a rule may turn on: a deny rule’s first word, by path too, or any under allowCommands', () => {
    expect(rules(['rm -rf *', 'git push*']).namesCommand('rm')).toBe(true);
    expect(rules(['rm -rf *']).namesCommand('/bin/rm')).toBe(true);
    expect(rules(['/usr/bin/git push*']).namesCommand('git')).toBe(true);
    expect(rules(['rm -rf *']).namesCommand('echo')).toBe(false);
    expect(rules(['rm -rf *'], ['echo *']).namesCommand('cat')).toBe(true);
  });

  it('compares words, not meanings: rm -fr is not rm -rf', async () => {
    expect(await rules(['rm -rf *']).commandRefusal('rm -fr docs')).toBeUndefined();
  });

  it('denies a command run by its path by its name too', async () => {
    expect((await rules(['rm -rf *']).commandRefusal('/usr/bin/rm -rf docs'))?.details).toEqual({ rule: 'denyCommands "rm -rf *"', command: '/usr/bin/rm -rf docs' });
  });

  it('allowCommands: every simple command must match one, wrappers included, as written', async () => {
    const allow = rules([], ['npm *', 'git status']);
    expect(await allow.commandRefusal('git status && npm test | npm run lint')).toBeUndefined();
    expect((await allow.commandRefusal('npm test; curl example.com'))?.details).toEqual({ rule: 'allowCommands (it matches none of "npm *", "git status")', command: 'curl example.com' });
    expect((await allow.commandRefusal('env CI=1 npm test'))?.details.command).toBe('env CI=1 npm test');
    expect((await allow.commandRefusal('/tmp/npm test'))?.details.command).toBe('/tmp/npm test');
  });

  it('an empty allowCommands allows no command; an absent one allows every command', async () => {
    expect((await rules([], []).commandRefusal('ls'))?.message).toContain('it matches none of an empty list');
    expect(await rules([]).commandRefusal('ls; anything')).toBeUndefined();
    expect(rules([]).hasCommandRules).toBe(false);
    expect(rules([], []).hasCommandRules).toBe(true);
  });

  it('checkCall holds a protected path against a tool that writes or is not registered, never against one that only reads', async () => {
    const protecting = new InvariantRules({ protect: ['secrets/**'], denyCommands: [], allowCommands: undefined, notes: [] });
    await expect(protecting.checkCall('file.read', { path: 'secrets/key' }, 'read')).resolves.toBeUndefined();
    await expect(protecting.checkCall('file.write', { path: 'secrets/key', content: '' }, 'write')).rejects.toThrow('secrets/key is protected by the project invariant protect "secrets/**"');
    await expect(protecting.checkCall('file.rename', { from: 'a', to: 'secrets/b' }, 'write')).rejects.toThrow('protect "secrets/**"');
    await expect(protecting.checkCall('custom.tool', { path: 'secrets/key' }, undefined)).rejects.toThrow('protect "secrets/**"');
  });

  it('checkCall throws the refusal for shell.run', async () => {
    await expect(rules(['git push*']).checkCall('shell.run', { command: 'git add . && git push origin main' }, 'exec')).rejects.toThrow('"git push origin main" is denied');
  });
});
