import { describe, expect, it } from 'vitest';
import { flattenTree } from '../lib/decision-tree';
import { makeDecision, makeEntry, makeEvent, makeListItem, makePlan, reviewOf } from '../test-support/fake-bridge';
import { testRuntime } from '../test-support/runtime';
import { EVENT_PAGE } from './events-slice';
import { MAX_EVENTS } from './merge-events';
import { LIST_EVENT_TYPES } from './plan-events';
import { FIRST_DECISIONS_PAGE } from './plan-slice';
import { selectVisiblePlans } from './plans-slice';

function demoTree() {
  return [
    makeDecision('root', null, 0),
    makeDecision('s1', 'root', 0, { status: 'done' }),
    makeDecision('s2', 'root', 1),
    makeDecision('s3', 'root', 2),
  ];
}

async function openDemoPlan() {
  const t = testRuntime();
  t.fake.plans = [makeListItem()];
  t.fake.decisions = demoTree();
  t.fake.events = [makeEvent(1, 'plan_created'), makeEvent(2, 'state_changed', { from: 'queued', to: 'processing', phase: 'strategize' })];
  t.runtime.start();
  await t.settle();
  t.state().openPlan('P1');
  await t.settle();
  return t;
}

describe('the plan list', () => {
  it('loads, and puts the plans that need attention first, newest first otherwise', async () => {
    const t = testRuntime();
    t.fake.plans = [
      makeListItem({ id: 'old', name: 'old', createdAt: '2026-01-01T00:00:00.000Z' }),
      makeListItem({ id: 'new', name: 'new', createdAt: '2026-01-02T00:00:00.000Z' }),
      makeListItem({ id: 'bad', name: 'bad', processingState: 'errored', needsAttention: true }),
    ];
    t.runtime.start();
    await t.settle();
    expect(t.state().plansStatus).toBe('loaded');
    expect(selectVisiblePlans(t.state()).map((p) => p.id)).toEqual(['bad', 'new', 'old']);
    expect(t.state().planCursorId).toBe('bad');
  });

  it('filters by state and searches by name', async () => {
    const t = testRuntime();
    t.fake.plans = [makeListItem({ id: 'a', name: 'Add licence' }), makeListItem({ id: 'b', name: 'fix tests', processingState: 'errored' })];
    t.runtime.start();
    await t.settle();
    t.state().setStateFilter('failed');
    expect(selectVisiblePlans(t.state()).map((p) => p.id)).toEqual(['b']);
    t.state().setStateFilter('all');
    t.state().setSearch('LICENCE');
    expect(selectVisiblePlans(t.state()).map((p) => p.id)).toEqual(['a']);
  });

  it('keeps the plans it has when a reload fails, and reports the error', async () => {
    const t = testRuntime();
    t.fake.plans = [makeListItem()];
    await t.state().loadPlans();
    t.fake.fail('plans.list', 'server down');
    await t.state().loadPlans();
    expect(t.state().plans).toHaveLength(1);
    expect(t.state().plansError).toBe('server down');
  });

  it('reloads when any plan changes state', async () => {
    const t = testRuntime();
    t.runtime.start();
    await t.settle();
    const before = t.fake.callsTo('plans.list').length;
    t.fake.emit(makeEvent(5, 'state_changed', { to: 'processing' }, 'OTHER'));
    await t.frame();
    expect(t.fake.callsTo('plans.list').length).toBe(before + 1);
  });

  it('creates a plan from a picked file and opens it', async () => {
    const t = testRuntime();
    t.runtime.start();
    await t.settle();
    const id = await t.state().createPlanFromFile({ content: 'name: x', fileName: 'x.yaml' });
    expect(id).toBe('NEW');
    expect(t.fake.callsTo('plans.create')).toEqual([{ content: 'name: x', fileName: 'x.yaml' }]);
    expect(t.state().planId).toBe('NEW');
  });

  it('creates a picked file with the project folder of the Create plan form, and closes the form', async () => {
    const t = testRuntime();
    t.runtime.start();
    await t.settle();
    t.state().setCreateDraft({ content: 'name: x', fileName: 'x.yaml' });
    expect(await t.state().checkProject({ project: 'demo' })).toEqual({ project: 'demo', path: '/projects/demo', problem: null, relativeTo: ['/projects'] });
    expect(await t.state().createPlanFromFile({ content: 'name: x', fileName: 'x.yaml', project: '/projects/demo' })).toBe('NEW');
    expect(t.fake.callsTo('plans.create')).toEqual([{ content: 'name: x', fileName: 'x.yaml', project: '/projects/demo' }]);
    expect(t.state().createDraft).toBeNull();
  });

  it('keeps the form open with every problem of a refused plan on its own line', async () => {
    const t = testRuntime();
    t.fake.fail('plans.create', 'step 1, call 1: unknown tool "x"\nproject: not a directory: /p');
    t.state().setCreateDraft({ content: 'name: x', fileName: 'x.yaml' });
    expect(await t.state().createPlanFromFile({ content: 'name: x', fileName: 'x.yaml' })).toBeNull();
    expect(t.state().createDraft).not.toBeNull();
    expect(t.state().createStatus).toEqual({ state: 'error', message: 'Could not create a plan from x.yaml:\nstep 1, call 1: unknown tool "x"\nproject: not a directory: /p' });
  });

  it('says why a plan file was refused', async () => {
    const t = testRuntime();
    t.fake.fail('plans.create', 'definitionOfDone: needs at least one step');
    expect(await t.state().createPlanFromFile({ content: 'name: x', fileName: 'x.yaml' })).toBeNull();
    expect(t.state().createStatus).toEqual({ state: 'error', message: 'Could not create a plan from x.yaml: definitionOfDone: needs at least one step' });
  });
});

