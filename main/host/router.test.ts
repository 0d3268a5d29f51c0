import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHANNELS, type Channel, contract, type Envelope } from '../../shared/contract';
import type { Plan } from '../../shared/domain';
import { PlanError } from '../../shared/errors';
import type { PlanService } from '../app/plan-service';
import { createRouter, type Router } from './router';
import { traceIdOf } from '../app/telemetry/run-spans';
import { planYaml, tempApp, type TempApp, waitFor } from '../app/test-support';

/** A request each channel refuses, and the field the error names. */
const INVALID: Record<Channel, { request: unknown; field: string }> = {
  'app.info': { request: { extra: true }, field: '(root)' },
  'plans.list': { request: { state: 'sleeping' }, field: 'state' },
  'plans.get': { request: {}, field: 'planId' },
  'plans.create': { request: { path: 'a.yaml', content: 'name: x' }, field: '(root)' },
  'plans.createFromDialog': { request: { path: '/etc/passwd' }, field: '(root)' },
  'plans.checkProject': { request: { project: '' }, field: 'project' },
  'plans.decisions': { request: { planId: '' }, field: 'planId' },
  'plans.invocations': { request: { planId: 7 }, field: 'planId' },
  'plans.invocationsForDecision': { request: { planId: 'P' }, field: 'decisionId' },
  'plans.toolTallies': { request: { planId: '' }, field: 'planId' },
  'plans.events': { request: { planId: 'P', afterSeq: -1 }, field: 'afterSeq' },
  'plans.changes': { request: { planId: 'P', limit: 0 }, field: 'limit' },
  'plans.change': { request: { planId: 'P' }, field: 'entryId' },
  'plans.review': { request: { planId: '' }, field: 'planId' },
  'plans.reviewDiff': { request: { planId: 'P' }, field: 'path' },
  'plans.errors': { request: null, field: '(root)' },
  'plans.run': { request: { planId: 'P', step: 'yes' }, field: 'step' },
  'plans.step': { request: 'P', field: '(root)' },
  'plans.continue': { request: [], field: '(root)' },
  'plans.pause': { request: { planId: 'x'.repeat(65) }, field: 'planId' },
  'plans.breakpoint': { request: { planId: 'P', decisionId: 'D' }, field: 'enabled' },
  'plans.retry': { request: { planId: 'P', force: true }, field: '(root)' },
  'plans.reset': { request: { planId: null }, field: 'planId' },
  'plans.apply': { request: { planId: 'P', paths: [''] }, field: 'paths.0' },
  'plans.discard': { request: undefined, field: '(root)' },
  'plans.readFile': { request: { planId: 'P', path: '' }, field: 'path' },
  'plans.saveFile': { request: { planId: 'P', path: 'a.txt' }, field: 'content' },
  'plans.openSandbox': { request: { planId: 'P', path: '/etc' }, field: '(root)' },
  'plans.approvals': { request: { planId: 1 }, field: 'planId' },
  'plans.approve': { request: { planId: 'P', all: 'yes' }, field: 'all' },
  'plans.reject': { request: { planId: 'P', reason: '  ' }, field: 'reason' },
  'plans.skip': { request: { planId: 'P', step: 0 }, field: 'step' },
  'plans.setProfile': { request: { planId: 'P', profile: 'reckless' }, field: 'profile' },
  'plans.correct': { request: { planId: 'P', note: 5 }, field: 'note' },
  'plans.checks': { request: { planId: '' }, field: 'planId' },
  'plans.verify': { request: { planId: 'P', all: true }, field: '(root)' },
  'plans.checkpoints': { request: { planId: '' }, field: 'planId' },
  'plans.rewindPreview': { request: { planId: 'P', toStep: 0 }, field: 'toStep' },
  'plans.rewind': { request: { planId: 'P' }, field: 'toStep' },
  'plans.fork': { request: { planId: 'P', atStep: 1, profile: 'reckless' }, field: 'profile' },
  'plans.compare': { request: { planId: 'P' }, field: 'with' },
  'plans.rejectHunks': { request: { planId: 'P', path: 'a.txt', hunks: [0] }, field: 'hunks.0' },
  'plans.restoreHunks': { request: { planId: 'P', path: 'a.txt' }, field: 'hunks' },
  'team.status': { request: { workers: 1 }, field: '(root)' },
  'settings.get': { request: { apiKey: 'x' }, field: '(root)' },
  'settings.set': { request: { model: 'no-provider' }, field: 'model' },
  'settings.mcp': { request: { extra: 1 }, field: '(root)' },
  'settings.mcpAdd': { request: { name: 'files', commandLine: 1 }, field: 'commandLine' },
  'settings.mcpRemove': { request: { name: '' }, field: 'name' },
  'settings.acp': { request: { extra: 1 }, field: '(root)' },
  'settings.acpAdd': { request: { name: 'qwen-local', commandLine: 'qwen --acp', env: 'K=V' }, field: 'env' },
  'settings.acpRemove': { request: { name: '' }, field: 'name' },
};

