// A denied command hidden behind `true;` is refused by the `agents` command as a separate process,
// on real SQLite and a real sandbox: the plan errors with category invariant, and plan tree names
// the simple command and the rule.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../shared/domain';
import { agents, agentsJson, createPlan } from './cli-harness';

describe('agents CLI: project command rules', () => {
  it('refuses "true; rm -rf docs" under denyCommands "rm -rf *", and plan tree names the command and the rule', async () => {
    const base = mkdtempSync(join(tmpdir(), 'agents-cli-rules-'));
    const home = join(base, 'home');
    const project = join(base, 'project');
    mkdirSync(join(project, 'docs'), { recursive: true });
    mkdirSync(join(project, '.agents'));
    writeFileSync(join(project, 'docs', 'guide.md'), '# Guide\n');
    writeFileSync(join(project, '.agents', 'invariants.yaml'), 'denyCommands: ["rm -rf *"]\n');
    const file = join(base, 'plan.yaml');
    writeFileSync(
      file,
      `name: sneaky-delete\nproject: ${JSON.stringify(project)}\ndefinitionOfDone:\n  - step: Clean up\n    tools:\n      - { tool: shell.run, args: { command: "true; rm -rf docs" } }\n`,
    );
    const id = await createPlan(file, home);

    const run = await agents(['plan', 'run', id], home);
    expect(run.code).toBe(1);
    const plan = PlanSchema.parse(await agentsJson(['plan', 'show', id], home));
    expect(plan).toMatchObject({ processingState: 'errored', errorDetails: { category: 'invariant' } });
    expect(plan.errorMessage).toContain('"rm -rf docs" is denied by the project invariant denyCommands "rm -rf *"');
    expect(existsSync(join(plan.sandboxRefs[0], 'docs', 'guide.md'))).toBe(true);

    const tree = await agents(['plan', 'tree', id], home);
    expect(tree.code).toBe(0);
    expect(tree.stdout).toMatch(/✗ Clean up\s+\(shell\.run\)\n\s+refused: "rm -rf docs" \(denyCommands "rm -rf \*"\)/);

    const json = await agentsJson<{ invocations: { tool: string; ok: boolean; commandRule: unknown }[] }>(['plan', 'tree', id], home);
    expect(json.invocations).toEqual([
      expect.objectContaining({ tool: 'shell.run', ok: false, commandRule: { command: 'rm -rf docs', rule: 'denyCommands "rm -rf *"' } }),
    ]);
  }, 90_000);
});
