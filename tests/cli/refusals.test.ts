// A refusal says what it is: a rule that stops `plan apply` (a symbolic link where the changeset
// writes) is one line naming the path and the link, with the exit status of a blocked apply, and
// never an "internal error".
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agents, createPlan, sandboxWorkspace } from './cli-harness';

const LONG = { timeout: 120_000 };

describe('agents plan apply refuses to write through a symbolic link in the project', () => {
  it('exits 1 with one line naming the link, writes nothing, and applies once the link is gone', LONG, async () => {
    const { home, examples } = sandboxWorkspace();
    const project = join(examples, 'demo-project');
    const id = await createPlan(join(examples, 'add-license.yaml'), home);
    expect((await agents(['plan', 'run', id], home)).code).toBe(0);
    // The changeset moves src/greet.js to lib/greet.js; lib/ is now a link to a folder outside.
    const outside = join(examples, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(project, 'lib'));
    const readme = readFileSync(join(project, 'README.md'), 'utf8');

    const apply = await agents(['plan', 'apply', id], home);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toBe(`error: path "lib/greet.js": resolves outside the project through symlink "lib" -> ${JSON.stringify(outside)}\n`);
    expect(apply.stderr).not.toMatch(/internal/i);
    expect(readdirSync(outside)).toEqual([]);
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe(readme);

    // A path named on the command line that leaves the project is bad input.
    const named = await agents(['plan', 'apply', id, '--path', '../outside/x'], home);
    expect(named.code).toBe(2);
    expect(named.stderr).toBe('error: path "../outside/x": escapes the project (.. outside the root)\n');

    const json = await agents(['plan', 'apply', id, '--json'], home);
    expect(json.code).toBe(1);
    expect(json.stderr.trim().split('\n')).toHaveLength(1);
    expect(json.stderr).not.toMatch(/internal/i);
  });
});
