// A plan whose command reads what only root may read: when the engine runs as root (CI, containers),
// the command still runs as nobody with those files hidden, so nothing of them reaches any output
// or the database.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agents, createPlan, sandboxWorkspace } from './cli-harness';

/** Every file under `dir`, as bytes read as latin1 (the database and its WAL included). */
function everyFile(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    return statSync(file).isDirectory() ? everyFile(file) : [readFileSync(file, 'latin1')];
  });
}

describe('agents CLI: a command that reads /etc/shadow', () => {
  const { home, examples } = sandboxWorkspace();

  it('fails, and shadow’s content is nowhere: not in the run, the tree, the errors, nor the stored invocation', async () => {
    // Running as root, the test reads it: the lines a leak would show. Not root, it cannot leak anyway.
    const asRoot = process.geteuid?.() === 0;
    const shadow = asRoot ? readFileSync('/etc/shadow', 'utf8').split('\n').filter((line) => line.includes(':')) : [];
    if (asRoot) expect(shadow.length).toBeGreaterThan(0);
    const file = join(examples, 'read-shadow.yaml');
    writeFileSync(
      file,
      [
        'name: read-shadow',
        'project: ./demo-project',
        'automationProfile: { base: trusted, autoRetryTransient: 0 }',
        'definitionOfDone:',
        '  - step: Read the password hashes',
        '    tools:',
        '      - tool: shell.run',
        '        args: { command: "cat /etc/shadow" }',
        '',
      ].join('\n'),
    );
    const id = await createPlan(file, home);
    const run = await agents(['plan', 'run', id, '--stream'], home);
    expect(run.code).toBe(1);
    const tree = await agents(['plan', 'tree', id], home);
    expect(tree.stdout).toContain('Read the password hashes  (shell.run)  [shell: confined by bwrap as nobody]');
    const treeJson = await agents(['plan', 'tree', id, '--json'], home);
    expect(JSON.parse(treeJson.stdout)).toMatchObject({ invocations: [{ tool: 'shell.run', ok: false, confinement: 'bwrap-nobody' }] });
    const errors = await agents(['plan', 'errors', id, '--json'], home);
    expect(errors.stdout).toContain('cat: /etc/shadow: Permission denied');
    const outputs = [run.stdout, run.stderr, tree.stdout, treeJson.stdout, errors.stdout, errors.stderr, (await agents(['plan', 'show', id, '--json'], home)).stdout, ...everyFile(home)];
    expect(shadow.filter((line) => outputs.some((text) => text.includes(line)))).toEqual([]);
  }, 90_000);
});