describe('opening a plan', () => {
  it('loads the plan, its decisions expanded, and its event history', async () => {
    const t = await openDemoPlan();
    expect(t.state().plan?.id).toBe('P1');
    expect(flattenTree(t.state().decisions, t.state().expanded).map((r) => r.decision.id)).toEqual(['root', 's1', 's2', 's3']);
    expect(t.state().events.map((e) => e.seq)).toEqual([1, 2]);
  });

  it('subscribes to the plan after the last stored event', async () => {
    const t = await openDemoPlan();
    const subs = [...t.fake.subscriptions.values()].map((s) => s.subscription);
    expect(subs).toContainEqual({ planId: 'P1', afterSeq: 2 });
    expect(subs).toContainEqual({ planId: null, types: [...LIST_EVENT_TYPES] });
  });

  it('asks for the newest events first and loads each snapshot once', async () => {
    const t = await openDemoPlan();
    expect(t.fake.calls[t.fake.calls.findIndex((c) => c.channel === 'plans.get') - 1]).toMatchObject({ channel: 'plans.events', request: { newest: true } });
    expect(t.fake.callsTo('plans.decisions')).toHaveLength(1);
    expect(t.fake.callsTo('plans.get')).toHaveLength(1);
  });

  it("keeps whether the host can use the plan's model, from plans.get, and asks again after the settings change", async () => {
    const t = testRuntime();
    t.fake.plans = [makeListItem()];
    t.fake.plan = makePlan({ agent: { model: 'anthropic:claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com/v1', maxTurnsPerStep: 20, maxOutputTokens: 16000 } });
    let usable = false;
    t.fake.on('plans.get', async () => ({
      plan: t.fake.plan,
      model: { model: 'anthropic:claude-sonnet-4-5', baseUrl: 'https://api.anthropic.com/v1', usable, problem: usable ? null : 'AGENTS_API_KEY: needs a key' },
    }));
    t.state().openPlan('P1');
    await t.settle();
    expect(t.state().planModel).toMatchObject({ usable: false, problem: 'AGENTS_API_KEY: needs a key' });
    usable = true;
    await t.state().saveSettings({ apiKey: 'sk-ant' });
    await t.settle();
    expect(t.state().planModel).toMatchObject({ usable: true, problem: null });
  });

  it('knows the plan is paused before a step when the history comes before the plan itself', async () => {
    const t = testRuntime();
    t.fake.plans = [makeListItem()];
    t.fake.decisions = demoTree();
    t.fake.plan = makePlan({ processingState: 'paused', phase: 'execute' });
    t.fake.events = [makeEvent(1, 'paused', { decisionId: 's2', index: 2, total: 3, reason: 'step' })];
    let releasePlan = () => {};
    const planGate = new Promise<void>((resolve) => (releasePlan = resolve));
    t.fake.on('plans.get', async () => {
      await planGate;
      return { plan: t.fake.plan };
    });
    t.state().openPlan('P1');
    await t.settle();
    expect(t.state().plan).toBeNull();
    releasePlan();
    await t.settle();
    expect(t.state().pausedDecisionId).toBe('s2');
  });

  it('draws a large tree from its first page, then has all of it', async () => {
    const t = testRuntime();
    t.fake.plans = [makeListItem()];
    t.fake.decisions = [makeDecision('root', null, 0), ...Array.from({ length: FIRST_DECISIONS_PAGE + 99 }, (_, i) => makeDecision(`d${i}`, 'root', i))];
    const sizes: number[] = [];
    t.store.subscribe((state, previous) => {
      if (state.decisions !== previous.decisions) sizes.push(Object.keys(state.decisions).length);
    });
    t.state().openPlan('P1');
    await t.settle();
    expect(sizes).toEqual([FIRST_DECISIONS_PAGE, FIRST_DECISIONS_PAGE + 100]);
    expect(t.state().decisionsStatus).toBe('loaded');
    expect(t.fake.callsTo('plans.decisions')).toEqual([
      { planId: 'P1', offset: 0, limit: FIRST_DECISIONS_PAGE },
      { planId: 'P1', offset: FIRST_DECISIONS_PAGE, limit: 100 },
    ]);
    // A refresh replaces the tree in one go.
    sizes.length = 0;
    t.state().refreshDecisions();
    await t.settle();
    expect(sizes).toEqual([FIRST_DECISIONS_PAGE + 100]);
  });

  it('drops the previous plan subscription when another plan opens', async () => {
    const t = await openDemoPlan();
    t.state().openPlan('P2');
    await t.settle();
    const planSubs = [...t.fake.subscriptions.values()].map((s) => s.subscription.planId).filter((id) => id !== null);
    expect(planSubs).toEqual(['P2']);
  });

  it('drops what was asked for the previous plan: its late answers, failures and pushed entries never reach the next plan\'s state', async () => {
    const t = testRuntime();
    t.fake.decisions = demoTree();
    const held: (() => void)[] = [];
    const hold = <T,>(value: T) => new Promise<T>((resolve) => held.push(() => resolve(value)));
    t.fake.on('plans.changes', (r) => (r.planId === 'P1' ? hold({ changesetId: 'CS1', total: 1, entries: [makeEntry('old', 'OLD.md')] }) : { changesetId: 'CS2', total: 0, entries: [] }));
    t.fake.on('plans.get', (r) => (r.planId === 'P1' ? hold({ plan: makePlan({ name: 'old plan' }) }) : { plan: makePlan({ id: 'P2', name: 'new plan' }) }));
    t.fake.on('plans.errors', (r) => {
      if (r.planId === 'P1') return hold(null).then(() => Promise.reject(new Error('P1 failed late')));
      return { planId: 'P2', errors: [], recoveryDecisions: [], recoveryHints: [] };
    });
    t.state().openPlan('P1');
    await t.settle();
    const first = t.state().session!;
    // An entry pushed while P1's list loads waits for that list, in P1's session only.
    t.fake.emit(makeEvent(1, 'change_recorded', { entry: makeEntry('pushed', 'PUSHED.md') }));
    await t.frame();
    expect(first.changes.arrivedWhileLoading.map((e) => e.id)).toEqual(['pushed']);
    t.state().openPlan('P2');
    await t.settle();
    expect(first.closed).toBe(true);
    expect(t.state().session).not.toBe(first);
    expect(t.state().session!.changes.arrivedWhileLoading).toEqual([]);
    for (const answer of held) answer();
    await t.settle();
    expect(t.state()).toMatchObject({ planId: 'P2', plan: { name: 'new plan' }, changeEntries: [], changesetId: 'CS2', planError: null });
    expect(t.state().status.text).not.toContain('P1 failed late');
  });

  it('closing the plan closes its session and starts the next from nothing', async () => {
    const t = await openDemoPlan();
    const session = t.state().session!;
    t.state().closePlan();
    expect(session.closed).toBe(true);
    expect(t.state()).toMatchObject({ session: null, planId: null, plan: null, decisions: {}, changeEntries: [], toolTallies: {}, events: [] });
    expect([...t.fake.subscriptions.values()].filter((s) => s.subscription.planId !== null)).toEqual([]);
  });
});