type Ok<T = Record<string, unknown>> = { ok: true; data: T };
const expectOk = <T = Record<string, unknown>>(envelope: Envelope<unknown>): T => {
  if (!envelope.ok) throw new Error(`expected ok, got ${JSON.stringify(envelope.error)}`);
  return (envelope as Ok<T>).data;
};

describe('router', () => {
  let t: TempApp;
  let router: Router;
  let log: ReturnType<typeof vi.fn<(message: string, error?: unknown) => void>>;

  beforeEach(async () => {
    t = await tempApp();
    log = vi.fn<(message: string, error?: unknown) => void>();
    router = createRouter(t.app.service, { dataDir: t.app.dataDir, log, baseDir: t.root, projectRoots: [t.root] });
  });
  afterEach(() => t.dispose());

  const create = async (options: Parameters<typeof planYaml>[1] = {}): Promise<Plan> =>
    expectOk<{ plan: Plan }>(await router.handle('plans.create', { content: planYaml(t.project, options) })).plan;

  describe.each(CHANNELS)('%s', (channel) => {
    it('refuses an invalid request with invalid_request, a one-line message and the field', async () => {
      const reply = await router.handle(channel, INVALID[channel].request);
      expect(reply).toEqual({ ok: false, error: { code: 'invalid_request', message: expect.any(String), field: INVALID[channel].field } });
      if (!reply.ok) expect(reply.error.message).not.toContain('\n');
    });
  });

  it.each([undefined, null, 42, {}, '', 'plans', 'plans.nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'x'.repeat(10_000)])(
    'answers unknown_channel for channel #%#',
    async (channel) => {
      const reply = await router.handle(channel, {});
      expect(reply).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
      if (!reply.ok) expect(reply.error.message.length).toBeLessThan(120);
    },
  );

  it('app.info names the version, data directory and tools', async () => {
    const info = expectOk<{ version: string; dataDir: string; tools: { name: string }[] }>(await router.handle('app.info', {}));
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.dataDir).toBe(t.app.dataDir);
    expect(info.tools.map((tool) => tool.name)).toContain('file.write');
  });

  describe('plans.fork and plans.compare', () => {
    it('forks from a step with steps sent as a plan file\'s text, names each plan in the other\'s plans.get, and compares the two', async () => {
      const origin = await create({ steps: 3 });
      await t.app.service.run(origin.id);
      const content = ['name: other steps', `project: ${JSON.stringify(t.project)}`, 'definitionOfDone:', '  - step: Write another', '    tools:', '      - tool: file.write', '        args: { path: out/3.txt, content: "other" }', ''].join('\n');
      const reply = await router.handle('plans.fork', { planId: origin.id, atStep: 3, profile: 'supervised', content });
      const forked = contract['plans.fork'].response.parse(expectOk(reply));
      expect(forked.fork).toEqual({ forkId: forked.plan.id, from: origin.id, atStep: 3, sharedSteps: 2, sharedEntries: 2, changes: { profile: 'supervised', steps: 1 } });

      const got = expectOk<{ plan: Plan }>(await router.handle('plans.get', { planId: forked.plan.id })).plan;
      expect(got.forkedFrom).toMatchObject({ planId: origin.id, atStep: 3, by: 'console' });
      expect(expectOk<{ plan: Plan }>(await router.handle('plans.get', { planId: origin.id })).plan.forks).toEqual([{ planId: forked.plan.id, atStep: 3, by: 'console', at: got.forkedFrom?.at }]);

      await t.app.service.run(forked.plan.id);
      const compared = contract['plans.compare'].response.parse(expectOk(await router.handle('plans.compare', { planId: origin.id, with: forked.plan.id })));
      expect(compared.both.map((f) => [f.path, f.same])).toEqual([['out/1.txt', true], ['out/2.txt', true], ['out/3.txt', false]]);
      expect(compared.both[2].hunks?.[0].rows.map((r) => `${r.kind}:${r.text}`)).toEqual(['del:3', 'note:No newline at end of file', 'add:other', 'note:No newline at end of file']);
    });

    it('refuses a fork of a step out of range with invalid_request on atStep, and makes nothing', async () => {
      const origin = await create();
      await t.app.service.run(origin.id);
      const reply = await router.handle('plans.fork', { planId: origin.id, atStep: 3 });
      expect(reply).toEqual({ ok: false, error: { code: 'invalid_request', field: 'atStep', message: `atStep: 3 is out of range: plan ${origin.id} has steps 1 to 2` } });
      expect(await t.app.service.list()).toHaveLength(1);
    });
  });

  describe('plans.create', () => {
    it('creates a plan from YAML text and writes no file', async () => {
      const before = readdirSync(t.root).sort();
      const plan = await create({ name: 'from-text' });
      expect(plan).toMatchObject({ name: 'from-text', phase: 'strategize', processingState: 'queued', projectPath: t.project });
      expect(readdirSync(t.root).sort()).toEqual(before);
      expect((await t.app.service.get(plan.id)).name).toBe('from-text');
    });

    it('creates a plan from JSON text, resolving a relative project against the base folder', async () => {
      const content = JSON.stringify({ name: 'json', project: './project', definitionOfDone: ['Review'] });
      const plan = expectOk<{ plan: Plan }>(await router.handle('plans.create', { content, fileName: 'p.json' })).plan;
      expect(plan.projectPath).toBe(t.project);
    });

    it('takes the plan content only: a host path is refused alike whether the file exists or not, and no key is named', async () => {
      const file = path.join(t.root, 'plan.yaml');
      writeFileSync(file, planYaml(t.project));
      const replies = [];
      for (const request of [{ path: file }, { path: '/definitely/not/here.yaml' }, { path: file, content: 'name: x' }, { content: 'name: x\ndefinitionOfDone: [a]', secretKeyName: 1 }]) {
        replies.push(await router.handle('plans.create', request));
      }
      expect(replies.every((reply) => !reply.ok)).toBe(true);
      const messages = replies.map((reply) => (reply.ok ? '' : reply.error.message));
      expect(messages[0]).toBe(messages[1]);
      expect(messages.slice(2)).toEqual(['(root): has fields this call does not take', '(root): has fields this call does not take']);
      for (const message of messages) expect(message).not.toMatch(/path|secretKeyName|plan\.yaml|not here/);
      expect(await t.app.service.list()).toHaveLength(0);
    });

    it("answers with a plan file's MCP servers shown as the CLI shows them: no URL user, query, path token or --token value", async () => {
      const servers = 'mcp:\n  servers:\n    tracker: { url: "http://u:PASSWD@127.0.0.1:9/s/PATHTOKEN/mcp?k=QSECRET" }\n    local: { command: mcp-tracker, args: ["--token", "ARGSECRET"], env: { KEY: ENVSECRET } }\n';
      const content = `name: mcp\nproject: ${JSON.stringify(t.project)}\nagent: { model: ollama:llama3 }\ndefinitionOfDone: Done\n${servers}`;
      const created = expectOk<{ plan: Plan }>(await router.handle('plans.create', { content }));
      const replies = [created, expectOk(await router.handle('plans.get', { planId: created.plan.id })), expectOk(await router.handle('plans.list', {}))];
      for (const secret of ['PASSWD', 'PATHTOKEN', 'QSECRET', 'ARGSECRET', 'ENVSECRET']) expect(JSON.stringify(replies)).not.toContain(secret);
      expect(created.plan.mcp?.servers).toEqual({
        tracker: { url: 'http://(set)@127.0.0.1:9/s/(hidden)/mcp?k=(set)', headers: {} },
        local: { command: 'mcp-tracker', args: ['--token', '(set)'], env: { KEY: '(set)' } },
      });
      // The plan itself keeps them, to run them.
      expect((await t.app.service.get(created.plan.id)).mcp?.servers.local).toMatchObject({ args: ['--token', 'ARGSECRET'] });
    });

    it('creates a plan with a profile override', async () => {
      const plan = expectOk<{ plan: Plan }>(await router.handle('plans.create', { content: planYaml(t.project), profile: 'manual' })).plan;
      expect(plan.automationProfile.name).toBe('manual');
    });

    it.each([
      ['/', 'the file system root'],
      ['/etc', 'a system folder'],
      ['/usr/share', 'a folder inside a system folder'],
      [tmpdir(), 'a folder outside the project root'],
      ['/definitely/not/here', 'a missing folder outside the root (its existence is not told)'],
      [homedir(), 'the home folder'],
    ])('refuses %s (%s) as a project, before looking at it', async (project) => {
      const content = `name: x\nproject: ${JSON.stringify(project)}\ndefinitionOfDone: [a]`;
      for (const request of [{ content }, { content: 'name: x\ndefinitionOfDone: [a]', project }]) {
        const reply = await router.handle('plans.create', request);
        expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
        if (!reply.ok) expect(reply.error.message).toMatch(/must be a folder inside the project root/);
      }
      expect(await t.app.service.list()).toHaveLength(0);
    });

    it('by default, takes projects only from inside the user\'s home', async () => {
      const defaults = createRouter(t.app.service, { log, baseDir: t.root });
      const reply = await defaults.handle('plans.create', { content: planYaml(t.project) });
      expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_request', field: 'project', message: `project: must be a folder inside the project root (${realpathSync(homedir())}), not ${t.project}` } });
    });

    it.each([
      ['not YAML', { content: 'name: [unclosed', fileName: 'bad.yaml' }, 'content', /bad\.yaml is not valid YAML/],
      ['a list', { content: '- a\n- b' }, 'plan-file', /mapping/],
      ['no definitionOfDone', { content: 'name: x' }, 'definitionOfDone', /definitionOfDone/],
      ['an unknown key', { content: 'name: x\ndefinitionOfDone: [a]\nextra: 1' }, '(root)', /extra/],
      ['a missing project', { content: 'name: x\nproject: ./nowhere\ndefinitionOfDone: [a]' }, 'project', /not a directory/],
      ['a bad profile override', { content: 'name: x\ndefinitionOfDone: [a]', profile: 'reckless' }, 'profile', /profile/],
    ])('refuses %s with the field named', async (_name, request, field, message) => {
      const reply = await router.handle('plans.create', request);
      expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_request', field } });
      if (!reply.ok) expect(reply.error.message).toMatch(message);
      expect(await t.app.service.list()).toHaveLength(0);
    });

    it('checks every call against its tool before storing anything: one line per problem, each naming the field', async () => {
      const content = [
        'name: typo',
        `project: ${JSON.stringify(t.project)}`,
        'definitionOfDone:',
        '  - step: Write',
        '    tools:',
        '      - tool: file.write',
        '        args: { pth: a.txt, content: x }',
        '  - step: Twiddle',
        '    tools:',
        '      - tool: file.frobnicate',
      ].join('\n');
      const reply = await router.handle('plans.create', { content });
      expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_request', field: 'step 1, call 1 (file.write)' } });
      if (!reply.ok) {
        expect(reply.error.message.split('\n')).toEqual([
          'step 1, call 1 (file.write): unknown field "pth"; missing field "path"',
          `step 2, call 1: unknown tool "file.frobnicate"; the tools are ${t.app.service.registry.discover().map((tool) => tool.name).join(', ')}`,
        ]);
      }
      expect(await t.app.service.list()).toHaveLength(0);
    });

    it("finds a plan's relative project under a project root when the base folder has none", async () => {
      const elsewhere = createRouter(t.app.service, { log, baseDir: path.join(t.root, 'data'), projectRoots: [t.root] });
      const plan = expectOk<{ plan: Plan }>(await elsewhere.handle('plans.create', { content: 'name: x\nproject: ./project\ndefinitionOfDone: [a]' })).plan;
      expect(plan.projectPath).toBe(path.join(realpathSync(t.root), 'project'));
    });
  });

  describe('plans.checkProject', () => {
    const check = async (request: unknown) => {
      const { relativeTo, ...rest } = expectOk<{ project: string | null; path: string | null; problem: string | null; relativeTo: string[] }>(await router.handle('plans.checkProject', request));
      // Relative folders resolve in the host's working folder, then the roots: the form says so.
      expect(relativeTo).toEqual([t.root]);
      return rest;
    };

    it('finds a folder as typed, relative to the project root or absolute', async () => {
      const found = path.join(realpathSync(t.root), 'project');
      expect(await check({ project: 'project' })).toEqual({ project: 'project', path: found, problem: null });
      expect(await check({ project: t.project })).toEqual({ project: t.project, path: t.project, problem: null });
    });

    it('answers a folder that is not there, or outside the roots, with the one-line problem naming the path it tried', async () => {
      const missing = await check({ project: 'projekt' });
      expect(missing).toMatchObject({ project: 'projekt', path: path.join(realpathSync(t.root), 'projekt') });
      expect(missing.problem).toMatch(new RegExp(`^not a directory: .*${path.join(realpathSync(t.root), 'projekt')}`));
      expect(await check({ project: '/usr/share' })).toEqual({
        project: '/usr/share',
        path: '/usr/share',
        problem: `must be a folder inside the project root (${realpathSync(t.root)}), not /usr/share`,
      });
    });

    it("takes the project a plan's text names, and none from text that names none or is not YAML", async () => {
      expect(await check({ content: 'name: x\nproject: ./project\ndefinitionOfDone: [a]' })).toEqual({
        project: './project',
        path: path.join(realpathSync(t.root), 'project'),
        problem: null,
      });
      expect(await check({ content: 'name: x\ndefinitionOfDone: [a]' })).toEqual({ project: null, path: null, problem: null });
      expect(await check({ content: 'name: [unclosed' })).toEqual({ project: null, path: null, problem: null });
      expect(await check({})).toEqual({ project: null, path: null, problem: null });
    });

    it('resolves a plan picked from a folder the host knows (the demo copy, examples/) beside its file, and says so', async () => {
      const picked = path.join(t.root, 'picked');
      mkdirSync(path.join(picked, 'demo-project'), { recursive: true });
      const content = 'name: x\nproject: ./demo-project\ndefinitionOfDone: [a]\n';
      writeFileSync(path.join(picked, 'x.yaml'), content);
      const knowing = createRouter(t.app.service, { log, baseDir: path.join(t.root, 'data'), projectRoots: [t.root], planFolders: [path.join(t.root, 'nowhere'), picked] });
      const answer = expectOk<{ path: string; problem: string | null; relativeTo: string[] }>(await knowing.handle('plans.checkProject', { content }));
      expect(answer).toMatchObject({ path: path.join(picked, 'demo-project'), problem: null, relativeTo: [picked, t.root] });
      // As typed beside the same text, a relative folder resolves beside the file too.
      expect(expectOk<{ path: string }>(await knowing.handle('plans.checkProject', { project: 'demo-project', content })).path).toBe(path.join(picked, 'demo-project'));
      // Text found nowhere resolves in the working folder, then the roots.
      expect(expectOk<{ relativeTo: string[] }>(await knowing.handle('plans.checkProject', { content: `${content}# edited\n` })).relativeTo).toEqual([path.join(t.root, 'data'), t.root]);
      const created = expectOk<{ plan: { projectPath: string } }>(await knowing.handle('plans.create', { content, fileName: 'x.yaml' }));
      expect(created.plan.projectPath).toBe(path.join(picked, 'demo-project'));
    });

    it('creates nothing', async () => {
      await check({ project: 'project' });
      expect(await t.app.service.list()).toHaveLength(0);
    });
  });

  it('pages the decision tree in display order, and reads the newest events of a log', async () => {
    const plan = await create();
    expectOk(await router.handle('plans.run', { planId: plan.id }));
    await t.app.service.idle();
    const all = expectOk<{ decisions: { id: string; parentId: string | null; order: number }[]; total: number }>(
      await router.handle('plans.decisions', { planId: plan.id }),
    );
    expect(all.total).toBe(all.decisions.length);
    // Depth first: every decision after its parent, siblings in order.
    const seen = new Set<string>();
    for (const d of all.decisions) {
      if (d.parentId !== null) expect(seen.has(d.parentId)).toBe(true);
      seen.add(d.id);
    }
    const pages = [0, 2, 4].map(async (offset) => expectOk<{ decisions: { id: string }[]; total: number }>(await router.handle('plans.decisions', { planId: plan.id, offset, limit: 2 })));
    const paged = (await Promise.all(pages)).flatMap((p) => p.decisions.map((d) => d.id));
    expect(paged).toEqual(all.decisions.slice(0, 6).map((d) => d.id));

    const { lastSeq } = expectOk<{ lastSeq: number }>(await router.handle('plans.events', { planId: plan.id, limit: 1 }));
    const newest = expectOk<{ events: { seq: number }[]; lastSeq: number }>(await router.handle('plans.events', { planId: plan.id, limit: 3, newest: true }));
    expect(newest).toMatchObject({ lastSeq });
    expect(newest.events.map((e) => e.seq)).toEqual([lastSeq - 2, lastSeq - 1, lastSeq]);
    const short = expectOk<{ events: { seq: number }[] }>(await router.handle('plans.events', { planId: plan.id, afterSeq: lastSeq - 1, limit: 5, newest: true }));
    expect(short.events.map((e) => e.seq)).toEqual([lastSeq]);
  });

  it("plans.get names the trace of the plan's run (none before it ran), with the viewer's address once traceUrl is set", async () => {
    const plan = await create();
    expect(expectOk<{ trace: unknown }>(await router.handle('plans.get', { planId: plan.id })).trace).toBeNull();
    expectOk(await router.handle('plans.run', { planId: plan.id }));
    await t.app.service.idle();
    expect(expectOk<{ trace: unknown }>(await router.handle('plans.get', { planId: plan.id })).trace).toEqual({ traceId: traceIdOf(plan.id, 1), url: null });
    t.app.settings.patch({ traceUrl: 'http://localhost:16686/trace/{traceId}' });
    expect(expectOk<{ trace: unknown }>(await router.handle('plans.get', { planId: plan.id })).trace).toEqual({ traceId: traceIdOf(plan.id, 1), url: `http://localhost:16686/trace/${traceIdOf(plan.id, 1)}` });
  });

  it('reads a plan back on every read channel; an unknown plan id is invalid_request on planId', async () => {
    const plan = await create();
    expectOk(await router.handle('plans.run', { planId: plan.id }));
    await t.app.service.idle();
    const list = expectOk<{ plans: { id: string; progress: { done: number; total: number } }[] }>(await router.handle('plans.list', {}));
    expect(list.plans.map((p) => [p.id, p.progress])).toEqual([[plan.id, { done: 2, total: 2 }]]);
    expect(expectOk<{ plans: unknown[] }>(await router.handle('plans.list', { state: 'errored' })).plans).toEqual([]);
    expect(expectOk<{ plan: Plan }>(await router.handle('plans.get', { planId: plan.id })).plan).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(expectOk<{ decisions: unknown[] }>(await router.handle('plans.decisions', { planId: plan.id })).decisions.length).toBeGreaterThanOrEqual(3);
    expect(expectOk<{ invocations: unknown[] }>(await router.handle('plans.invocations', { planId: plan.id })).invocations).toHaveLength(2);
    const ran = expectOk<{ invocations: { decisionId: string; tool: string }[] }>(await router.handle('plans.invocations', { planId: plan.id })).invocations;
    const first = expectOk<{ invocations: unknown[] }>(await router.handle('plans.invocationsForDecision', { planId: plan.id, decisionId: ran[0].decisionId }));
    expect(first.invocations).toEqual(ran.filter((i) => i.decisionId === ran[0].decisionId));
    const tallies = expectOk<{ tallies: { decisionId: string; ran: number; failed: number }[]; throughSeq: number }>(await router.handle('plans.toolTallies', { planId: plan.id }));
    expect(tallies.tallies.reduce((n, t) => n + t.ran, 0)).toBe(2);
    expect(tallies.tallies.every((t) => t.failed === 0)).toBe(true);
    expect(tallies.throughSeq).toBe(expectOk<{ lastSeq: number }>(await router.handle('plans.events', { planId: plan.id, limit: 1, newest: true })).lastSeq);
    const events = expectOk<{ events: { seq: number }[]; lastSeq: number }>(await router.handle('plans.events', { planId: plan.id, afterSeq: 1, limit: 3 }));
    expect(events.events.map((e) => e.seq)).toEqual([2, 3, 4]);
    expect(events.lastSeq).toBeGreaterThan(4);
    const changes = expectOk<{ total: number; entries: { id: string; path: string }[] }>(await router.handle('plans.changes', { planId: plan.id }));
    expect(changes.total).toBe(2);
    // What the diff view draws: rows with line numbers, and no file texts.
    const change = expectOk<{ entry: Record<string, unknown>; hunks: unknown[] }>(await router.handle('plans.change', { planId: plan.id, entryId: changes.entries[0].id }));
    expect(change.entry).not.toHaveProperty('afterText');
    expect(change.hunks).toEqual([{ header: '@@ -0,0 +1,1 @@', rows: [{ kind: 'add', text: '1', oldLine: null, newLine: 1 }, { kind: 'note', text: 'No newline at end of file', oldLine: null, newLine: null }] }]);
    expect(expectOk<{ errors: unknown[] }>(await router.handle('plans.errors', { planId: plan.id })).errors).toEqual([]);
    expect(await router.handle('plans.change', { planId: plan.id, entryId: 'nope' })).toMatchObject({ ok: false, error: { code: 'invalid_request', field: 'entryId' } });
    for (const channel of ['plans.get', 'plans.decisions', 'plans.events', 'plans.toolTallies', 'plans.run', 'plans.reset', 'plans.discard'] as const) {
      expect(await router.handle(channel, { planId: 'NOPLAN' })).toMatchObject({ ok: false, error: { code: 'invalid_request', field: 'planId' } });
    }
    const applied = expectOk<{ applied: string[] }>(await router.handle('plans.apply', { planId: plan.id }));
    expect(applied.applied.sort()).toEqual(['out/1.txt', 'out/2.txt']);
    expect(existsSync(path.join(t.project, 'out/1.txt'))).toBe(true);
  });

  it('plans.apply through a symbolic link out of the project is a policy refusal of one line, not internal', async () => {
    const plan = await create();
    expectOk(await router.handle('plans.run', { planId: plan.id }));
    await t.app.service.idle();
    const outside = path.join(t.root, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, path.join(t.project, 'out'));
    const reply = await router.handle('plans.apply', { planId: plan.id });
    expect(reply).toEqual({ ok: false, error: { code: 'policy', message: `path "out/1.txt": resolves outside the project through symlink "out" -> ${JSON.stringify(outside)}` } });
    expect(readdirSync(outside)).toEqual([]);
    expect(log).not.toHaveBeenCalled();
    expect(await router.handle('plans.apply', { planId: plan.id, paths: ['../x'] })).toMatchObject({ ok: false, error: { code: 'invalid_request', message: 'path "../x": escapes the project (.. outside the root)' } });
  });

  it('plans.run answers at once, while the run goes on in the background', async () => {
    const plan = await create({ steps: 3 });
    const reply = expectOk<{ plan: Plan }>(await router.handle('plans.run', { planId: plan.id }));
    expect(t.app.service.isRunning(plan.id)).toBe(true);
    expect(['queued', 'processing']).toContain(reply.plan.processingState);
    expect(await router.handle('plans.run', { planId: plan.id })).toMatchObject({ ok: false, error: { code: 'wrong_state' } });
    await t.app.service.idle();
    expect(await t.app.service.get(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
  });

  it('steps, pauses and continues a run in step mode', async () => {
    const plan = await create({ steps: 3 });
    expect(await router.handle('plans.continue', { planId: plan.id })).toMatchObject({ ok: false, error: { code: 'wrong_state' } });
    // Step on a plan that is ready to run starts it in step mode.
    expectOk(await router.handle('plans.step', { planId: plan.id }));
    const done = async () => (await t.app.service.decisions(plan.id)).filter((d) => d.type === 'strategy_choice' && d.status === 'done').length;
    await waitFor(async () => (await t.app.service.get(plan.id)).processingState === 'paused');
    expect(await done()).toBe(0);
    expectOk(await router.handle('plans.step', { planId: plan.id }));
    await waitFor(async () => await done() === 1 && (await t.app.service.get(plan.id)).processingState === 'paused');
    expectOk(await router.handle('plans.continue', { planId: plan.id }));
    await t.app.service.idle();
    expect(await done()).toBe(3);
    expect(await t.app.service.get(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
  });

  it('pauses a running plan before its next decision, and continues it', async () => {
    const plan = await create({ steps: 3 });
    expectOk(await router.handle('plans.run', { planId: plan.id }));
    expectOk(await router.handle('plans.pause', { planId: plan.id }));
    await waitFor(async () => (await t.app.service.get(plan.id)).processingState === 'paused');
    expectOk(await router.handle('plans.continue', { planId: plan.id }));
    await t.app.service.idle();
    expect(await t.app.service.get(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
  });

  it('keeps breakpoints set while a plan is not running, and stops a retry at one', async () => {
    const plan = await create({ steps: 3, failAt: 2 });
    expectOk(await router.handle('plans.run', { planId: plan.id }));
    await t.app.service.idle();
    expect((await t.app.service.get(plan.id)).processingState).toBe('errored');
    const failed = (await t.app.service.decisions(plan.id)).find((d) => d.status === 'failed' && d.type === 'strategy_choice')!;
    const third = (await t.app.service.decisions(plan.id)).find((d) => d.description === 'Step 3')!;
    expect(expectOk(await router.handle('plans.breakpoint', { planId: plan.id, decisionId: third.id, enabled: true }))).toEqual({ breakpoints: [third.id] });
    expect(expectOk(await router.handle('plans.breakpoint', { planId: plan.id, decisionId: 'other', enabled: true }))).toEqual({ breakpoints: [third.id, 'other'] });
    expect(expectOk(await router.handle('plans.breakpoint', { planId: plan.id, decisionId: 'other', enabled: false }))).toEqual({ breakpoints: [third.id] });
    // Make the failed step succeed, then retry: it stops before step 3.
    writeFileSync(path.join((await t.app.service.get(plan.id)).sandboxRefs[0], 'README.md'), '# Demo\n\n## Missing\n');
    expectOk(await router.handle('plans.retry', { planId: plan.id }));
    await waitFor(async () => (await t.app.service.get(plan.id)).processingState === 'paused');
    expect((await t.app.service.decisions(plan.id)).find((d) => d.id === failed.id)?.status).toBe('done');
    expect((await t.app.service.decisions(plan.id)).find((d) => d.id === third.id)?.status).not.toBe('done');
    // While running, the controller's set is changed too.
    expect(expectOk(await router.handle('plans.breakpoint', { planId: plan.id, decisionId: 'later', enabled: true }))).toEqual({ breakpoints: [third.id, 'later'] });
    expectOk(await router.handle('plans.continue', { planId: plan.id }));
    await t.app.service.idle();
    expect(await t.app.service.get(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
  });

  it('maps wrong-state operations to their PlanError code', async () => {
    const plan = await create();
    expect(await router.handle('plans.retry', { planId: plan.id })).toMatchObject({ ok: false, error: { code: 'wrong_state' } });
    expect(await router.handle('plans.apply', { planId: plan.id })).toMatchObject({ ok: false, error: { code: expect.any(String), message: expect.stringMatching(/apply|phase/) } });
    expect(await router.handle('plans.pause', { planId: plan.id })).toEqual({ ok: false, error: { code: 'wrong_state', message: `plan ${plan.id} is Ready to run; pause needs a plan that is Running` } });
    const discarded = expectOk<{ plan: Plan }>(await router.handle('plans.discard', { planId: plan.id }));
    expect(discarded.plan.processingState).toBe('cancelled');
    expect(await router.handle('plans.discard', { planId: plan.id })).toMatchObject({ ok: false, error: { code: 'wrong_state' } });
  });
});

describe('router errors', () => {
  const plan = { id: 'P' } as Plan;

  it('turns an unexpected exception into internal with a generic message, and logs the details', async () => {
    const log = vi.fn();
    const service = {
      get: () => {
        throw new Error('database is locked\n    at secret (/home/me/file.ts:1:1)');
      },
    } as unknown as PlanService;
    const reply = await createRouter(service, { log }).handle('plans.get', { planId: 'P' });
    expect(reply).toEqual({ ok: false, error: { code: 'internal', message: 'internal error; see the host log' } });
    expect(JSON.stringify(reply)).not.toMatch(/secret|locked|at /);
    expect(log).toHaveBeenCalledWith('internal error', expect.any(Error));
  });

  it('refuses a response that does not match the contract, as internal', async () => {
    const log = vi.fn();
    const service = { get: () => ({ id: 'P', name: 42 }) } as unknown as PlanService;
    const reply = await createRouter(service, { log }).handle('plans.get', { planId: 'P' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(log).toHaveBeenCalledOnce();
  });

  it('passes a PlanError code through', async () => {
    const service = {
      get: () => plan,
      control: () => {
        throw new PlanError('plan P is not running in this process', 'not_running');
      },
    } as unknown as PlanService;
    expect(await createRouter(service, { log: vi.fn() }).handle('plans.continue', { planId: 'P' })).toEqual({
      ok: false,
      error: { code: 'not_running', message: 'plan P is not running in this process' },
    });
  });

  it('logs a background run that rejects, after having answered', async () => {
    const log = vi.fn();
    let fail: (error: Error) => void = () => undefined;
    const service = {
      get: () => plan,
      // A run that has started (it calls onStarted), then fails later.
      run: (_planId: string, options: { onStarted?: () => void }) =>
        new Promise((_resolve, reject) => {
          fail = reject;
          options.onStarted?.();
        }),
    } as unknown as PlanService;
    const router = createRouter(service, { log });
    const reply = router.handle('plans.run', { planId: 'P' });
    // The reply does not wait for the run; the plan is validated against the contract and refused here only because the stub is partial.
    await reply;
    fail(new Error('executor crashed'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toHaveBeenCalledWith('the run of plan P failed', expect.any(Error));
  });
});

describe('plans.openSandbox', () => {
  it("is refused where there is no file manager, and opens the plan's own sandbox, never a folder the client names, where there is", async () => {
    const temp = await tempApp();
    try {
      const file = path.join(temp.root, 'sandbox-plan.yaml');
      writeFileSync(file, planYaml(temp.project, { name: 'with-sandbox' }));
      const plan = await temp.app.service.createFromFile(file);
      const browser = createRouter(temp.app.service, { log: () => undefined });
      expect(await browser.handle('plans.openSandbox', { planId: plan.id })).toMatchObject({ ok: false, error: { code: 'unsupported' } });

      const opened: string[] = [];
      const desktop = createRouter(temp.app.service, { log: () => undefined, openFolder: async (folder) => void opened.push(folder) });
      expect(await desktop.handle('plans.openSandbox', { planId: plan.id })).toMatchObject({ ok: false, error: { code: 'wrong_state', message: `plan ${plan.id} has no sandbox` } });
      await temp.app.service.run(plan.id);
      expect(await desktop.handle('plans.openSandbox', { planId: plan.id, folder: '/etc' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
      expect(await desktop.handle('plans.openSandbox', { planId: plan.id })).toEqual({ ok: true, data: {} });
      expect(opened).toEqual([(await temp.app.service.get(plan.id)).sandboxRefs[0]]);
    } finally {
      await temp.dispose();
    }
  });
});

describe('plans.createFromDialog', () => {
  it('is refused where there is no file dialog, and creates the chosen file where there is', async () => {
    const temp = await tempApp();
    try {
      const file = path.join(temp.root, 'dialog-plan.yaml');
      writeFileSync(file, planYaml(temp.project, { name: 'from-dialog' }));
      const browser = createRouter(temp.app.service, { log: () => undefined });
      expect(await browser.handle('plans.createFromDialog', {})).toMatchObject({ ok: false, error: { code: 'unsupported' } });
      expect(await browser.handle('app.info', {})).toMatchObject({ ok: true, data: { nativeFileDialog: false } });

      const picks: (string | null)[] = [null, file];
      const desktop = createRouter(temp.app.service, { log: () => undefined, pickPlanFile: async () => picks.shift() ?? null });
      expect(await desktop.handle('app.info', {})).toMatchObject({ ok: true, data: { nativeFileDialog: true } });
      expect(await desktop.handle('plans.createFromDialog', {})).toEqual({ ok: true, data: { plan: null } });
      expect(await desktop.handle('plans.createFromDialog', {})).toMatchObject({ ok: true, data: { plan: { name: 'from-dialog' } } });
    } finally {
      await temp.dispose();
    }
  });
});
