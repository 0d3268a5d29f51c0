import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type App, openApp } from './open-app';

const EXAMPLES = path.join(__dirname, '..', '..', 'examples');

describe('a run reads its plan once per phase', () => {
  let app: App | undefined;
  let dir: string | undefined;
  afterEach(() => {
    app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a run of the demo plan reads the plan once per phase, once for its checks, once per step for its checkpoint, and once for the result', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'agents-reads-'));
    app = await openApp({ dataDir: dir });
    const plan = await app.service.createFromFile(path.join(EXAMPLES, 'add-license.yaml'));
    // Reads by the run (the repository's own read-modify-write inside an update is not one).
    const get = vi.spyOn(app.service.lifecycle, 'getPlan');
    const done = await app.service.run(plan.id);
    expect(done.phase).toBe('apply');
    expect(get.mock.calls.filter(([id]) => id === plan.id)).toHaveLength(3 + 1 + 6);
  });
});
