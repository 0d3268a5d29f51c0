import { mkdirSync } from 'node:fs';
import { sampleData } from '../../shared/test-support/sample-events';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { StrategyDecision } from '../../shared/domain';
import type { StreamEvent } from '../../shared/events';
import { newId } from '../../shared/ids';
import { EventPublisher } from '../engine/ports/event-stream';
import { PlanExecutionContext } from '../engine/run/execution-context';
import { RuntimeExecuteActor } from '../engine/run/runtime-execute-actor';
import { ToolRegistry, ToolRunner } from '../engine/run/tool-runner';
import { registerBuiltinTools } from '../engine/tools';
import { createStores, type SqliteStores } from './stores';
import { makeEntry, makeInvocation, tempDatabase } from './test-support/fixtures';

/** Runs a plan's file writes through the actor over SQLite stores on a real file, as PlanService wires them. */
function setup() {
  const temp = tempDatabase();
  const stores = createStores(temp.db);
  const sandboxRoot = path.join(temp.dir, 'sandbox');
  mkdirSync(sandboxRoot);
  const planId = newId();
  const events = new EventPublisher(stores.events);
  const context = new PlanExecutionContext({ planId, sandboxRoot, changesetStore: stores.changesets });
  const actor = new RuntimeExecuteActor({ toolRunner: new ToolRunner(registerBuiltinTools(new ToolRegistry()), stores.invocations), executionContext: context, events });
  const now = new Date().toISOString();
  const decision = (paths: string[]): StrategyDecision => ({
    id: newId(), planId, parentId: null, type: 'strategy_choice', order: 0, description: 'write', rationale: '', status: 'pending', createdAt: now, updatedAt: now,
    toolCalls: paths.map((p) => ({ tool: 'file.write', args: { path: p, content: `${p}\n` } })),
  });
  return { temp, stores, planId, events, actor, decision };
}

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup) fn();
  cleanup = [];
});

describe('a run\'s writes over SQLite: grouped commits, events after the commit', () => {
  it('delivers change_recorded and tool_call_finished only once another connection can read what they announce', async () => {
    const { temp, planId, events, actor, decision } = setup();
    const reader = new DatabaseSync(temp.file, { readOnly: true });
    cleanup.push(() => reader.close(), temp.dispose);
    const checked: string[] = [];
    events.subscribe((event: StreamEvent) => {
      // Another connection sees only committed rows.
      if (event.type === 'change_recorded') {
        expect(reader.prepare('SELECT COUNT(*) AS n FROM change_entries WHERE id = ?').get(event.data.entry.id)).toEqual({ n: 1 });
        checked.push(event.type);
      }
      if (event.type === 'tool_call_finished') {
        expect(reader.prepare('SELECT COUNT(*) AS n FROM tool_invocations WHERE id = ?').get(event.data.invocationId as string)).toEqual({ n: 1 });
        checked.push(event.type);
      }
      expect(reader.prepare('SELECT COUNT(*) AS n FROM events WHERE plan_id = ? AND seq = ?').get(planId, event.seq)).toEqual({ n: 1 });
    });
    await actor.execute([decision(['a.txt', 'b.txt', 'c.txt'])]);
    expect(checked).toEqual(['change_recorded', 'tool_call_finished', 'change_recorded', 'tool_call_finished', 'change_recorded', 'tool_call_finished']);
  });

  it('commits a step\'s start before its first call runs: a retry after a lost connection knows the step started', async () => {
    const { temp, stores, planId, events, decision } = setup();
    const reader = new DatabaseSync(temp.file, { readOnly: true });
    cleanup.push(() => reader.close(), temp.dispose);
    const seen: unknown[] = [];
    const registry = registerBuiltinTools(new ToolRegistry());
    registry.register({
      name: 'probe',
      effect: 'read',
      description: 'reads what another connection sees of its step',
      schema: z.object({}),
      run: async () => {
        seen.push(...reader.prepare("SELECT json_extract(data, '$.status') AS status FROM events WHERE plan_id = ? AND type = 'decision_status'").all(planId).map((r) => r.status));
        return null;
      },
    });
    const context = new PlanExecutionContext({ planId, sandboxRoot: path.join(temp.dir, 'sandbox'), changesetStore: stores.changesets });
    const actor = new RuntimeExecuteActor({ toolRunner: new ToolRunner(registry, stores.invocations), executionContext: context, events });
    await actor.execute([{ ...decision([]), toolCalls: [{ tool: 'probe', args: {} }] }]);
    expect(seen).toEqual(['running']);
  });

  it('keeps the order in which the run emitted its events, across grouped commits', async () => {
    const { temp, planId, stores, actor, decision } = setup();
    cleanup.push(temp.dispose);
    await actor.execute([decision(['a.txt', 'b.txt'])]);
    const types = (await stores.events.list(planId)).map((e) => e.type);
    expect(types).toEqual([
      'runtime_execute_started', 'runtime_execute_step', 'decision_status',
      'tool_call_started', 'change_recorded', 'tool_call_finished',
      'tool_call_started', 'change_recorded', 'tool_call_finished',
      'decision_status', 'runtime_execute_complete',
    ]);
    const started = (await stores.events.list(planId)).filter((e) => e.type === 'tool_call_started').map((e) => (e.data.args as { path: string }).path);
    expect(started).toEqual(['a.txt', 'b.txt']);
    // A finished call's event carries what the tree shows of it: the stored invocation less its args and result.
    const finished = (await stores.events.list(planId)).flatMap((e) => (e.type === 'tool_call_finished' ? [e.data] : []));
    const recorded = await stores.invocations.listForPlan(planId);
    expect(finished).toEqual(recorded.map((i) => ({ decisionId: i.decisionId, invocationId: i.id, tool: i.tool, ok: i.ok, durationMs: i.durationMs, startedAt: i.startedAt })));
  });

  it('atomically keeps all of a unit (entries, invocations, events) or none of it', async () => {
    const temp = tempDatabase();
    cleanup.push(temp.dispose);
    const stores: SqliteStores = createStores(temp.db);
    const planId = newId();
    const changesetId = await stores.changesets.start(planId);
    await expect(stores.changesets.atomically(async () => {
        await stores.changesets.record(changesetId, makeEntry());
        await stores.invocations.record(makeInvocation(planId));
        await stores.events.appendNext(planId, 'change_recorded', sampleData('change_recorded'));
        throw new Error('crash in the middle');
      })).rejects.toThrow('crash in the middle');
    expect(await stores.changesets.countEntries(changesetId)).toBe(0);
    expect(await stores.invocations.listForPlan(planId)).toEqual([]);
    expect(await stores.events.list(planId)).toEqual([]);
    await stores.changesets.atomically(async () => {
      await stores.changesets.record(changesetId, makeEntry());
      await stores.events.appendNext(planId, 'change_recorded', sampleData('change_recorded'));
    });
    expect(await stores.changesets.countEntries(changesetId)).toBe(1);
    expect((await stores.events.list(planId)).map((e) => e.seq)).toEqual([1]);
  });
});
