import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../shared/contract';
import type { Plan } from '../../shared/domain';
import type { StreamEvent } from '../../shared/events';
import { planYaml, tempApp, type TempApp, waitFor } from '../app/test-support';
import { createRouter, type Router } from './router';

const ok = <T>(envelope: Envelope<unknown>): T => {
  if (!envelope.ok) throw new Error(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return envelope.data as T;
};

/** plans.readFile and plans.saveFile, the console editor's channels, through the router of a real app. */
describe('router: a sandbox file read and saved by the operator', () => {
  let t: TempApp;
  let router: Router;
  let events: StreamEvent[];

  beforeEach(async () => {
    t = await tempApp();
    router = createRouter(t.app.service, { dataDir: t.app.dataDir, baseDir: t.root, projectRoots: [t.root] });
    events = [];
    t.app.service.events.subscribe((event) => events.push(event));
  });
  afterEach(() => t.dispose());

  const failedPlan = async (): Promise<Plan> => {
    const { plan } = ok<{ plan: Plan }>(await router.handle('plans.create', { content: planYaml(t.project, { failAt: 2 }) }));
    expect((await t.app.service.run(plan.id)).processingState).toBe('errored');
    events.length = 0;
    return plan;
  };

  it('reads a file the plan has not changed, saves it as the operator\'s change with its event, and the retry and apply take it', async () => {
    const plan = await failedPlan();
    expect(ok(await router.handle('plans.readFile', { planId: plan.id, path: 'README.md' }))).toEqual({ path: 'README.md', content: '# Demo\n', binary: false });

    const saved = ok<{ entry: { path: string; origin?: string; operation: string; insertions: number } }>(
      await router.handle('plans.saveFile', { planId: plan.id, path: 'README.md', content: '# Demo\n## Missing\n' }),
    );
    expect(saved.entry).toMatchObject({ path: 'README.md', origin: 'operator', operation: 'modify', insertions: 1 });
    const recorded = events.filter((e) => e.type === 'change_recorded');
    expect(recorded.map((e) => (e.type === 'change_recorded' ? e.data.entry : null))).toEqual([saved.entry]);
    const review = ok<{ files: { path: string; editedByOperator: boolean }[] }>(await router.handle('plans.review', { planId: plan.id }));
    expect(review.files.find((f) => f.path === 'README.md')?.editedByOperator).toBe(true);
    expect(ok(await router.handle('plans.readFile', { planId: plan.id, path: 'README.md' }))).toMatchObject({ content: '# Demo\n## Missing\n' });

    // The same text again changes nothing.
    expect(ok(await router.handle('plans.saveFile', { planId: plan.id, path: 'README.md', content: '# Demo\n## Missing\n' }))).toEqual({ entry: null });

    await t.app.service.retry(plan.id);
    expect(ok<{ applied: string[]; conflicts: unknown[] }>(await router.handle('plans.apply', { planId: plan.id }))).toMatchObject({ conflicts: [], applied: ['README.md', 'out/1.txt'] });
    expect(readFileSync(path.join(t.project, 'README.md'), 'utf8')).toBe('# Demo\nx\n');
  });

  it('refuses paths that leave the sandbox or enter .git, files that are not there, and a plan with no sandbox', async () => {
    const plan = await failedPlan();
    for (const bad of ['../outside.txt', '/etc/passwd', '.git/config']) {
      const reply = await router.handle('plans.saveFile', { planId: plan.id, path: bad, content: 'x' });
      expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_request', field: 'path' } });
    }
    expect(await router.handle('plans.readFile', { planId: plan.id, path: 'nope.md' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', field: 'path', message: 'path: there is no file "nope.md" in the sandbox' },
    });
    const { plan: fresh } = ok<{ plan: Plan }>(await router.handle('plans.create', { content: planYaml(t.project) }));
    expect(await router.handle('plans.saveFile', { planId: fresh.id, path: 'a.txt', content: 'x' })).toMatchObject({ ok: false, error: { code: 'wrong_state' } });
  });

  it('refuses to save while the plan is processing', async () => {
    const { plan } = ok<{ plan: Plan }>(await router.handle('plans.create', { content: planYaml(t.project) }));
    ok(await router.handle('plans.run', { planId: plan.id, step: true }));
    await waitFor(async () => t.app.service.isRunning(plan.id) && (await t.app.service.get(plan.id)).sandboxRefs.length > 0);
    const reply = await router.handle('plans.saveFile', { planId: plan.id, path: 'README.md', content: 'x' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'wrong_state', message: expect.stringContaining('is Running') } });
  });
});
