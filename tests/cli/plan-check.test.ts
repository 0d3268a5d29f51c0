import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { agents, agentsJson, createPlan, sandboxWorkspace } from './cli-harness';

const TOOLS = 'the tools are file.delete, file.edit, file.list, file.read, file.rename, file.search, file.write, shell.run';

/** A scripted plan over the demo project whose second step makes `call`. */
function planWith(call: string, extra = ''): string {
  return [
    'name: checked',
    'project: ./demo-project',
    extra,
    'definitionOfDone:',
    '  - step: Read the README',
    '    tools:',
    '      - tool: file.read',
    '        args: { path: README.md }',
    '  - step: The step under test',
    '    tools:',
    `      - ${call}`,
    '',
  ].join('\n');
}

describe('agents plan create checks the plan as execute would run it', () => {
  const { home, examples } = sandboxWorkspace();
  const write = (text: string) => {
    const file = join(examples, `plan-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, text);
    return file;
  };
  const lines = (stderr: string) => stderr.trim().split('\n');

  it.each([
    ['an unknown tool', planWith('tool: file.frobnicate'), [`error: step 2, call 1: unknown tool "file.frobnicate"; ${TOOLS}`]],
    ['an unknown argument', planWith('tool: file.write\n        args: { path: a.txt, content: x, mode: 644 }'), ['error: step 2, call 1 (file.write): unknown field "mode"']],
    ['a misspelt argument', planWith('tool: file.write\n        args: { pth: a.txt, content: x }'), ['error: step 2, call 1 (file.write): unknown field "pth"; missing field "path"']],
    ['a missing argument', planWith('tool: file.edit\n        args: { path: README.md, find: "# Demo" }'), ['error: step 2, call 1 (file.edit): missing field "replace"']],
    ['an argument of the wrong kind', planWith('tool: shell.run\n        args: { command: ls, timeoutMs: -5 }'), ['error: step 2, call 1 (shell.run): field "timeoutMs": must be positive']],
    ['a misspelt args', planWith('tool: file.read\n        arg: { path: README.md }'), ['error: definitionOfDone.1.tools.0: Unrecognized key: "arg"']],
    [
      'an unknown profile',
      planWith('tool: file.read\n        args: { path: README.md }', 'automationProfile: reckless'),
      ['error: automationProfile: "reckless" is not a profile; the profiles are manual, restricted, supervised, trusted, full-auto'],
    ],
  ])('refuses %s: exit 2, one line naming it, nothing stored', async (_case, text, expected) => {
    const result = await agents(['plan', 'create', write(text)], home);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual(expected);
    expect((await agentsJson<{ plans: unknown[] }>(['plan', 'list'], home)).plans).toEqual([]);
  });

  it('refuses a file that is not YAML in one line, ending with where the parser stopped', async () => {
    const result = await agents(['plan', 'create', write('name: bad\nverify:\n  - run: node -e "a ? 0 : 1"\n')], home);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual(['error: plan-file: not valid YAML or JSON: Nested mappings are not allowed in compact mappings at line 3, column 10']);
  });

  it('refuses a folder in one line that says to name a plan file in it (exit 2)', async () => {
    const result = await agents(['plan', 'create', examples], home);
    expect({ code: result.code, stderr: lines(result.stderr) }).toEqual({ code: 2, stderr: [`error: plan-file: ${examples} is a folder; name a plan file (YAML or JSON) in it`] });
    expect((await agentsJson<{ plans: unknown[] }>(['plan', 'list'], home)).plans).toEqual([]);
  });

  it('refuses a project that is not there, naming the path it tried', async () => {
    const result = await agents(['plan', 'create', write(planWith('tool: file.read\n        args: { path: README.md }').replace('./demo-project', './no-such-project'))], home);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual([`error: project: not a directory: ${join(examples, 'no-such-project')}`]);
    expect((await agentsJson<{ plans: unknown[] }>(['plan', 'list'], home)).plans).toEqual([]);
  });

  it('refuses a --profile that is no profile', async () => {
    const result = await agents(['plan', 'create', join(examples, 'add-license.yaml'), '--profile', 'reckless'], home);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual(['error: profile: "reckless" is not a profile; the profiles are manual, restricted, supervised, trusted, full-auto']);
  });

  it('says every problem at once, one line each', async () => {
    const text = [
      'name: many',
      'project: ./nowhere',
      'automationProfile: reckless',
      'definitionOfDone:',
      '  - step: One',
      '    tools:',
      '      - tool: file.write',
      '        args: { pth: a.txt, content: x }',
      '      - tool: file.read',
      '        args: { path: a.txt }',
      '  - Two',
      '  - step: Three',
      '    tools:',
      '      - tool: file.frobnicate',
      '',
    ].join('\n');
    const result = await agents(['plan', 'create', write(text)], home);
    expect(result.code).toBe(2);
    expect(lines(result.stderr)).toEqual([
      'error: automationProfile: "reckless" is not a profile; the profiles are manual, restricted, supervised, trusted, full-auto',
      'error: step 1, call 1 (file.write): unknown field "pth"; missing field "path"',
      `error: step 3, call 1: unknown tool "file.frobnicate"; ${TOOLS}`,
      `error: project: not a directory: ${join(examples, 'nowhere')}`,
    ]);
    expect((await agentsJson<{ plans: unknown[] }>(['plan', 'list'], home)).plans).toEqual([]);
  });

  it('stores every example plan of the repository', async () => {
    for (const example of ['add-license.yaml', 'broken-docs.yaml', 'flaky-network.yaml']) await createPlan(join(examples, example), home);
    expect((await agentsJson<{ plans: unknown[] }>(['plan', 'list'], home)).plans).toHaveLength(3);
  });
});

describe('edit-step and replan --file take the same check', () => {
  const { home, examples } = sandboxWorkspace();
  let planId: string;
  const file = (name: string, text: string) => {
    const path = join(examples, name);
    writeFileSync(path, text);
    return path;
  };
  const steps = async () => {
    const tree = await agentsJson<{ root: { children: { type: string; description: string; status: string; toolCalls: { tool: string }[] }[] } }>(['plan', 'tree', planId], home);
    return tree.root.children.filter((d) => d.type === 'strategy_choice').map((d) => `${d.description} (${d.status}): ${d.toolCalls.map((c) => c.tool).join(', ')}`);
  };

  beforeAll(async () => {
    planId = await createPlan(join(examples, 'broken-docs.yaml'), home);
    const run = await agents(['plan', 'run', planId], home);
    expect(run.code).toBe(1);
  }, 60_000);

  it('edit-step refuses a step whose call has an unknown field, naming the step by its number, and changes nothing', async () => {
    const before = await steps();
    const bad = file('bad-step.yaml', 'step: Link the notes\ntools:\n  - tool: file.edit\n    args: { path: README.md, fnd: "# Demo", replace: "# Demo" }\n');
    const result = await agents(['plan', 'edit-step', planId, '--step', '2', '--file', bad], home);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual(['error: step 2, call 1 (file.edit): unknown field "fnd"; missing field "find"']);
    expect(await steps()).toEqual(before);
    expect((await agentsJson<{ processingState: string }>(['plan', 'show', planId], home)).processingState).toBe('errored');
  });

  it('edit-step refuses an unknown tool', async () => {
    const bad = file('unknown-tool.yaml', 'step: Link the notes\ntools:\n  - tool: file.append\n    args: { path: README.md }\n');
    const result = await agents(['plan', 'edit-step', planId, '--step', '2', '--file', bad], home);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([`error: step 2, call 1: unknown tool "file.append"; ${TOOLS}`]);
  });

  it('replan --file refuses a plan file with a bad call, and changes nothing', async () => {
    const before = await steps();
    const bad = file('bad-replan.yaml', planWith('tool: file.write\n        args: { path: a.txt }'));
    const result = await agents(['plan', 'replan', planId, '--file', bad], home);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual(['error: step 2, call 1 (file.write): missing field "content"']);
    expect(await steps()).toEqual(before);
  });

  it('a good step file is taken', async () => {
    const good = file('good-step.yaml', 'step: Write the section\ntools:\n  - tool: file.edit\n    args: { path: README.md, find: "# Demo", replace: "# Demo\\n\\n## Configuration" }\n');
    const result = await agents(['plan', 'edit-step', planId, '--step', '2', '--file', good], home);
    expect(result.code, result.stderr).toBe(0);
    expect((await steps())[1]).toBe('Write the section (pending): file.edit');
  });
});
