import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { circlesUnder } from './support/import-graph';

const root = join(__dirname, '..');

/** Vocabularies live in leaf modules (docs/ARCHITECTURE.md, "Modules"): no two modules import each other, even for types. */
describe('import circles', () => {
  it('there are none among the production modules of main/, shared/, preload/ and renderer/', () => {
    expect(circlesUnder(root, ['main', 'shared', 'preload', 'renderer/src'])).toEqual([]);
  });

  const planted = mkdtempSync(join(tmpdir(), 'import-circles-'));
  afterAll(() => rmSync(planted, { recursive: true, force: true }));

  it('are found, type-only imports and index files included, and named by their modules', () => {
    mkdirSync(join(planted, 'src', 'tools'), { recursive: true });
    writeFileSync(join(planted, 'src', 'runner.ts'), "import type { Tool } from './tools';\nexport class Runner { tools: Tool[] = []; }\n");
    writeFileSync(join(planted, 'src', 'tools', 'index.ts'), "import { Runner } from '../runner';\nexport interface Tool { runner: Runner }\n");
    writeFileSync(join(planted, 'src', 'leaf.ts'), "export const leaf = 1;\n");
    writeFileSync(join(planted, 'src', 'user.ts'), "import { leaf } from './leaf';\nexport const user = leaf;\n");
    writeFileSync(join(planted, 'src', 'user.test.ts'), "import { user } from './user';\nimport '../src/user.test';\nexport { user };\n");
    expect(circlesUnder(planted, ['src'])).toEqual([['src/runner.ts', 'src/tools/index.ts']]);
  });
});
