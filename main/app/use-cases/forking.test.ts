import { SANDBOXES_FOLDER } from '../../persistence/data-dir';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stepsInOrder } from '../../../shared/decision-tree';
import type { StreamEvent } from '../../../shared/events';
import { treeHash } from '../../engine/test-support/tree-hash';
import { sandboxExecutorFactory } from '../executor-factory';
import { planAuthoring } from './authoring';
import { planCheckpoints } from './checkpoints';
import { planForking } from './forking';
import { planReading } from './reading';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

const step = (name: string, tool: string, args: string) => [`  - step: ${name}`, '    tools:', `      - tool: ${tool}`, `        args: ${args}`];
/** File tools, a confined shell command (an append, a mode, a link), file tools again. */
const STEPS = [
  step('Write a', 'file.write', '{ path: a.txt, content: "a\\n" }'),
  step('Shell', 'shell.run', '{ command: "echo run >> log.txt && chmod 600 a.txt && ln -s a.txt link" }'),
  step('Write c', 'file.write', '{ path: c.txt, content: "c\\n" }'),
].flat();

describe('fork and compare', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  const setup = async () => {
    h = useCaseHarness();
    const content = (name: string, steps: string[], project = h.project) => ['name: ' + name, `project: ${JSON.stringify(project)}`, 'automationProfile: trusted', 'definitionOfDone:', ...steps, ''].join('\n');
    const authoring = planAuthoring(h.ctx);
    const plan = await authoring.createFromContent({ content: content('origin', STEPS) }, h.root);
    const running = planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass);
    const checkpoints = planCheckpoints(h.ctx, h.runs);
    const forking = planForking(h.ctx, h.runs);
    const reading = planReading(h.ctx);
    const atCheckpoint = new Map<string, string>();
    const events: StreamEvent[] = [];
    h.ctx.events.subscribe((event) => {
      events.push(event);
      if (event.type === 'checkpoint_created') atCheckpoint.set(`${event.planId}:${event.data.step}`, treeHash(path.join(h.ctx.options.dataDir, SANDBOXES_FOLDER, event.planId)));
    });
    return { plan, running, checkpoints, forking, reading, authoring, content, atCheckpoint, events };
  };

  it('makes the fork from the checkpoint byte for byte, shares the steps before it and their changes, and runs only the rest', async () => {
    const { plan, running, checkpoints, forking, reading, atCheckpoint, events } = await setup();
    await running.run(plan.id);
    // The project moves on: the fork is made from the checkpoint, not from the project as it is now.
    writeFileSync(path.join(h.project, 'later.txt'), 'later\n');
    const { plan: fork, fork: result } = await forking.fork(plan.id, { by: 'alice', atStep: 3, profile: 'supervised' });

    expect(treeHash(fork.sandboxRefs[0])).toBe(atCheckpoint.get(`${plan.id}:3`));
    expect(fork).toMatchObject({ phase: 'execute', processingState: 'queued', automationProfile: { name: 'supervised' }, forkedFrom: { planId: plan.id, atStep: 3, by: 'alice' } });
    expect((await h.ctx.get(plan.id)).forks).toEqual([{ planId: fork.id, atStep: 3, by: 'alice', at: fork.forkedFrom?.at }]);
    expect(result).toEqual({ forkId: fork.id, from: plan.id, atStep: 3, sharedSteps: 2, sharedEntries: 3, changes: { profile: 'supervised' } });
    // Both plans are told, each in its own events.
    expect(events.filter((e) => e.type === 'plan_forked').map((e) => [e.planId, e.data])).toEqual([
      [fork.id, { ...result, by: 'alice' }],
      [plan.id, { ...result, by: 'alice' }],
    ]);
    const steps = stepsInOrder(await h.ctx.lifecycle.listDecisions(fork.id));
    expect(steps.map((d) => [d.description, d.status])).toEqual([['Write a', 'done'], ['Shell', 'done'], ['Write c', 'pending']]);
    // The shared changes are the origin's, under the fork's steps.
    // Step 1's a.txt; step 2's log.txt and the mode it gave a.txt (chmod 600, a change of its own).
    const shared = (await reading.changes(fork.id)).entries;
    expect(shared.map((e) => [e.path, e.operation])).toEqual([['a.txt', 'create'], ['a.txt', 'modify'], ['log.txt', 'create']]);
    expect(shared.map((e) => [e.path, e.afterHash])).toEqual((await reading.changes(plan.id)).entries.slice(0, 3).map((e) => [e.path, e.afterHash]));
    expect(new Set(shared.map((e) => e.decisionId))).toEqual(new Set([steps[0].id, steps[1].id]));
    // The checkpoints before and at the step are the fork's too.
    expect((await checkpoints.checkpoints(fork.id)).map((c) => [c.step, c.decisionId])).toEqual(steps.map((d, i) => [i + 1, d.id]));

    const ran = await running.run(fork.id);
    expect(ran).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(readFileSync(path.join(fork.sandboxRefs[0], 'log.txt'), 'utf8')).toBe('run\n');
    expect(events.filter((e) => e.planId === fork.id && e.type === 'runtime_execute_step').map((e) => (e.data as { index: number }).index)).toEqual([3]);
    expect(treeHash(fork.sandboxRefs[0])).toBe(treeHash((await h.ctx.get(plan.id)).sandboxRefs[0]));

    // The fork rewinds to a shared checkpoint as to its own, and is forked again from one.
    const again = await forking.fork(fork.id, { by: 'bob', atStep: 2 });
    expect(treeHash(again.plan.sandboxRefs[0])).toBe(atCheckpoint.get(`${plan.id}:2`));
    expect(again.plan.forkedFrom).toMatchObject({ planId: fork.id, atStep: 2, by: 'bob' });
    await checkpoints.rewind(fork.id, { by: 'alice', toStep: 2 });
    expect(treeHash(fork.sandboxRefs[0])).toBe(atCheckpoint.get(`${plan.id}:2`));
  });

  it('carries over none of what a rewind made history, and replaces the later steps from a plan file', async () => {
    const { plan, running, checkpoints, forking, reading, content } = await setup();
    await running.run(plan.id);
    await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    await running.run(plan.id);
    const rewound = (await reading.changes(plan.id)).entries.filter((e) => e.rewound).length;
    expect(rewound).toBeGreaterThan(0);

    const other = content('other', step('Write d', 'file.write', '{ path: d.txt, content: "d\\n" }'));
    const { plan: fork, fork: result } = await forking.fork(plan.id, { by: 'alice', atStep: 3, content: other }, h.root);
    expect(result.changes).toEqual({ steps: 1 });
    expect((await reading.changes(fork.id)).entries.some((e) => e.rewound)).toBe(false);
    expect((await reading.changes(fork.id)).entries.map((e) => e.path)).toEqual((await reading.changes(plan.id)).entries.filter((e) => !e.rewound).slice(0, result.sharedEntries).map((e) => e.path));
    // The copied checkpoints count the fork's entries, so the next one sees only what its steps wrote.
    expect((await checkpoints.checkpoints(fork.id)).at(-1)?.entries).toBe(result.sharedEntries);
    expect(stepsInOrder(await h.ctx.lifecycle.listDecisions(fork.id)).map((d) => [d.description, d.status])).toEqual([['Write a', 'done'], ['Shell', 'done'], ['Write d', 'pending']]);

    await running.run(fork.id);
    const compared = await forking.compare(plan.id, fork.id);
    expect([compared.onlyA, compared.onlyB]).toEqual([['c.txt'], ['d.txt']]);
    expect(compared.both.map((f) => [f.path, f.same])).toEqual([['a.txt', true], ['log.txt', true]]);
    expect(compared.a).toMatchObject({ stepsDone: 3, toolCalls: 5 });
    expect(compared.b).toMatchObject({ stepsDone: 3, toolCalls: 3 });
  });

  it('refuses bad input and makes nothing', async () => {
    const { plan, running, forking, authoring, content } = await setup();
    await expect(forking.fork(plan.id, { by: 'alice', atStep: 1 })).rejects.toThrow(`plan ${plan.id} has no checkpoint yet; one is recorded as each step starts`);
    await running.run(plan.id);
    const count = (await h.ctx.lifecycle.listPlans()).length;
    await expect(forking.fork(plan.id, { by: 'alice', atStep: 4 })).rejects.toThrow(`atStep: 4 is out of range: plan ${plan.id} has steps 1 to 3`);
    await expect(forking.fork(plan.id, { by: 'alice', atStep: 2, model: 'openai-compatible:x' })).rejects.toThrow('model: plan');
    await expect(forking.fork(plan.id, { by: 'alice', atStep: 2, content: 'name: x\ndefinitionOfDone: []\n' }, h.root)).rejects.toThrow();
    expect(await h.ctx.lifecycle.listPlans()).toHaveLength(count);
    expect((await h.ctx.get(plan.id)).forks).toBeUndefined();

    const other = path.join(h.root, 'other');
    mkdirSync(other);
    writeFileSync(path.join(other, 'x.txt'), 'x\n');
    const elsewhere = await authoring.createFromContent({ content: content('elsewhere', STEPS.slice(0, 4), other) }, h.root);
    await expect(forking.compare(plan.id, elsewhere.id)).rejects.toThrow(`plans: plan ${plan.id} is over ${h.project} and plan ${elsewhere.id} over ${other}; compare needs two plans over the same project`);
    await expect(forking.compare(plan.id, plan.id)).rejects.toThrow('given twice');
  });
});
