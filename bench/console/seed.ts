import { resolveProfile } from '../../shared/profiles';
import type { ChangeEntry } from '../../shared/changes';
import type { Plan, StrategyDecision } from '../../shared/domain';
import type { StreamEvent, StreamEventType } from '../../shared/events';
import { newId } from '../../shared/ids';
import { openStores } from '../../main/persistence';

/** What a seeded plan is made of. */
export interface SeedSpec {
  name: string;
  decisions: number;
  events: number;
  changedFiles: number;
}

export interface SeededPlan {
  planId: string;
  rootId: string;
  decisionIds: string[];
  lastSeq: number;
  changedFiles: number;
}

const EVENT_BATCH = 10_000;

/**
 * Writes plans straight into `<dataDir>/agents.db` through the stores, in big transactions: a plan
 * awaiting apply, its decision tree (a root, then groups of about 100 steps), its event history and
 * a changeset of small modified files. Much faster than running a plan, and the same rows.
 */
export async function seedPlans(dataDir: string, specs: readonly SeedSpec[]): Promise<SeededPlan[]> {
  const stores = openStores(dataDir);
  try {
    const seeded: SeededPlan[] = [];
    for (const spec of specs) seeded.push(await seedPlan(stores, spec));
    return seeded;
  } finally {
    stores.close();
  }
}

async function seedPlan(stores: ReturnType<typeof openStores>, spec: SeedSpec): Promise<SeededPlan> {
  const now = new Date().toISOString();
  const planId = newId();
  const rootId = newId();
  const plan: Plan = {
    id: planId,
    name: spec.name,
    description: `A synthetic plan: ${spec.decisions} decisions, ${spec.events} events, ${spec.changedFiles} changed files`,
    definitionOfDone: '- every module migrated\n- tests green',
    invariants: ['public API unchanged'],
    automationProfile: resolveProfile('trusted'),
    projectPath: null,
    phase: 'apply',
    processingState: 'queued',
    decisionRootId: rootId,
    changesetId: null,
    sandboxRefs: [],
    errorMessage: null,
    errorDetails: {},
    waitingFor: null,
    projectInvariants: null,
    createdAt: now,
    updatedAt: now,
  };
  await stores.plans.insert(plan);

  // A root, groups of (up to) 100 children each: two levels, every node expanded by default.
  const decisions: StrategyDecision[] = [];
  const decision = (id: string, parentId: string | null, type: StrategyDecision['type'], order: number, description: string): StrategyDecision => ({
    id,
    planId,
    parentId,
    type,
    order,
    description,
    rationale: `Because step ${order} keeps the change reviewable and the tests green.`,
    toolCalls: type === 'prompt_definition' ? [] : [{ tool: 'file.write', args: { path: `src/module-${order}.ts` } }],
    status: 'done',
    createdAt: now,
    updatedAt: now,
  });
  decisions.push(decision(rootId, null, 'prompt_definition', 0, spec.name));
  let parent = rootId;
  let childOrder = 0;
  let groupOrder = 0;
  for (let i = 1; i < spec.decisions; i++) {
    if (i % 100 === 1) {
      parent = newId();
      decisions.push(decision(parent, rootId, 'strategy_choice', groupOrder++, `Migrate package ${groupOrder}`));
      childOrder = 0;
      continue;
    }
    decisions.push(decision(newId(), parent, 'strategy_choice', childOrder++, `Rewrite module ${i} to the new API`));
  }
  await stores.plans.saveDecisions(decisions);
  const decisionIds = decisions.map((d) => d.id);

  // The event history, in batches of one transaction each.
  const types: StreamEventType[] = ['tool_call_started', 'tool_call_finished', 'change_recorded', 'decision_status', 'execute_step'];
  const appendBatch = (batch: StreamEvent[]) =>
    stores.atomically(async () => {
      for (const event of batch) await stores.events.append(event);
    });
  let batch: StreamEvent[] = [];
  for (let seq = 1; seq <= spec.events; seq++) {
    const type = types[seq % types.length];
    const decisionId = decisionIds[seq % decisionIds.length];
    const ts = new Date(Date.parse(now) + seq).toISOString();
    const path = `src/module-${seq % 2000}.ts`;
    const entry = { id: `entry-${seq}`, path, oldPath: null, operation: 'modify', beforeHash: null, afterHash: null, binary: false, decisionId, invocationId: `inv-${seq}`, insertions: 2, deletions: 2 } as const;
    const event: StreamEvent =
      type === 'tool_call_started'
        ? { planId, seq, ts, type, data: { decisionId, tool: 'file.write', args: { path } } }
        : type === 'tool_call_finished'
          ? { planId, seq, ts, type, data: { decisionId, invocationId: `inv-${seq}`, tool: 'file.write', ok: true, durationMs: 3 } }
          : type === 'change_recorded'
            ? { planId, seq, ts, type, data: { entry } }
            : type === 'decision_status'
              ? { planId, seq, ts, type, data: { decisionId, status: 'done' } }
              : { planId, seq, ts, type: 'execute_step', data: { decisionId, index: (seq % 100) + 1, total: 100, description: `Rewrite module ${seq}` } };
    batch.push(event);
    if (batch.length === EVENT_BATCH) {
      await appendBatch(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await appendBatch(batch);

  // The changeset: small files with a couple of changed lines each.
  const changesetId = await stores.changesets.start(planId);
  const entries: ChangeEntry[] = [];
  for (let i = 0; i < spec.changedFiles; i++) {
    const lines = Array.from({ length: 20 }, (_, n) => `export const value${n} = ${n};`);
    const after = [...lines];
    after[5] = `export const value5 = ${i};`;
    after.push(`export const added = ${i};`);
    entries.push({
      id: newId(),
      path: `src/pkg-${Math.floor(i / 100)}/module-${i}.ts`,
      oldPath: null,
      operation: 'modify',
      beforeHash: `b${i}`,
      afterHash: `a${i}`,
      beforeText: `${lines.join('\n')}\n`,
      afterText: `${after.join('\n')}\n`,
      binary: false,
      decisionId: decisionIds[(i % (decisionIds.length - 1)) + 1] ?? null,
      invocationId: null,
      createdAt: now,
    });
  }
  await stores.changesets.recordMany(changesetId, entries);
  await stores.plans.update(planId, { changesetId });

  return { planId, rootId, decisionIds, lastSeq: spec.events, changedFiles: spec.changedFiles };
}
