import { SANDBOXES_FOLDER } from '../../persistence/data-dir';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../shared/events';
import { stepsInOrder } from '../../../shared/decision-tree';
import { treeHash, treeListing } from '../../engine/test-support/tree-hash';
import { sandboxExecutorFactory } from '../executor-factory';
import { waitFor } from '../test-support';
import { planActions } from './actions';
import { planApplying } from './applying';
import { planAuthoring } from './authoring';
import { planCheckpoints } from './checkpoints';
import { planFixing } from './fixing';
import { planReading } from './reading';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

/** Three steps: file tools, a confined shell command (deletes, creates, a mode, a link), file tools again. */
const STEPS = [
  '  - step: Write the notes',
  '    tools:',
  '      - tool: file.write',
  '        args: { path: NOTES.md, content: "notes\\n" }',
  '      - tool: file.edit',
  '        args: { path: README.md, find: "# Demo", replace: "# Demo, edited" }',
  '  - step: Reshape with a shell command',
  '    tools:',
  '      - tool: shell.run',
  '        args: { command: "rm lib/a.js && mkdir -p gen && echo made > gen/out.txt && chmod 600 NOTES.md && ln -s NOTES.md notes-link && chmod +x tool.sh" }',
  '  - step: Rename and delete',
  '    tools:',
  '      - tool: file.rename',
  '        args: { from: README.md, to: README.txt }',
  '      - tool: file.delete',
  '        args: { path: gen/out.txt }',
];

