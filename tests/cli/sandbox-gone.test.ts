import { readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agents, agentsJson, createPlan, sandboxWorkspace } from './cli-harness';

const filesOf = (root: string) =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => relative(root, join(d.parentPath, d.name)))
    .sort();

/** The sandbox folder removed behind the plan's back (by hand, a tmp cleaner, a crash mid-discard) is never read as "every file deleted". */
describe('agents CLI: a plan whose sandbox folder is gone', () => {
  it('applies what the plan recorded and deletes nothing of the project', async () => {
    const { home, examples } = sandboxWorkspace();
    const project = join(examples, 'demo-project');
    const id = await createPlan(join(examples, 'add-license.yaml'), home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(0);
    const { sandboxPath } = await agentsJson<{ sandboxPath: string }>(['plan', 'show', id], home);
    rmSync(sandboxPath, { recursive: true, force: true });

    const apply = await agents(['plan', 'apply', id], home);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(filesOf(project)).toEqual(['LICENSE', 'README.md', 'lib/greet.js', 'package.json', 'tests/greet.test.js']);
  }, 60_000);

  it('refuses to retry a failed plan with one line, and leaves the project as it was', async () => {
    const { home, examples } = sandboxWorkspace();
    const project = join(examples, 'demo-project');
    const before = filesOf(project);
    const id = await createPlan(join(examples, 'broken-docs.yaml'), home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(1);
    const { sandboxPath } = await agentsJson<{ sandboxPath: string }>(['plan', 'show', id], home);
    rmSync(sandboxPath, { recursive: true, force: true });

    const retry = await agents(['plan', 'retry', id], home);
    expect(retry.code).not.toBe(0);
    expect(retry.stderr.trim().split('\n')).toEqual([expect.stringContaining(`its sandbox ${sandboxPath} is gone; apply what it recorded, or discard the plan and create it again`)]);
    expect(filesOf(project)).toEqual(before);
    expect((await agents(['plan', 'discard', id], home)).code).toBe(0);
  }, 60_000);
});
