import { describe, expect, it } from 'vitest';
import type { CheckpointSummary, RewindPreview } from '../../../shared/checkpoints';
import { bridgeFailure } from '../../../shared/contract';
import { makeDecision, makeEntry, makeEvent, makeListItem, makePlan } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { handleKey } from './keyboard';

const checkpoint = (step: number, overrides: Partial<CheckpointSummary> = {}): CheckpointSummary => ({
  id: `C${step}`,
  planId: 'P1',
  step,
  decisionId: `s${step}`,
  description: `decision s${step}`,
  createdAt: `2026-01-01T10:0${step}:00.000Z`,
  filesChanged: step === 1 ? 4 : 1,
  entries: step - 1,
  inputTokens: 0,
  outputTokens: 0,
  ...overrides,
});

const preview: RewindPreview = {
  planId: 'P1',
  toStep: 2,
  steps: 2,
  files: [
    { path: 'NOTES.md', operation: 'delete', editedByOperator: false },
    { path: 'README.md', operation: 'modify', editedByOperator: true },
  ],
  operatorEdits: ['README.md'],
  entriesRewound: 2,
};

/** A plan that ran its three steps and waits to be applied: one change per step, a checkpoint before each. */
async function openRanPlan() {
  const t = testRuntime();
  t.fake.plans = [makeListItem()];
  t.fake.plan = makePlan({ phase: 'apply', processingState: 'queued' });
  t.fake.decisions = [
    makeDecision('root', null, 0),
    makeDecision('s1', 'root', 0, { status: 'done' }),
    makeDecision('s2', 'root', 1, { status: 'done' }),
    makeDecision('s3', 'root', 2, { status: 'done' }),
  ];
  t.fake.entries = [makeEntry('e1', 'LICENSE', { decisionId: 's1', operation: 'create' }), makeEntry('e2', 'NOTES.md', { decisionId: 's2', operation: 'create' }), makeEntry('e3', 'README.md', { decisionId: 's3' })];
  t.fake.checkpoints = [checkpoint(1), checkpoint(2), checkpoint(3)];
  t.fake.events = [makeEvent(1, 'plan_created')];
  t.runtime.start();
  await t.settle();
  t.state().openPlan('P1');
  await t.settle();
  return t;
}