describe('a long event log', () => {
  const longLog = async (count: number) => {
    const t = testRuntime();
    t.fake.plans = [makeListItem()];
    t.fake.decisions = demoTree();
    t.fake.events = Array.from({ length: count }, (_, i) => makeEvent(i + 1, 'execute_step', { index: i + 1 }));
    t.state().openPlan('P1');
    await t.settle();
    return t;
  };
  const seqs = (t: Awaited<ReturnType<typeof longLog>>) => {
    const events = t.state().events;
    return { first: events[0]?.seq, last: events.at(-1)?.seq, count: events.length, lastSeq: t.state().lastSeq };
  };

  it('opens at its newest page and subscribes after it', async () => {
    const t = await longLog(2_500);
    expect(seqs(t)).toEqual({ first: 2_500 - EVENT_PAGE + 1, last: 2_500, count: EVENT_PAGE, lastSeq: 2_500 });
    expect([...t.fake.subscriptions.values()].map((s) => s.subscription)).toContainEqual({ planId: 'P1', afterSeq: 2_500 });
  });

  it('reads older pages from the host as the operator scrolls up, down to the first event', async () => {
    const t = await longLog(2_500);
    await t.state().loadOlderEvents();
    expect(seqs(t)).toEqual({ first: 2_500 - 2 * EVENT_PAGE + 1, last: 2_500, count: 2 * EVENT_PAGE, lastSeq: 2_500 });
    await t.state().loadOlderEvents();
    await t.state().loadOlderEvents();
    expect(seqs(t)).toEqual({ first: 1, last: 2_500, count: 2_500, lastSeq: 2_500 });
  });

  it('keeps at most MAX_EVENTS: new events drop the oldest, older pages drop the newest until the operator comes back', async () => {
    const total = MAX_EVENTS + 2 * EVENT_PAGE;
    const t = await longLog(total);
    while (t.state().events.length < MAX_EVENTS) await t.state().loadOlderEvents();
    expect(seqs(t)).toEqual({ first: total - MAX_EVENTS + 1, last: total, count: MAX_EVENTS, lastSeq: total });

    // Live events join a window at the head, and push the oldest out.
    t.fake.events.push(makeEvent(total + 1, 'execute_step'));
    t.fake.emit(makeEvent(total + 1, 'execute_step'));
    await t.frame();
    expect(seqs(t)).toEqual({ first: total - MAX_EVENTS + 2, last: total + 1, count: MAX_EVENTS, lastSeq: total + 1 });

    // Further back, the newest leave the window; new events then only move lastSeq.
    await t.state().loadOlderEvents();
    expect(seqs(t)).toEqual({ first: total - MAX_EVENTS + 2 - EVENT_PAGE, last: total + 1 - EVENT_PAGE, count: MAX_EVENTS, lastSeq: total + 1 });
    t.fake.events.push(makeEvent(total + 2, 'decision_status', { decisionId: 's2', status: 'running' }));
    t.fake.emit(t.fake.events.at(-1)!);
    await t.frame();
    expect(seqs(t)).toMatchObject({ last: total + 1 - EVENT_PAGE, count: MAX_EVENTS, lastSeq: total + 2 });
    expect(t.state().decisions.s2.status).toBe('running');

    // Scrolling down reads the next page; "follow" goes straight back to the newest.
    await t.state().loadNewerEvents();
    expect(seqs(t)).toEqual({ first: total - MAX_EVENTS + 2, last: total + 1, count: MAX_EVENTS, lastSeq: total + 2 });
    await t.state().loadOlderEvents();
    await t.state().loadOlderEvents();
    await t.state().showLatestEvents();
    expect(seqs(t)).toMatchObject({ last: total + 2, lastSeq: total + 2 });
    t.fake.emit(makeEvent(total + 3, 'execute_step'));
    await t.frame();
    expect(seqs(t)).toMatchObject({ last: total + 3, lastSeq: total + 3 });
    expect(t.state().events.length).toBeLessThanOrEqual(MAX_EVENTS);
  });
});

