import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { treeHash } from '../../engine/test-support/tree-hash';
import { OBJECTS_FOLDER, SANDBOXES_FOLDER } from '../../persistence/data-dir';
import { postgresSuiteName, testPostgres, usePostgresStores } from '../../persistence/postgres/test-support/database';
import { composePlanService } from '../open-app';
import { SettingsStore } from '../settings';

const step = (name: string, tool: string, args: string) => [`  - step: ${name}`, '    tools:', `      - tool: ${tool}`, `        args: ${args}`];

// Two machines of a team: each its own data directory (sandboxes, checkpoint folder), one database.
describe.skipIf(!testPostgres().url)(postgresSuiteName('checkpoints shared by a team'), () => {
  const pg = usePostgresStores();
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const machine = (name: string) => {
    const dataDir = path.join(root, name);
    mkdirSync(dataDir);
    const stores = pg.stores();
    return {
      dataDir,
      service: composePlanService({ stores, dataDir, settings: new SettingsStore(path.join(dataDir, 'settings.json')), env: {}, sleep: () => Promise.resolve(), sharedObjects: stores.objects }),
    };
  };

  it('a checkpoint taken on one machine is forked on another, which brings its contents from the database', async () => {
    root = mkdtempSync(path.join(tmpdir(), 'agents-team-checkpoints-'));
    const project = path.join(root, 'project');
    mkdirSync(project);
    writeFileSync(path.join(project, 'README.md'), '# Demo\n');
    const a = machine('a');
    const b = machine('b');
    const content = [
      'name: shared',
      `project: ${JSON.stringify(project)}`,
      'automationProfile: trusted',
      'definitionOfDone:',
      ...step('Write a', 'file.write', '{ path: a.txt, content: "a\\n" }'),
      ...step('Write b', 'file.write', '{ path: b.txt, content: "b\\n" }'),
      ...step('Write c', 'file.write', '{ path: c.txt, content: "c\\n" }'),
      '',
    ].join('\n');
    const plan = await a.service.createFromContent({ content }, root);
    const atStep3 = new Map<string, string>();
    a.service.events.subscribe((event) => {
      if (event.type === 'checkpoint_created' && event.data.step === 3) atStep3.set(event.planId, treeHash(path.join(a.dataDir, SANDBOXES_FOLDER, event.planId)));
    });
    await a.service.run(plan.id);
    const stored = await pg.stores().db.one<{ count: number }>('SELECT count(*)::int AS count FROM checkpoint_objects');
    expect(stored?.count).toBeGreaterThan(0);
    expect(existsSync(path.join(b.dataDir, OBJECTS_FOLDER))).toBe(false);

    const { plan: fork } = await b.service.fork(plan.id, { by: 'bob', atStep: 3 });
    expect(fork.sandboxRefs[0]!.startsWith(b.dataDir)).toBe(true);
    expect(treeHash(fork.sandboxRefs[0]!)).toBe(atStep3.get(plan.id));
    expect(readdirSync(path.join(b.dataDir, OBJECTS_FOLDER)).length).toBeGreaterThan(0);
    // The fork runs on the second machine to the same end as the first.
    await b.service.run(fork.id);
    expect(treeHash(fork.sandboxRefs[0]!)).toBe(treeHash((await a.service.get(plan.id)).sandboxRefs[0]!));
  });
});
