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
    // Layers inside main/: engine <- persistence <- app <- host <- web | electron | cli.
    ['main/engine/x.ts', "import { openStores } from '../persistence/stores';"],
    ['main/engine/sandbox/x.ts', "import { SqliteEventLog } from '../../persistence/event-log';"],
    ['main/engine/x.ts', "import { PlanService } from '../app/plan-service';"],
    ['main/persistence/x.ts', "import { openApp } from '../app/open-app';"],
    ['main/app/x.ts', "import { createRouter } from '../host/router';"],
    ['main/host/x.ts', "import { registerIpc } from '../electron/ipc';"],
    ['main/host/x.ts', "import { startServer } from '../web/server';"],
    ['main/host/x.ts', "import { openStores } from '../persistence/stores';"],
    ['main/host/x.ts', "import { EventPublisher } from '../engine/event-stream';"],
    ['main/web/x.ts', "import { registerIpc } from '../electron/ipc';"],
    ['main/electron/x.ts', "import { resolveDataDir } from '../persistence/data-dir';"],
    ['main/cli/x.ts', "import { PlanExecutor } from '../engine/plan-executor';"],
    // Tests may take fixtures from below, never from above.
    ['main/engine/x.test.ts', "import { openStores } from '../persistence/stores';"],
    ['main/host/x.test.ts', "import { registerIpc } from '../electron/ipc';"],
  ])('%s may not: %s', async (file, source) => {
    expect((await importErrors(file, `${source}\nexport {};\n`)).length).toBeGreaterThan(0);
  });

  it.each([
    ['renderer/src/x.ts', "import { contract } from '../../shared/contract';"],
    ['preload/x.ts', "import { contextBridge } from 'electron';\nimport { CHANNELS } from '../shared/contract';"],
    ['main/electron/x.ts', "import { app } from 'electron';"],
    ['main/engine/x.ts', "import { readFileSync } from 'node:fs';"],
    ['main/engine/x.ts', "import { newId } from '../../shared/ids';"],
    ['main/persistence/x.ts', "import type { EventLog } from '../engine/event-stream';"],
    ['main/app/x.ts', "import { openStores } from '../persistence/stores';"],
    ['main/host/x.ts', "import type { PlanService } from '../app/plan-service';"],
    ['main/web/x.ts', "import { EventHub } from '../host/event-hub';"],
    ['main/electron/x.ts', "import { openApp } from '../app/open-app';"],
    ['main/cli/x.ts', "import { startServer } from '../web/server';"],
    ['main/host/x.test.ts', "import { InMemoryEventLog } from '../engine/test-support/in-memory-stores';"],
  ])('%s may: %s', async (file, source) => {
    expect(await importErrors(file, `${source}\nexport {};\n`)).toEqual([]);
  });
});
