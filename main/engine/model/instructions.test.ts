import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectInstructions, stepFolder } from './instructions';

const call = (args: Record<string, unknown>) => ({ tool: 'file.write', args });

describe("a step's folder and its AGENTS.md", () => {
  it('is the deepest folder all its proposed paths share; the root without any', () => {
    expect(stepFolder({ toolCalls: [] })).toBe('');
    expect(stepFolder({ toolCalls: [call({ path: 'web/ui/button.ts' }), call({ path: './web/ui/icons' })] })).toBe('web/ui');
    expect(stepFolder({ toolCalls: [call({ path: 'web/a.ts' }), call({ from: 'api/b.ts', to: 'api/c.ts' })] })).toBe('');
    // A path out of the project names no folder of it.
    expect(stepFolder({ toolCalls: [call({ path: '../elsewhere/x.ts' }), call({ path: 'docs/guide.md' })] })).toBe('docs');
  });

  it('is the closest AGENTS.md up to the root, never a file reached through a link out of the project', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'agents-md-unit-'));
    const root = path.join(base, 'project');
    const outside = path.join(base, 'outside');
    mkdirSync(path.join(root, 'a', 'b'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'AGENTS.md'), 'SECRET RULES');
    writeFileSync(path.join(root, 'AGENTS.md'), 'root rules');
    expect(await projectInstructions(root, 'a/b')).toEqual({ file: 'AGENTS.md', text: 'root rules', cut: 0 });
    writeFileSync(path.join(root, 'a', 'AGENTS.md'), 'a rules');
    expect(await projectInstructions(root, 'a/b')).toMatchObject({ file: 'a/AGENTS.md', text: 'a rules' });
    // A link to a file outside, and a folder that links outside, are passed over.
    symlinkSync(path.join(outside, 'AGENTS.md'), path.join(root, 'a', 'b', 'AGENTS.md'));
    symlinkSync(outside, path.join(root, 'linked'));
    expect(await projectInstructions(root, 'a/b')).toMatchObject({ file: 'a/AGENTS.md' });
    expect(await projectInstructions(root, 'linked')).toMatchObject({ file: 'AGENTS.md', text: 'root rules' });
  });
});