describe('checkpoints in the store', () => {
  it('are read when a plan opens, and a checkpoint taken as a step starts is listed at once', async () => {
    const t = await openRanPlan();
    expect(t.state().checkpoints.map((c) => c.step)).toEqual([1, 2, 3]);
    expect(t.state().checkpointsStatus).toBe('loaded');
    const { planId: _planId, ...data } = checkpoint(4, { decisionId: 's4', filesChanged: 2 });
    t.fake.emit(makeEvent(2, 'checkpoint_created', data));
    await t.frame();
    expect(t.state().checkpoints.map((c) => [c.step, c.decisionId, c.filesChanged])).toEqual([
      [1, 's1', 4],
      [2, 's2', 1],
      [3, 's3', 1],
      [4, 's4', 2],
    ]);
  });

  it('a rewind started from the command line refreshes the open plan: its tree, state, changes, review and checkpoints', async () => {
    const t = await openRanPlan();
    expect(t.state().reviewFiles.map((f) => f.path)).toEqual(['LICENSE', 'NOTES.md', 'README.md']);
    // What `agents plan rewind P1 --to-step 2` leaves in the database, in another process.
    t.fake.plan = makePlan({ phase: 'execute', processingState: 'queued' });
    t.fake.decisions = [
      ...t.fake.decisions.map((d) => (d.id === 's2' || d.id === 's3' ? { ...d, status: 'pending' as const } : d)),
      makeDecision('R', 's2', 0, { type: 'error_recovery', status: 'done', description: 'Rewound to before step 2 (from the end): 2 files put back, 2 changes rewound' }),
    ];
    t.fake.entries = t.fake.entries.map((e) => (e.id === 'e1' ? e : { ...e, rewound: true }));
    t.fake.checkpoints = [checkpoint(1), checkpoint(2)];
    const review = t.fake.callsTo('plans.review').length;
    // Only the rewind's own event: the console does not need the others to catch up.
    t.fake.emit(makeEvent(2, 'plan_rewound', { toStep: 2, fromStep: null, decisionId: 'R', by: 'alice', files: 2, entriesRewound: 2, recovered: false }));
    await t.frame();
    await t.settle();
    const state = t.state();
    expect(state.plan).toMatchObject({ phase: 'execute', processingState: 'queued' });
    expect(['s1', 's2', 's3'].map((id) => state.decisions[id].status)).toEqual(['done', 'pending', 'pending']);
    expect(state.decisions.R.description).toMatch(/^Rewound to before step 2/);
    expect(state.checkpoints.map((c) => c.step)).toEqual([1, 2]);
    expect(state.changeEntries.map((e) => [e.id, e.rewound ?? false])).toEqual([
      ['e1', false],
      ['e2', true],
      ['e3', true],
    ]);
    expect(t.fake.callsTo('plans.review').length).toBeGreaterThan(review);
    expect(state.status.text).toBe('add-license rewound to before step 2 by alice; step 2 and the later ones are pending again');
  });

  it('Rewind asks first, with the files the host says it changes, and rewinds only once confirmed', async () => {
    const t = await openRanPlan();
    t.fake.on('plans.rewindPreview', () => preview);
    await t.state().runAction('rewind', { toStep: 2 });
    expect(t.fake.callsTo('plans.rewindPreview')).toEqual([{ planId: 'P1', toStep: 2 }]);
    expect(t.fake.callsTo('plans.rewind')).toEqual([]);
    expect(t.state().rewindDialog).toEqual({ toStep: 2, preview, loading: false, error: null });

    await t.state().confirmRewind();
    expect(t.fake.callsTo('plans.rewind')).toEqual([{ planId: 'P1', toStep: 2 }]);
    expect(t.state().rewindDialog).toBeNull();
    expect(t.state().plan).toMatchObject({ phase: 'execute', processingState: 'queued' });
    expect(t.state().status.text).toBe('Rewound to before step 2: 2 files put back; step 2 and the later ones are pending again');
  });

  it('Cancel and Escape close the confirmation without rewinding; other keys do nothing meanwhile', async () => {
    const t = await openRanPlan();
    await t.state().runAction('rewind', { toStep: 3 });
    expect(t.state().rewindDialog?.toStep).toBe(3);
    expect(['j', 'r', '2'].map((key) => handleKey(t.store, key))).toEqual([false, false, false]);
    expect(t.state().tab).toBe('decisions');
    expect(handleKey(t.store, 'Escape')).toBe(true);
    expect(t.state().rewindDialog).toBeNull();
    await t.state().runAction('rewind', { toStep: 1 });
    t.state().cancelRewind();
    expect(t.state().rewindDialog).toBeNull();
    expect(t.fake.callsTo('plans.rewind')).toEqual([]);
  });

  it('is not offered while the plan runs: the rule says why, and nothing is asked of the host', async () => {
    const t = await openRanPlan();
    t.store.setState({ plan: makePlan({ processingState: 'processing' }) });
    await t.state().runAction('rewind', { toStep: 2 });
    expect(t.state().rewindDialog).toBeNull();
    expect(t.fake.callsTo('plans.rewindPreview')).toEqual([]);
    expect(t.state().status.text).toBe('Rewind is not available: plan P1 is Running; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before rewinding');
  });

  it('a preview the host refuses says why in the dialog, and Rewind stays off', async () => {
    const t = await openRanPlan();
    t.fake.fail('plans.rewindPreview', 'step 3 has no checkpoint: it has not started yet (plan P1 has checkpoints before steps 1 to 2)');
    await t.state().runAction('rewind', { toStep: 3 });
    expect(t.state().rewindDialog).toMatchObject({ toStep: 3, preview: null, loading: false, error: 'step 3 has no checkpoint: it has not started yet (plan P1 has checkpoints before steps 1 to 2)' });
  });

  it('a rewind refused because the plan moved on in another process says where it is now, and keeps the dialog open', async () => {
    const t = await openRanPlan();
    t.fake.on('plans.rewindPreview', () => preview);
    await t.state().runAction('rewind', { toStep: 2 });
    t.fake.plan = makePlan({ processingState: 'processing' });
    t.fake.on('plans.rewind', () => {
      throw bridgeFailure({ code: 'wrong_state', message: 'plan P1 is being run by another process' });
    });
    await t.state().confirmRewind();
    expect(t.state().rewindError).toBe('Rewind refused: plan P1 is being run by another process (the plan is Running now)');
    expect(t.state().rewindDialog?.toStep).toBe(2);
    expect(t.state().plan?.processingState).toBe('processing');
  });

  it('a checkpoint or a change recorded while the confirmation is open asks for its list again', async () => {
    const t = await openRanPlan();
    t.fake.on('plans.rewindPreview', () => preview);
    await t.state().runAction('rewind', { toStep: 2 });
    t.fake.emit(makeEvent(2, 'change_recorded', { entry: makeEntry('e4', 'MORE.md', { decisionId: 's3' }) }));
    await t.frame();
    expect(t.fake.callsTo('plans.rewindPreview')).toHaveLength(2);
    expect(t.state().rewindDialog?.preview).toEqual(preview);
  });
});
