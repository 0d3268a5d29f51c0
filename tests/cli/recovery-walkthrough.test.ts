import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agents, agentsJson, createPlan, sandboxWorkspace } from './cli-harness';

const HEADING = '## Configuration';
const LINK = 'See docs/configuration.md.';

/** README's recovery walkthrough, as an operator types it: broken-docs fails, is fixed by hand in its sandbox, retried, reviewed and applied. */
describe("agents CLI: the README's broken-docs walkthrough", () => {
  it('fails, takes the fix made in the sandbox, and applies both files', async () => {
    const { home, examples } = sandboxWorkspace();
    const project = join(examples, 'demo-project');
    const id = await createPlan(join(examples, 'broken-docs.yaml'), home);

    const run = await agents(['plan', 'run', id], home);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('"## Configuration" was not found');

    const { sandboxPath } = await agentsJson<{ sandboxPath: string }>(['plan', 'show', id], home);
    appendFileSync(join(sandboxPath, 'README.md'), `\n${HEADING}\n`);

    const retry = await agents(['plan', 'retry', id], home);
    expect(retry.stderr).not.toContain('error');
    expect(retry.code).toBe(0);

    const diff = await agents(['plan', 'diff', id], home);
    expect(diff.code).toBe(0);
    const readme = diff.stdout.split('\n\n').find((section) => section.startsWith('MODIFY README.md')) ?? '';
    expect(readme.split('\n')[0]).toContain('Edited by you');
    // The operator's heading is part of the change, not unchanged context.
    expect(readme.split('\n')).toContain(`+${HEADING}`);
    expect(readme.split('\n')).toContain(`+${LINK}`);
    const docs = diff.stdout.split('\n\n').find((section) => section.startsWith('CREATE docs/configuration.md')) ?? '';
    expect(docs).not.toContain('Edited by you');

    const files = (await agentsJson<{ files: { path: string; editedByOperator: boolean }[] }>(['plan', 'diff', id], home)).files;
    expect(new Map(files.map((f) => [f.path, f.editedByOperator]))).toEqual(
      new Map([
        ['README.md', true],
        ['docs/configuration.md', false],
      ]),
    );

    const apply = await agents(['plan', 'apply', id], home);
    expect(apply.stderr).toBe('');
    expect(apply.code).toBe(0);
    expect(apply.stdout).toContain('applied 2 files');
    const text = readFileSync(join(project, 'README.md'), 'utf8');
    expect(text).toContain(`${HEADING}\n\n${LINK}`);
    expect(text.startsWith('# Demo')).toBe(true);
    expect(existsSync(join(project, 'docs/configuration.md'))).toBe(true);
  }, 60_000);
});
