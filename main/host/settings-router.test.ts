import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../shared/contract';
import { createRouter, type Router } from './router';
import { type TempApp, tempApp } from '../app/test-support';

const data = (envelope: Envelope<unknown>) => {
  if (!envelope.ok) throw new Error(JSON.stringify(envelope.error));
  return envelope.data as Record<string, unknown>;
};

describe('settings over the contract', () => {
  let t: TempApp;
  let router: Router;
  beforeEach(async () => {
    t = await tempApp();
    router = createRouter(t.app.service, { log: () => undefined });
  });
  afterEach(() => t.dispose());

  it('stores an API key but only ever answers whether one is set', async () => {
    const saved = data(await router.handle('settings.set', { model: 'ollama:llama3.2', apiKey: 'sk-never-shown' }));
    expect(saved).toMatchObject({ model: 'ollama:llama3.2', apiKeySet: true });
    expect(JSON.stringify(saved)).not.toContain('sk-never-shown');
    expect(JSON.stringify(data(await router.handle('settings.get', {})))).not.toContain('sk-never-shown');
    // On disk it is there, for the engine, in a file only the user can read.
    expect(readFileSync(join(t.app.dataDir, 'settings.json'), 'utf8')).toContain('sk-never-shown');
    const cleared = data(await router.handle('settings.set', { apiKey: '' }));
    expect(cleared.apiKeySet).toBe(false);
  });

  it('refuses a model that is not provider:model, naming the field', async () => {
    const envelope = await router.handle('settings.set', { model: 'gpt' });
    expect(envelope).toMatchObject({ ok: false, error: { field: 'model' } });
  });

  it('refuses correct on a plan that is not an agent plan', async () => {
    const plan = await t.app.service.createFromContent({ content: 'name: scripted\ndefinitionOfDone: "- one"\n' }, t.root);
    const envelope = await router.handle('plans.correct', { planId: plan.id, note: 'try harder' });
    expect(envelope).toMatchObject({ ok: false, error: { message: expect.stringContaining('not an agent plan') } });
  });
});

describe('team settings over the contract', () => {
  let t: TempApp;
  let router: Router;
  beforeEach(async () => {
    t = await tempApp();
    router = createRouter(t.app.service, { log: () => undefined });
  });
  afterEach(() => t.dispose());

  it('stores the team database and the operator name, and shows the database with its password masked', async () => {
    const saved = data(await router.handle('settings.set', { database: 'postgresql://agents:s3cret@db.example:5432/agents', operator: ' ada ' }));
    expect(saved).toMatchObject({ database: 'postgresql://agents:***@db.example:5432/agents', operator: 'ada' });
    expect(JSON.stringify(data(await router.handle('settings.get', {})))).not.toContain('s3cret');
    expect(t.app.settings.read()).toMatchObject({ database: 'postgresql://agents:s3cret@db.example:5432/agents', operator: 'ada' });
    // Leaving the team and clearing the name.
    expect(data(await router.handle('settings.set', { database: '', operator: '' }))).toMatchObject({ database: null, operator: null });
  });

  it('refuses a team database that is not a PostgreSQL URL, naming the field, and stores nothing', async () => {
    const envelope = await router.handle('settings.set', { database: 'mysql://root@db/agents' });
    expect(envelope).toMatchObject({ ok: false, error: { code: 'invalid_request', field: 'database', message: expect.stringContaining('not a PostgreSQL URL') } });
    expect(t.app.settings.read().database).toBeUndefined();
  });
});
