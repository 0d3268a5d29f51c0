import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { planYaml, tempApp, type TempApp } from '../app/test-support';
import { examplesDir } from './demo-command';
import { seedDemoPlans } from './demo-plans';

describe('the demo plans of a first start (agents serve, npm start)', () => {
  let t: TempApp;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await t.dispose();
  });

  it('copies examples/ into the data folder and creates each plan from the copy; an agent plan waits for a model', async () => {
    vi.stubEnv('AGENTS_MODEL', '');
    t = await tempApp();
    const demo = path.join(t.root, 'data', 'demo');
    const lines: string[] = [];
    await seedDemoPlans(t.app, demo, (line) => lines.push(line));
    const plans = readdirSync(examplesDir()).filter((f) => /\.ya?ml$/.test(f)).sort();
    expect(lines).toHaveLength(plans.length);
    expect(lines).toContain('demo plan agent-changelog.yaml: needs a model: open Settings in the console (or set AGENTS_MODEL), then create it');
    expect(lines.find((l) => l.startsWith('demo plan add-license.yaml'))).toMatch(/^demo plan add-license\.yaml: [0-9A-Z]{26}$/);
    expect(lines.filter((l) => l.includes('not created'))).toEqual([]);
    const created = await t.app.service.list();
    expect(created.map((p) => p.projectPath)).toContain(path.join(demo, 'demo-project'));

    // A second start finds the copy and the plans: nothing again.
    lines.length = 0;
    await seedDemoPlans(t.app, demo, (line) => lines.push(line));
    expect(lines).toEqual([]);
    expect(await t.app.service.list()).toHaveLength(created.length);
  }, 60_000);

  it('leaves a data folder that has plans alone', async () => {
    t = await tempApp();
    await t.app.service.createFromContent({ content: planYaml(t.project), fileName: 'mine.yaml' }, t.root);
    const demo = path.join(t.root, 'data', 'demo');
    const lines: string[] = [];
    await seedDemoPlans(t.app, demo, (line) => lines.push(line));
    expect(lines).toEqual([]);
    expect(existsSync(demo)).toBe(false);
  });
});
