import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: `${__dirname}/..` });

async function importErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: file });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

/** The layering of docs/ARCHITECTURE.md, as lint enforces it on every file `npm test` lints. */
describe('layering rules', () => {
  it.each([
    ['renderer/src/x.ts', "import { ipcRenderer } from 'electron';"],
    ['renderer/src/x.ts', "import { readFileSync } from 'node:fs';"],
    ['renderer/src/x.ts', "import { PlanService } from '../../main/app/plan-service';"],
    ['shared/x.ts', "import { readFileSync } from 'node:fs';"],
    ['shared/x.ts', "import { join } from 'path';"],
    ['shared/x.ts', "import { app } from 'electron';"],
    ['shared/x.ts', "import { useState } from 'react';"],
    ['shared/x.ts', "import { openApp } from '../main/app/open-app';"],
    ['preload/x.ts', "import { z } from 'zod';"],
    ['preload/x.ts', "import { openApp } from '../main/app/open-app';"],
    ['main/engine/x.ts', "import { app } from 'electron';"],
    ['main/app/x.ts', "import { app } from 'electron';"],
  ])('%s may not: %s', async (file, source) => {
    expect(await importErrors(file, `${source}\nexport {};\n`)).toHaveLength(1);
  });

  it.each([
    ['renderer/src/x.ts', "import { contract } from '../../shared/contract';"],
    ['preload/x.ts', "import { contextBridge } from 'electron';\nimport { CHANNELS } from '../shared/contract';"],
    ['main/electron/x.ts', "import { app } from 'electron';"],
    ['main/engine/x.ts', "import { readFileSync } from 'node:fs';"],
  ])('%s may: %s', async (file, source) => {
    expect(await importErrors(file, `${source}\nexport {};\n`)).toEqual([]);
  });
});