describe('live events', () => {
  it('are applied once per animation frame, in one batch', async () => {
    const t = await openDemoPlan();
    t.fake.emit(makeEvent(3, 'state_changed', { from: 'processing', to: 'paused', phase: 'execute' }));
    t.fake.emit(makeEvent(4, 'paused', { decisionId: 's2', index: 1, total: 2, reason: 'step' }));
    expect(t.state().lastSeq).toBe(2);
    await t.frame();
    expect(t.state().lastSeq).toBe(4);
    expect(t.state().pausedDecisionId).toBe('s2');
    expect(t.state().status.text).toContain('paused before step 1 of 2');
  });

  it('move decision statuses and the plan state without a refetch', async () => {
    const t = await openDemoPlan();
    t.fake.plan = makePlan({ processingState: 'processing' });
    t.fake.emit(makeEvent(3, 'decision_status', { decisionId: 's2', status: 'running' }));
    t.fake.emit(makeEvent(4, 'state_changed', { from: 'queued', to: 'processing', phase: 'execute' }));
    t.state().ingestEvents([]);
    await t.frame();
    expect(t.state().decisions.s2.status).toBe('running');
    expect(t.state().decisions.s2.status).toBe('running');
  });

  it('ignore events already seen, and backfill a gap', async () => {
    const t = await openDemoPlan();
    t.fake.events.push(makeEvent(3, 'execute_started'), makeEvent(4, 'runtime_execute_started'));
    t.fake.emit(makeEvent(2, 'state_changed', { to: 'processing' }));
    t.fake.emit(makeEvent(5, 'decision_status', { decisionId: 's2', status: 'running' }));
    await t.frame();
    expect(t.state().events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('never roll a fresher snapshot back', async () => {
    const t = await openDemoPlan();
    // An older event still in the frame buffer when a newer snapshot arrives...
    t.fake.emit(makeEvent(3, 'state_changed', { from: 'queued', to: 'processing', phase: 'execute' }));
    t.fake.plan = makePlan({ processingState: 'paused' });
    t.state().refreshPlan();
    await t.settle();
    await t.frame();
    // ...is applied before it, not after.
    expect(t.state().plan?.processingState).toBe('paused');
  });

  it('schedule a countdown to the next automatic retry', async () => {
    const t = await openDemoPlan();
    t.fake.emit({ ...makeEvent(3, 'retry_scheduled', { decisionId: 's2', attempt: 2, delayMs: 4000, error: 'exit 75' }), ts: '2026-01-01T00:00:10.000Z' });
    await t.frame();
    expect(t.state().nextRetry).toEqual({ at: Date.parse('2026-01-01T00:00:14.000Z'), attempt: 2, decisionId: 's2', error: 'exit 75' });
    t.fake.emit(makeEvent(4, 'runtime_execute_started'));
    await t.frame();
    expect(t.state().nextRetry).toBeNull();
  });

  it('fold finished tool calls into the tree\'s tallies, and append recorded changes, without asking the host', async () => {
    const t = await openDemoPlan();
    const changes = t.fake.callsTo('plans.changes').length;
    const tallies = t.fake.callsTo('plans.toolTallies').length;
    t.fake.emit(makeEvent(3, 'tool_call_finished', { decisionId: 's2' }));
    t.fake.emit(makeEvent(4, 'change_recorded', { entry: makeEntry('e1', 'LICENSE', { decisionId: 's2' }) }));
    t.fake.emit(makeEvent(5, 'change_recorded', { entry: makeEntry('e2', 'README.md', { decisionId: 's2' }) }));
    // Replayed after a snapshot that already had it: listed once.
    t.fake.emit(makeEvent(6, 'change_recorded', { entry: makeEntry('e1', 'LICENSE', { decisionId: 's2' }) }));
    t.fake.emit(makeEvent(7, 'tool_call_finished', { decisionId: 's2', invocationId: 'I7', ok: false }));
    await t.frame();
    expect(t.state().toolTallies).toEqual({ s2: { ran: 2, failed: 1 } });
    expect(t.fake.callsTo('plans.invocations')).toEqual([]);
    expect(t.fake.callsTo('plans.invocationsForDecision')).toEqual([]);
    expect(t.fake.callsTo('plans.toolTallies').length).toBe(tallies);
    expect(t.fake.callsTo('plans.changes').length).toBe(changes);
    expect(t.state().changeEntries.map((e) => e.path)).toEqual(['LICENSE', 'README.md']);
    expect(t.state().changesTotal).toBe(2);
  });

  it('count each call once over the tallies\' snapshot: not again if the snapshot had it, again if it came after', async () => {
    const t = testRuntime();
    t.fake.decisions = demoTree();
    const call = (id: string, decisionId: string, ok = true) => ({ id, planId: 'P1', decisionId, tool: 'file.write', args: {}, ok, error: null, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1 });
    t.fake.invocations = [call('I1', 's1'), call('I2', 's2', false)];
    t.fake.events = [makeEvent(1, 'plan_created'), makeEvent(2, 'tool_call_finished', { decisionId: 's1', invocationId: 'I1' })];
    // The snapshot counts through seq 3; seq 3 arrives live only after it, seq 4 while it is on its way.
    let answer: (() => void) | null = null;
    let host = { tallies: [{ decisionId: 's1', ran: 1, failed: 0 }, { decisionId: 's2', ran: 1, failed: 1 }], throughSeq: 3 };
    t.fake.on('plans.toolTallies', () => new Promise((resolve) => (answer = () => resolve(host))));
    t.state().openPlan('P1');
    await t.settle();
    t.fake.emit(makeEvent(4, 'tool_call_finished', { decisionId: 's3', invocationId: 'I4' }));
    await t.frame();
    expect(t.state().toolTallies).toEqual({ s3: { ran: 1, failed: 0 } });
    answer!();
    await t.settle();
    expect(t.state().toolTallies).toEqual({ s1: { ran: 1, failed: 0 }, s2: { ran: 1, failed: 1 }, s3: { ran: 1, failed: 0 } });
    // Seq 3 was missing when seq 4 came: the gap asks for the tallies once more.
    expect(t.fake.callsTo('plans.toolTallies')).toHaveLength(2);
    host = { tallies: [...host.tallies, { decisionId: 's3', ran: 1, failed: 0 }], throughSeq: 4 };
    answer!();
    await t.settle();
    t.fake.emit(makeEvent(3, 'tool_call_finished', { decisionId: 's2', invocationId: 'I2', ok: false }));
    t.fake.emit(makeEvent(5, 'tool_call_finished', { decisionId: 's2', invocationId: 'I5' }));
    await t.frame();
    expect(t.state().toolTallies).toEqual({ s1: { ran: 1, failed: 0 }, s2: { ran: 2, failed: 1 }, s3: { ran: 1, failed: 0 } });
    expect(t.state().toolTallyBacklog).toBeNull();
  });

  it('read a decision\'s calls when it is opened, once, and list the calls that finish after with the args they started with', async () => {
    const t = await openDemoPlan();
    t.fake.invocations = [{ id: 'I1', planId: 'P1', decisionId: 's2', tool: 'file.read', args: { path: 'a' }, ok: true, error: null, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 1 }];
    t.state().loadDecisionCalls('s2');
    t.state().loadDecisionCalls('s2');
    await t.settle();
    expect(t.fake.callsTo('plans.invocationsForDecision')).toEqual([{ planId: 'P1', decisionId: 's2' }]);
    t.fake.emit(makeEvent(3, 'tool_call_started', { decisionId: 's2', tool: 'shell.run', args: { command: 'make' } }));
    await t.frame();
    t.fake.emit(makeEvent(4, 'tool_call_finished', { decisionId: 's2', invocationId: 'I2', tool: 'shell.run', ok: false, durationMs: 7, error: { name: 'ToolError', message: 'exit 2' }, confinement: 'bwrap-nobody', startedAt: '2026-01-01T00:00:01.000Z' }));
    t.fake.emit(makeEvent(5, 'tool_call_finished', { decisionId: 's3', invocationId: 'I3' }));
    await t.frame();
    expect(t.state().decisionCalls.s2.invocations).toEqual([
      t.fake.invocations[0],
      { id: 'I2', planId: 'P1', decisionId: 's2', tool: 'shell.run', args: { command: 'make' }, ok: false, error: { name: 'ToolError', message: 'exit 2' }, startedAt: '2026-01-01T00:00:01.000Z', durationMs: 7, confinement: 'bwrap-nobody' },
    ]);
    expect(t.state().decisionCalls.s3).toBeUndefined();
    expect(t.fake.callsTo('plans.invocationsForDecision')).toHaveLength(1);
    expect(t.fake.callsTo('plans.invocations')).toEqual([]);
  });

  it('read a decision\'s calls again when one finishes that started before it was opened, so no call is listed without its args', async () => {
    const t = await openDemoPlan();
    t.state().loadDecisionCalls('s2');
    await t.settle();
    expect(t.state().decisionCalls.s2.invocations).toEqual([]);
    // The call started before the step was opened: the page saw only its end.
    const made = { id: 'I2', planId: 'P1', decisionId: 's2', tool: 'shell.run', args: { command: 'make' }, ok: true, error: null, startedAt: '2026-01-01T00:00:01.000Z', durationMs: 7 };
    t.fake.invocations = [made];
    t.fake.emit(makeEvent(3, 'tool_call_finished', { decisionId: 's2', invocationId: 'I2', tool: 'shell.run' }));
    await t.frame();
    await t.settle();
    expect(t.state().decisionCalls.s2.invocations).toEqual([made]);
    expect(t.fake.callsTo('plans.invocationsForDecision')).toHaveLength(2);
  });

  it('fold recorded changes into the review: a new path is a row at once, a path changed again is netted by the host', async () => {
    const t = await openDemoPlan();
    await t.settle();
    const reviews = t.fake.callsTo('plans.review').length;
    t.fake.emit(makeEvent(3, 'change_recorded', { entry: makeEntry('e1', 'README.md', { decisionId: 's2' }) }));
    t.fake.emit(makeEvent(4, 'change_recorded', { entry: makeEntry('e2', 'LICENSE', { decisionId: 's2', insertions: 21, deletions: 0, operation: 'create' }) }));
    await t.frame();
    expect(t.state().reviewFiles.map((f) => [f.path, f.insertions, f.state])).toEqual([
      ['LICENSE', 21, 'remaining'],
      ['README.md', 1, 'remaining'],
    ]);
    expect(t.fake.callsTo('plans.review').length).toBe(reviews);
    expect(t.fake.callsTo('plans.changes').length).toBe(1);

    t.fake.entries = [makeEntry('e1', 'README.md', { decisionId: 's2' }), makeEntry('e2', 'LICENSE', { decisionId: 's2' }), makeEntry('e3', 'README.md', { decisionId: 's2' })];
    t.fake.emit(makeEvent(5, 'change_recorded', { entry: makeEntry('e3', 'README.md', { decisionId: 's2' }) }));
    await t.frame();
    await t.settle();
    expect(t.fake.callsTo('plans.review').length).toBe(reviews + 1);
    expect(t.state().reviewFiles.find((f) => f.path === 'README.md')?.entryIds).toEqual(['e1', 'e3']);
    expect(t.fake.callsTo('plans.changes').length).toBe(1);
  });

  it('read the changes again only after a gap in seq', async () => {
    const t = await openDemoPlan();
    const changes = t.fake.callsTo('plans.changes').length;
    t.fake.emit(makeEvent(9, 'change_recorded', { entry: makeEntry('e9', 'LATE.md') }));
    await t.frame();
    await t.settle();
    expect(t.fake.callsTo('plans.changes').length).toBe(changes + 1);
  });
});

describe('plan controls', () => {
  it('Step starts a queued plan in step mode, and steps a paused one', async () => {
    const t = await openDemoPlan();
    await t.state().runAction('step');
    expect(t.fake.callsTo('plans.run')).toEqual([{ planId: 'P1', step: true }]);
    t.fake.plan = makePlan({ processingState: 'paused' });
    t.state().refreshPlan();
    await t.settle();
    await t.state().runAction('step');
    expect(t.fake.callsTo('plans.step')).toEqual([{ planId: 'P1' }]);
  });

  it('refuse what the state does not allow, without calling the host', async () => {
    const t = await openDemoPlan();
    await t.state().runAction('retry');
    expect(t.fake.callsTo('plans.retry')).toEqual([]);
    expect(t.state().status.text).toBe('Retry is not available: plan P1 is Ready to run; retry needs a plan that is Failed or Interrupted');
  });

  it('a refusal on a stale view says the plan\'s real state and refreshes the view', async () => {
    const t = await openDemoPlan();
    t.fake.fail('plans.run', 'plan P1 is Running; run needs a plan that is Ready to run');
    t.fake.plan = makePlan({ processingState: 'processing' });
    const decisions = t.fake.callsTo('plans.decisions').length;
    await t.state().runAction('run');
    await t.settle();
    expect(t.state().actionError).toBe('Run refused: the plan is Running now. The view has been refreshed.');
    expect(t.state().plan?.processingState).toBe('processing');
    expect(t.fake.callsTo('plans.decisions').length).toBeGreaterThan(decisions);
    expect(t.state().pendingAction).toBeNull();
  });
});

describe('the changeset', () => {
  it('loads the files of the review and the diff of the first', async () => {
    const t = testRuntime();
    t.fake.entries = [makeEntry('e1', 'README.md'), makeEntry('e2', 'LICENSE', { operation: 'create' }), makeEntry('e3', 'README.md')];
    t.state().openPlan('P1');
    await t.settle();
    expect(t.state().reviewFiles.map((f) => f.path)).toEqual(['LICENSE', 'README.md']);
    expect(t.state().fileDiffs.LICENSE).toMatchObject({ status: 'loaded' });
    t.state().selectEntry('e3');
    await t.settle();
    expect(t.state().selectedPath).toBe('README.md');
    expect(t.state().fileDiffs['README.md']).toMatchObject({ status: 'loaded' });
  });

  it('asks before applying, then applies every file, or only the files and hunks left accepted', async () => {
    const t = testRuntime();
    t.fake.plan = makePlan({ phase: 'apply' });
    t.fake.entries = [makeEntry('e1', 'README.md'), makeEntry('e2', 'LICENSE'), makeEntry('e3', 'NOTES')];
    t.fake.on('plans.review', () => ({
      changesetId: 'CS1',
      files: reviewOf(t.fake.entries).map((f) =>
        f.path === 'README.md'
          ? { ...f, units: 2, hunks: [1, 2].map((index) => ({ index, header: '@@', insertions: 1, deletions: 0, key: `k${index}`, applied: false })) }
          : f,
      ),
    }));
    t.state().openPlan('P1');
    await t.settle();
    await t.state().applySelected();
    expect(t.state().applyStatus).toBe('confirming');
    expect(t.fake.callsTo('plans.apply')).toEqual([]);
    await t.state().confirmApply();
    t.state().togglePath('LICENSE');
    t.state().toggleHunk('README.md', 1);
    await t.state().applySelected();
    await t.state().confirmApply();
    expect(t.fake.callsTo('plans.apply')).toEqual([{ planId: 'P1' }, { planId: 'P1', paths: ['NOTES'], hunks: { 'README.md': [2] } }]);
  });

  it('keeps the conflicts of an apply, per file', async () => {
    const t = testRuntime();
    t.fake.plan = makePlan({ phase: 'apply' });
    t.fake.entries = [makeEntry('e1', 'README.md')];
    t.fake.on('plans.apply', () => ({ planId: 'P1', applied: [], conflicts: [{ path: 'README.md', expectedHash: 'a', actualHash: 'z' }], skipped: [], remaining: ['README.md'], complete: false }));
    t.state().openPlan('P1');
    await t.settle();
    await t.state().runAction('apply');
    await t.state().confirmApply();
    expect(t.state().applyResult?.conflicts.map((c) => c.path)).toEqual(['README.md']);
    expect(t.state().status.text).toContain('1 file changed in the project');
  });
});

describe('jumping to the next failure', () => {
  it('opens the next errored plan and selects its failed step', async () => {
    const t = testRuntime();
    t.fake.plans = [makeListItem({ id: 'ok' }), makeListItem({ id: 'P1', processingState: 'errored', needsAttention: true })];
    t.fake.plan = makePlan({ processingState: 'errored' });
    t.fake.decisions = [makeDecision('root', null, 0), makeDecision('s1', 'root', 0, { status: 'failed' })];
    t.runtime.start();
    await t.settle();
    t.state().jumpToNextFailure();
    await t.settle();
    expect(t.state().planId).toBe('P1');
    expect(t.state().selectedDecisionId).toBe('s1');
    expect(t.state().focusRegion).toBe('tree');
  });

  it('says so when nothing failed', async () => {
    const t = testRuntime();
    t.fake.plans = [makeListItem()];
    t.runtime.start();
    await t.settle();
    t.state().jumpToNextFailure();
    expect(t.state().status.text).toBe('No failures');
  });
});