describe('checkpoints and rewind', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  const setup = async (steps: string[] = STEPS) => {
    h = useCaseHarness();
    mkdirSync(path.join(h.project, 'lib'));
    writeFileSync(path.join(h.project, 'lib', 'a.js'), 'module.exports = 1;\n');
    writeFileSync(path.join(h.project, 'tool.sh'), '#!/bin/sh\necho tool\n');
    chmodSync(path.join(h.project, 'tool.sh'), 0o644);
    symlinkSync('README.md', path.join(h.project, 'readme-link'));
    const content = ['name: checkpoints', `project: ${JSON.stringify(h.project)}`, 'automationProfile: trusted', 'definitionOfDone:', ...steps, ''].join('\n');
    const plan = await planAuthoring(h.ctx).createFromContent({ content }, h.root);
    const running = planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass);
    const checkpoints = planCheckpoints(h.ctx, h.runs);
    const reading = planReading(h.ctx);
    // The sandbox's tree as each checkpoint is announced: the event is delivered before the step's first call.
    const atCheckpoint = new Map<number, string>();
    const events: StreamEvent[] = [];
    h.ctx.events.subscribe((event) => {
      if (event.planId !== plan.id) return;
      events.push(event);
      if (event.type === 'checkpoint_created') atCheckpoint.set(event.data.step, treeHash(path.join(h.ctx.options.dataDir, SANDBOXES_FOLDER, plan.id)));
    });
    return { plan, running, checkpoints, reading, atCheckpoint, events, sandbox: async () => (await h.ctx.get(plan.id)).sandboxRefs[0] };
  };

  it('puts the sandbox back byte for byte after file tools and shell.run, makes the later changes history, and runs the steps again', async () => {
    const { plan, running, checkpoints, reading, atCheckpoint, events, sandbox } = await setup();
    const ran = await running.run(plan.id);
    expect(ran).toMatchObject({ phase: 'apply', processingState: 'queued' });
    const finished = treeHash(await sandbox());
    expect((await checkpoints.checkpoints(plan.id)).map((c) => [c.step, c.description])).toEqual([
      [1, 'Write the notes'],
      [2, 'Reshape with a shell command'],
      [3, 'Rename and delete'],
    ]);
    expect([...atCheckpoint.keys()]).toEqual([1, 2, 3]);

    // Before step 3: the shell command's deletion, folder, mode and link are all part of it.
    const third = await checkpoints.rewind(plan.id, { by: 'alice', toStep: 3 });
    expect(treeHash(await sandbox())).toBe(atCheckpoint.get(3));
    expect(third.rewind.files.map((f) => `${f.operation} ${f.path}`)).toEqual(['create README.md', 'delete README.txt', 'create gen/out.txt']);

    // Before step 2: back across the shell command.
    const before = (await reading.changes(plan.id)).entries.length;
    const second = await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    expect(treeHash(await sandbox())).toBe(atCheckpoint.get(2));
    expect(treeListing(await sandbox())).toContain('F tool.sh 644 ' + treeListing(h.project).find((l) => l.startsWith('F tool.sh'))?.split(' ')[3]);
    expect(second.plan).toMatchObject({ phase: 'execute', processingState: 'queued', lastRewind: { toStep: 2, fromStep: 3, by: 'alice', recovered: false } });
    expect(stepsInOrder(await h.ctx.lifecycle.listDecisions(plan.id)).map((d) => d.status)).toEqual(['done', 'pending', 'pending']);
    // The later entries are kept, marked rewound, and left out of the review (what apply writes).
    const listed = (await reading.changes(plan.id)).entries;
    expect(listed).toHaveLength(before);
    expect(listed.filter((e) => !e.rewound).map((e) => e.path).sort()).toEqual(['NOTES.md', 'README.md']);
    expect((await reading.review(plan.id)).files.map((f) => f.path).sort()).toEqual(['NOTES.md', 'README.md']);
    // The rewind is a decision under the step it went back to, and an event; the later checkpoint is gone.
    const decision = (await h.ctx.lifecycle.listDecisions(plan.id)).find((d) => d.id === second.rewind.decisionId);
    expect(decision).toMatchObject({ type: 'error_recovery', parentId: stepsInOrder(await h.ctx.lifecycle.listDecisions(plan.id))[1].id });
    expect(decision?.description).toMatch(/^Rewound to before step 2 \(from step 3\): \d+ files put back, \d+ changes rewound$/);
    expect(decision?.rationale).toMatch(/^rewind by alice at /);
    expect(events.filter((e) => e.type === 'plan_rewound').map((e) => e.data)).toMatchObject([{ toStep: 3 }, { toStep: 2, fromStep: 3, by: 'alice', recovered: false }]);
    expect((await checkpoints.checkpoints(plan.id)).map((c) => c.step)).toEqual([1, 2]);

    // Run again: steps 2 and 3 run, step 1 does not, and the sandbox ends as the first run left it.
    const again = await running.run(plan.id);
    expect(again).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(treeHash(await sandbox())).toBe(finished);
    expect(events.filter((e) => e.type === 'runtime_execute_step').map((e) => e.data.index)).toEqual([1, 2, 3, 2, 3]);

    // Back to before step 1: the sandbox is the project's copy again.
    await checkpoints.rewind(plan.id, { by: 'alice', toStep: 1 });
    expect(treeHash(await sandbox())).toBe(treeHash(h.project));
    expect((await reading.review(plan.id)).files).toEqual([]);
  });

  it('a rewind that cannot be finished after a crash is kept and said on the plan, never thrown out of the open', async () => {
    const { plan, running, checkpoints } = await setup();
    await running.run(plan.id);
    const journal = { planId: plan.id, checkpointId: 'gone', toStep: 2, fromStep: null, decisionId: 'rewind-1', by: 'alice', ops: [], files: [], createdAt: new Date().toISOString() };
    await h.ctx.stores.checkpoints.beginRewind(journal);
    expect(await checkpoints.finishInterruptedRewinds()).toEqual([]);
    expect((await h.ctx.get(plan.id)).errorMessage).toBe(`the rewind to before step 2 could not be finished: the checkpoint of step 2 of plan ${plan.id} is gone`);
    expect(await h.ctx.stores.checkpoints.pendingRewinds()).toEqual([journal]);
    // The lease was let go: the plan is not held by this process.
    expect(await h.ctx.stores.leases.get(plan.id)).toBeFalsy();
  });

  it('a rewind that fails part way keeps its journal, refuses every other action but discard until it is finished, and is finished by a rewind again', async () => {
    const { plan, running, checkpoints, atCheckpoint, sandbox } = await setup();
    await running.run(plan.id);
    const applying = planApplying(h.ctx, h.runs, planReading(h.ctx), h.verifying);
    const actions = planActions(h.ctx, h.runs);
    // The stored contents go: the rewind removes what it must, then cannot write the first file back.
    const objects = path.join(h.root, 'data', 'objects');
    const kept = path.join(h.root, 'objects-kept');
    renameSync(objects, kept);
    const failed = checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    await expect(failed).rejects.toMatchObject({ code: 'rewind_failed' });
    await expect(failed).rejects.toThrow(
      new RegExp(`^plan ${plan.id}: the rewind to before step 2 could not be finished: ${objects}/\\S+ is missing; agents plan rewind ${plan.id} --to-step 2 to try again, or agents plan discard ${plan.id}$`),
    );
    expect((await h.ctx.stores.checkpoints.pendingRewinds()).map((j) => j.planId)).toEqual([plan.id]);
    expect(await h.ctx.get(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued', errorDetails: { rewindFailed: true, toStep: 2 } });
    const reason = `plan ${plan.id} has an unfinished rewind; finish it by rewinding to before step 2 again, or discard the plan`;
    expect((await actions.actions(plan.id)).filter((a) => a.allowed).map((a) => a.id)).toEqual(['discard', 'rewind', 'compare', 'show_errors']);
    await expect(applying.apply(plan.id)).rejects.toThrow(reason);
    await expect(h.verifying.verify(plan.id)).rejects.toThrow(reason);
    expect((await h.ctx.lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'error_recovery')).toEqual([]);

    // With the contents back, a rewind again finishes it; the half-done restore is not taken for the operator's edits.
    renameSync(kept, objects);
    const { rewind } = await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    expect(rewind.operatorEdits).toEqual([]);
    expect(treeHash(await sandbox())).toBe(atCheckpoint.get(2));
    expect(await h.ctx.stores.checkpoints.pendingRewinds()).toEqual([]);
    expect(await h.ctx.get(plan.id)).toMatchObject({ phase: 'execute', processingState: 'queued', errorMessage: null });
    expect((await h.ctx.get(plan.id)).errorDetails.rewindFailed).toBeUndefined();
    expect((await actions.actions(plan.id)).find((a) => a.id === 'run')).toMatchObject({ allowed: true });
  });

  it('discarding a plan whose rewind failed drops the rewind: nothing retries it', async () => {
    const { plan, running, checkpoints } = await setup();
    await running.run(plan.id);
    rmSync(path.join(h.root, 'data', 'objects'), { recursive: true });
    await expect(checkpoints.rewind(plan.id, { by: 'alice', toStep: 1 })).rejects.toMatchObject({ code: 'rewind_failed' });
    const discarded = await planApplying(h.ctx, h.runs, planReading(h.ctx), h.verifying).discard(plan.id);
    expect(discarded).toMatchObject({ processingState: 'cancelled', errorMessage: null });
    expect(discarded.errorDetails.rewindFailed).toBeUndefined();
    expect(await h.ctx.stores.checkpoints.pendingRewinds()).toEqual([]);
    expect(await checkpoints.finishInterruptedRewinds()).toEqual([]);
  });

  it('holds the plan from its start: a run or another rewind asked for while a rewind works is refused, and the rewind ends as asked', async () => {
    const { plan, running, checkpoints, atCheckpoint, sandbox } = await setup();
    await running.run(plan.id);
    await checkpoints.rewind(plan.id, { by: 'alice', toStep: 3 });
    // Ready to run now: only the rewind under way stands in the way of a run.
    const rewinding = checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    await expect(running.run(plan.id)).rejects.toThrow(/is (already )?running/);
    await expect(checkpoints.rewind(plan.id, { by: 'bob', toStep: 1 })).rejects.toThrow(/is (already running|Running)/);
    expect((await rewinding).plan).toMatchObject({ phase: 'execute', processingState: 'queued', lastRewind: { toStep: 2, by: 'alice' } });
    expect(treeHash(await sandbox())).toBe(atCheckpoint.get(2));
    expect(h.runs.isRunning(plan.id)).toBe(false);
    expect(await h.ctx.stores.leases.get(plan.id)).toBeFalsy();
  });

  it('a discarded plan’s checkpoints are dropped', async () => {
    const { plan, running, checkpoints } = await setup();
    await running.run(plan.id);
    expect(await checkpoints.checkpoints(plan.id)).toHaveLength(3);
    await planApplying(h.ctx, h.runs, planReading(h.ctx), h.verifying).discard(plan.id);
    expect(await checkpoints.checkpoints(plan.id)).toEqual([]);
  });

  it('removes the contents only a discarded plan’s checkpoints named, and keeps those another plan’s name', async () => {
    const { plan, running, checkpoints } = await setup();
    h.ctx.env.AGENTS_TEST_OBJECT_GRACE_MS = '0';
    await running.run(plan.id);
    // Another plan over the same project: its first checkpoint names the project's files too.
    const content = ['name: other', `project: ${JSON.stringify(h.project)}`, 'automationProfile: trusted', 'definitionOfDone:', '  - step: Write a', '    tools:', '      - tool: file.write', '        args: { path: a.txt, content: "a" }', '  - step: Write b', '    tools:', '      - tool: file.write', '        args: { path: b.txt, content: "b" }', ''].join('\n');
    const other = await planAuthoring(h.ctx).createFromContent({ content }, h.root);
    await running.run(other.id);
    const stored = () => new Set(readdirSync(h.ctx.objects.dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => path.basename(d.parentPath) + d.name));
    const before = stored();
    const notes = h.ctx.objects.pathOf(await h.ctx.objects.put(Buffer.from('notes\n')));
    expect(existsSync(notes)).toBe(true);

    await planApplying(h.ctx, h.runs, planReading(h.ctx), h.verifying).discard(plan.id);
    const after = stored();
    expect(after).toEqual(await h.ctx.stores.checkpoints.referencedObjects());
    expect(after.size).toBeLessThan(before.size);
    // NOTES.md's content was the discarded plan's alone; the project's README is the other plan's too.
    expect(existsSync(notes)).toBe(false);
    expect(existsSync(h.ctx.objects.pathOf(createHash('sha256').update(readFileSync(path.join(h.project, 'README.md'))).digest('hex')))).toBe(true);
    // The other plan rewinds to its first step byte for byte, from the contents kept.
    await checkpoints.rewind(other.id, { by: 'alice', toStep: 1 });
    expect(treeHash((await h.ctx.get(other.id)).sandboxRefs[0])).toBe(treeHash(h.project));
  });

  it('never applies a rewound change: a step rewound and then skipped leaves nothing of its own in the project', async () => {
    const two = ['  - step: Write a', '    tools:', '      - tool: file.write', '        args: { path: a.txt, content: "a" }', '  - step: Write b', '    tools:', '      - tool: file.write', '        args: { path: b.txt, content: "b" }'];
    const { plan, running, checkpoints } = await setup(two);
    h.ctx.env.AGENTS_TEST_OBJECT_GRACE_MS = '0';
    await running.run(plan.id);
    await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    await planFixing(h.ctx, h.runs, running.run, h.verifying, checkpoints).skip(plan.id, { by: 'alice', step: 2 });
    expect(await running.run(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(await planApplying(h.ctx, h.runs, planReading(h.ctx), h.verifying).apply(plan.id)).toMatchObject({ applied: ['a.txt'], complete: true });
    expect(readFileSync(path.join(h.project, 'a.txt'), 'utf8')).toBe('a');
    expect(existsSync(path.join(h.project, 'b.txt'))).toBe(false);
    // Applied in full, the plan has no checkpoints left, and the store none of their contents.
    expect(readdirSync(h.ctx.objects.dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile())).toEqual([]);
  });

  it('rewinds what came after the checkpoint in every changeset: its own past its count, and all of one the plan moved to since', async () => {
    const two = ['  - step: Write a', '    tools:', '      - tool: file.write', '        args: { path: a.txt, content: "a" }', '  - step: Write b', '    tools:', '      - tool: file.write', '        args: { path: b.txt, content: "b" }'];
    const { plan, running, checkpoints, sandbox } = await setup(two);
    await running.run(plan.id);
    const first = (await h.ctx.get(plan.id)).changesetId!;
    // The plan moves to a changeset of its own after the checkpoint (a run that ended before it resumed its changeset once started one).
    await h.ctx.lifecycle.update(plan.id, { changesetId: null });
    writeFileSync(path.join((await sandbox())!, 'c.txt'), 'c\n');
    await h.ctx.captureHandEdits(await h.ctx.get(plan.id));
    const moved = (await h.ctx.get(plan.id)).changesetId!;
    expect(moved).not.toBe(first);
    await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    const standing = async (changesetId: string) => (await h.ctx.stores.changesets.listEntryMeta(changesetId, { offset: 0, limit: 10 })).map((e) => `${e.path}${e.rewound ? ' rewound' : ''}`);
    expect(await standing(first)).toEqual(['a.txt', 'b.txt rewound']);
    // The new changeset recorded the whole sandbox against the project: all of it came after the checkpoint.
    expect(await standing(moved)).toEqual(['a.txt rewound', 'b.txt rewound', 'c.txt rewound']);
    // The plan is back on the changeset it had at the checkpoint: what apply reads is a.txt, once.
    expect((await h.ctx.get(plan.id)).changesetId).toBe(first);
    expect(treeListing((await sandbox())!).filter((line) => / [abc]\.txt /.test(line)).map((line) => line.split(' ')[1])).toEqual(['a.txt']);
    // Run again, step 2 records into that changeset: each file once.
    await running.run(plan.id);
    expect((await h.ctx.get(plan.id)).changesetId).toBe(first);
    expect(await standing(first)).toEqual(['a.txt', 'b.txt rewound', 'b.txt']);
  });

  it('a rewind behind a replan keeps the steps the replan replaced skipped: the plan runs its new steps again', async () => {
    const failing = ['  - step: Write', '    tools:', '      - tool: file.write', '        args: { path: x.txt, content: "x" }', '  - step: Fail', '    tools:', '      - tool: file.edit', '        args: { path: README.md, find: "## Missing", replace: "x" }', '  - step: Never reached', '    tools: []'];
    const { plan, running, checkpoints, atCheckpoint, sandbox } = await setup(failing);
    expect(await running.run(plan.id)).toMatchObject({ processingState: 'errored' });
    const file = path.join(h.root, 'new.yaml');
    writeFileSync(file, ['name: new steps', 'definitionOfDone:', '  - step: Write y', '    tools:', '      - tool: file.write', '        args: { path: y.txt, content: "y" }', ''].join('\n'));
    await planFixing(h.ctx, h.runs, running.run, h.verifying, checkpoints).replan(plan.id, { by: 'alice', file });
    expect(await running.run(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
    const statuses = async () => stepsInOrder(await h.ctx.lifecycle.listDecisions(plan.id)).map((d) => `${d.description}: ${d.status}`);
    expect(await statuses()).toEqual(['Write: done', 'Fail: skipped', 'Never reached: skipped', 'Write y: done']);

    await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    expect(treeHash(await sandbox())).toBe(atCheckpoint.get(2));
    expect(await statuses()).toEqual(['Write: done', 'Fail: skipped', 'Never reached: skipped', 'Write y: pending']);
    expect(await running.run(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(readdirSync(await sandbox()).filter((f) => f.endsWith('.txt')).sort()).toEqual(['x.txt', 'y.txt']);
  });

  it('a step the operator skipped after the checkpoint is pending again after the rewind', async () => {
    const { plan, running, checkpoints } = await setup();
    await running.run(plan.id);
    await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    await planFixing(h.ctx, h.runs, running.run, h.verifying, checkpoints).skip(plan.id, { by: 'alice', step: 3 });
    await running.run(plan.id);
    await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    expect(stepsInOrder(await h.ctx.lifecycle.listDecisions(plan.id)).map((d) => d.status)).toEqual(['done', 'pending', 'pending']);
  });

  it('says which files a rewind changes, and undoes the operator’s own edits after the checkpoint too', async () => {
    const { plan, running, checkpoints, atCheckpoint, sandbox } = await setup();
    await running.run(plan.id);
    writeFileSync(path.join(await sandbox(), 'mine.txt'), 'by hand\n');
    writeFileSync(path.join(await sandbox(), 'NOTES.md'), 'notes, by hand\n');
    const preview = await checkpoints.rewindPreview(plan.id, 2);
    expect(preview.operatorEdits).toEqual(['NOTES.md', 'mine.txt']);
    expect(preview.files.filter((f) => f.editedByOperator).map((f) => `${f.operation} ${f.path}`)).toEqual(['modify NOTES.md', 'delete mine.txt']);
    expect(preview.steps).toBe(2);
    // The preview changed nothing in the sandbox.
    expect(readFileSync(path.join(await sandbox(), 'mine.txt'), 'utf8')).toBe('by hand\n');
    await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    expect(treeHash(await sandbox())).toBe(atCheckpoint.get(2));
    expect(existsSync(path.join(await sandbox(), 'mine.txt'))).toBe(false);
  });

  it('refuses while the plan runs, after it is applied, and a step out of range or not started, changing nothing', async () => {
    const slow = ['  - step: Wait', '    tools:', '      - tool: shell.run', '        args: { command: "sleep 1" }', '  - step: Write', '    tools:', '      - tool: file.write', '        args: { path: x.txt, content: "x" }'];
    const { plan, running, checkpoints, sandbox } = await setup(slow);
    await expect(checkpoints.rewind(plan.id, { by: 'alice', toStep: 1 })).rejects.toThrow(`plan ${plan.id} has no checkpoint yet; one is recorded as each step starts`);
    const run = running.run(plan.id);
    await waitFor(async () => (await checkpoints.checkpoints(plan.id)).length === 1);
    await expect(checkpoints.rewind(plan.id, { by: 'alice', toStep: 1 })).rejects.toThrow(`plan ${plan.id} is Running; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before rewinding`);
    await run;
    const hash = treeHash(await sandbox());
    const entries = await h.ctx.stores.changesets.countEntries((await h.ctx.get(plan.id)).changesetId as string);
    await expect(checkpoints.rewind(plan.id, { by: 'alice', toStep: 3 })).rejects.toThrow(`toStep: 3 is out of range: plan ${plan.id} has steps 1 to 2`);
    await expect(checkpoints.rewind(plan.id, { by: 'alice', toStep: 0 })).rejects.toThrow('toStep: 0 is out of range');
    await planApplying(h.ctx, h.runs, planReading(h.ctx), h.verifying).apply(plan.id);
    await expect(checkpoints.rewind(plan.id, { by: 'alice', toStep: 1 })).rejects.toThrow(`plan ${plan.id} is Applied; rewind needs a plan that is Ready to run or Failed or Interrupted or Ready to apply`);
    expect(treeHash(await sandbox())).toBe(hash);
    // Applied in full, it cannot be rewound: its checkpoints are dropped.
    expect(await h.ctx.stores.checkpoints.count(plan.id)).toBe(0);
    expect((await h.ctx.lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'error_recovery')).toEqual([]);
    expect((await h.ctx.stores.changesets.get((await h.ctx.get(plan.id)).changesetId as string))?.entries).toHaveLength(entries);
  });

  it('refuses a step that has not started yet with one line', async () => {
    const failing = [
      '  - step: Write',
      '    tools:',
      '      - tool: file.write',
      '        args: { path: x.txt, content: "x" }',
      '  - step: Fail',
      '    tools:',
      '      - tool: file.edit',
      '        args: { path: README.md, find: "## Missing", replace: "x" }',
      '  - step: Never reached',
      '    tools: []',
    ];
    const { plan, running, checkpoints } = await setup(failing);
    expect(await running.run(plan.id)).toMatchObject({ processingState: 'errored' });
    await expect(checkpoints.rewind(plan.id, { by: 'alice', toStep: 3 })).rejects.toThrow(
      `toStep: step 3 has no checkpoint: it has not started yet (plan ${plan.id} has checkpoints before steps 1 to 2)`,
    );
    // A failed plan rewinds to before its failed step, and is ready to run again.
    const { plan: back } = await checkpoints.rewind(plan.id, { by: 'alice', toStep: 2 });
    expect(back).toMatchObject({ phase: 'execute', processingState: 'queued', errorMessage: null });
  });
});
