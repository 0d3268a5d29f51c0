import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { costOf, ModelRefSchema } from '../../../shared/agent';
import type { ForkOrigin, ForkResult } from '../../../shared/checkpoints';
import { normalizeCheck } from '../../../shared/checks';
import { childrenByParent, stepsInOrder } from '../../../shared/decision-tree';
import type { ChangeEntry } from '../../../shared/changes';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { parseOrThrow, ValidationError } from '../../../shared/errors';
import { newId } from '../../../shared/ids';
import type { BothChanged, CompareSide, PlanCompare } from '../../../shared/plan-compare';
import type { StreamEvent, StreamEventType } from '../../../shared/events';
import { statusLabel } from '../../../shared/vocabulary';
import { isBinary } from '../../engine/run/change-capture';
import { formatGitDiff } from '../../engine/changeset/diff';
import { lineDiff, structuredHunks } from '../../engine/changeset/line-diff';
import { netChanges } from '../../engine/changeset/net';
import { reviewChanges } from '../../engine/changeset/review';
import { checkpointsThrough, fillNewFolder, foldDeltas, forkCheckpoints, forkUsage } from '../../engine/checkpoints';
import { contentHashes } from '../../engine/checkpoints/shared-objects';
import { parseDefinitionOfDone } from '../../engine/run/strategize-actor';
import { SANDBOXES_FOLDER } from '../../persistence/data-dir';
import { type LoadedPlanFile, loadPlanFile, loadProfile, parsePlanText, validatePlanFile } from '../plan-file';
import type { ProjectPolicy } from '../project-policy';
import { recordModel } from '../settings';
import { acpSettingsOf, planAgentOf } from '../acp-agents';
import { actionGuard } from './actions';
import type { PlanContext } from './plan-context';
import type { RunRegistry } from './run-registry';

/** What a fork changes: another profile, another model (an agent plan), or other steps from `atStep` on (a plan file, as replan takes). */
export interface ForkRequest {
  by: string;
  atStep: number;
  profile?: string;
  model?: string;
  /** Another coding agent (ACP) by name: the same steps run by another agent, for `plan compare`. */
  agent?: string;
  /** A plan file on this host whose definition of done holds the steps from `atStep` on. */
  file?: string;
  /** The same file's text (the console sends it; no host path crosses the contract). */
  content?: string;
}

/** The steps a plan file gives, as `replan --file` reads them; undefined when the request names none. */
function newSteps(ctx: PlanContext, request: ForkRequest, baseDir: string, policy?: ProjectPolicy) {
  if (request.file !== undefined && request.content !== undefined) throw new ValidationError('file', 'give a plan file or its content, not both');
  let loaded: LoadedPlanFile | undefined;
  if (request.file !== undefined) loaded = loadPlanFile(request.file, ctx.registry);
  else if (request.content !== undefined) loaded = validatePlanFile(parsePlanText(request.content, 'content'), baseDir, ctx.registry, {}, policy);
  if (!loaded) return undefined;
  const steps = parseDefinitionOfDone(loaded.plan.definitionOfDone);
  if (steps.length === 0) throw new ValidationError(request.file !== undefined ? '--file' : 'content', `${loaded.plan.name} holds no steps`);
  return { name: loaded.plan.name, steps };
}

/** The agent plan's model, changed to `model` and recorded as a new plan records it. */
function forkModel(ctx: PlanContext, origin: Plan, model: string | undefined): Plan['agent'] {
  if (model === undefined) return origin.agent;
  if (!origin.agent) throw new ValidationError('model', `plan ${origin.id} is not an agent plan; only an agent plan has a model`);
  const ref = parseOrThrow(ModelRefSchema, model, 'model');
  return recordModel({ ...origin.agent, model: ref, baseUrl: undefined }, ctx.env, ctx.options.settings);
}

/**
 * The decisions the fork starts with: the origin's root and steps, and what was recorded under
 * them before the checkpoint; the steps before `atStep` as the checkpoint holds them (shared, not
 * run again), the later ones pending, or replaced by `replacement`.
 */
async function copyDecisions(ctx: PlanContext, origin: Plan, forkId: string, atStep: number, checkpointAt: string, statusAt: Record<string, StrategyDecision['status']>, replacement: ReturnType<typeof newSteps>) {
  const all = await ctx.lifecycle.listDecisions(origin.id);
  const steps = stepsInOrder(all);
  const later = new Set(steps.slice(atStep - 1).map((d) => d.id));
  const children = childrenByParent(all);
  const ids = new Map<string, string>();
  /** The origin's decisions the fork shares: everything copied but the steps it runs again. */
  const sharedIds = new Set<string>();
  const copies: StrategyDecision[] = [];
  const now = new Date().toISOString();
  const walk = (parent: string | null, forkParent: string | null) => {
    for (const d of children.get(parent) ?? []) {
      const step = d.type === 'strategy_choice';
      // What the origin recorded after the checkpoint (its retries, rewinds, answers) is its own history.
      if (!step && d.createdAt > checkpointAt) continue;
      if (step && later.has(d.id) && replacement) continue;
      const id = newId();
      ids.set(d.id, id);
      const status = later.has(d.id) ? 'pending' : step ? (statusAt[d.id] ?? 'skipped') : (statusAt[d.id] ?? d.status);
      copies.push({ ...d, id, planId: forkId, parentId: forkParent, status, updatedAt: now });
      // Nothing recorded under a step the fork runs again is the fork's.
      if (later.has(d.id)) continue;
      sharedIds.add(d.id);
      walk(d.id, id);
    }
  };
  walk(null, null);
  const root = copies.find((d) => d.parentId === null && d.type === 'prompt_definition') ?? null;
  if (replacement && root) {
    let order = Math.max(0, ...copies.filter((d) => d.parentId === root.id).map((d) => d.order)) + 1;
    for (const step of replacement.steps) {
      copies.push({
        id: newId(),
        planId: forkId,
        parentId: root.id,
        type: 'strategy_choice',
        order: order++,
        description: step.step,
        rationale: step.rationale ?? `Forked: ${step.tools.map((t) => t.tool).join(', ') || 'no tool calls'}`,
        toolCalls: step.tools,
        ...(step.check ? { check: normalizeCheck(step.check, 'step') } : {}),
        status: 'pending',
        createdAt: now,
        updatedAt: now,
      });
    }
  }
  const shared = steps.slice(0, atStep - 1).filter((d) => ids.has(d.id));
  return { copies, ids, sharedIds, root, shared };
}

/** Each event of a plan's of type `type`, oldest first. */
async function eventsOf(ctx: PlanContext, planId: string, type: StreamEventType): Promise<StreamEvent[]> {
  const found: StreamEvent[] = [];
  for (let after = 0; ; ) {
    const page = await ctx.stores.events.list(planId, after, 5000);
    found.push(...page.filter((e) => e.type === type));
    if (page.length < 5000) return found;
    after = page[page.length - 1].seq;
  }
}

/**
 * Whether a call of the origin's step `step` (numbered from 1) is part of what the fork shares: made
 * before the checkpoint, and not undone by a later rewind back over its step (that is history, as
 * the rewound changes are).
 */
async function sharedCall(ctx: PlanContext, planId: string, checkpointAt: string) {
  const rewinds = (await eventsOf(ctx, planId, 'plan_rewound')).map((e) => ({ at: e.ts, toStep: (e.data as { toStep: number }).toStep }));
  return (startedAt: string, step: number) => startedAt <= checkpointAt && !rewinds.some((r) => r.toStep <= step && r.at > startedAt && r.at <= checkpointAt);
}

/** The origin's changeset entries before the checkpoint, under the fork's decisions and calls (entries a rewind made history stay behind). */
async function copyEntries(ctx: PlanContext, changesetId: string | null, upTo: number, decisions: ReadonlyMap<string, string>, invocations: ReadonlyMap<string, string>) {
  const entries = changesetId ? (await ctx.stores.changesets.listEntries(changesetId, { offset: 0, limit: Math.max(1, upTo) })).slice(0, upTo) : [];
  // kept[n]: of the origin's first n entries, how many the fork has.
  const kept = [0];
  const copies: ChangeEntry[] = [];
  for (const entry of entries) {
    if (!entry.rewound) {
      copies.push({
        ...entry,
        id: newId(),
        decisionId: entry.decisionId === null ? null : (decisions.get(entry.decisionId) ?? null),
        invocationId: entry.invocationId === null ? null : (invocations.get(entry.invocationId) ?? null),
      });
    }
    kept.push(copies.length);
  }
  return { copies, entries: (n: number) => kept[Math.min(n, kept.length - 1)] };
}

/** Milliseconds a plan spent processing, from its state changes; `until`: only before that time. */
async function runningTime(ctx: PlanContext, planId: string, until?: string): Promise<number> {
  let total = 0;
  let since: number | null = null;
  for (const event of await eventsOf(ctx, planId, 'state_changed')) {
    if (until !== undefined && event.ts > until) break;
    const at = Date.parse(event.ts);
    const to = (event.data as { to: string }).to;
    if (to === 'processing' && since === null) since = at;
    else if (to !== 'processing' && since !== null) {
      total += at - since;
      since = null;
    }
  }
  if (since !== null) total += (until !== undefined ? Date.parse(until) : Date.now()) - since;
  return Math.max(0, total);
}

/** A fork counts its origin's time before the step it was forked at, and so on up the line. */
async function timeWithOrigins(ctx: PlanContext, plan: Plan): Promise<number> {
  let total = await runningTime(ctx, plan.id);
  for (let from = plan.forkedFrom, depth = 0; from && depth < 100; depth++) {
    total += await runningTime(ctx, from.planId, from.checkpointAt);
    from = (await ctx.stores.plans.get(from.planId))?.forkedFrom;
  }
  return total;
}

/** What one plan changed (netted, as the review shows it) and what its run took. */
async function side(ctx: PlanContext, plan: Plan): Promise<{ side: CompareSide; results: Map<string, Buffer | null> }> {
  const entries = plan.changesetId ? ((await ctx.stores.changesets.get(plan.changesetId))?.entries ?? []) : [];
  const files = reviewChanges(entries, await ctx.stores.applied.list(plan.id)).map(({ path, oldPath, operation, binary, insertions, deletions }) => ({ path, oldPath, operation, binary, insertions, deletions }));
  // Each path's content at the end of the run (null: not there); a rename leaves its old path empty.
  const results = new Map<string, Buffer | null>();
  for (const change of netChanges(entries)) {
    results.set(change.path, change.after);
    if (change.oldPath && !results.has(change.oldPath)) results.set(change.oldPath, null);
  }
  const steps = stepsInOrder(await ctx.lifecycle.listDecisions(plan.id));
  const usage = plan.usage ?? { inputTokens: 0, outputTokens: 0 };
  return {
    results,
    side: {
      planId: plan.id,
      name: plan.name,
      status: statusLabel(plan),
      files,
      stepsDone: steps.filter((d) => d.status === 'done').length,
      steps: steps.length,
      toolCalls: (await ctx.stores.invocations.listForPlan(plan.id)).length,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cost: plan.usage ? costOf(plan.usage, ctx.options.settings.read().price) : null,
      durationMs: await timeWithOrigins(ctx, plan),
    },
  };
}

/** How the first result differs from the second, with the review's diff code. */
function difference(path: string, a: Buffer | null, b: Buffer | null): BothChanged {
  const binary = isBinary(a) || isBinary(b);
  const same = a === null ? b === null : b !== null && a.equals(b);
  if (same || binary) return { path, same, binary, hunks: null, diff: null, insertions: 0, deletions: 0 };
  const diff = lineDiff(a?.toString('utf8') ?? '', b?.toString('utf8') ?? '');
  const operation = a === null ? 'create' : b === null ? 'delete' : 'modify';
  const text = formatGitDiff({ path, oldPath: null, operation, before: a, after: b, beforeHash: null, afterHash: null, beforeMode: null, afterMode: null }, { binary: 'omit' }, diff);
  return {
    path,
    same,
    binary,
    hunks: structuredHunks(diff),
    diff: text,
    insertions: diff.hunks.reduce((n, h) => n + h.insertions, 0),
    deletions: diff.hunks.reduce((n, h) => n + h.deletions, 0),
  };
}

/** Fork a plan at a step, and compare two plans' runs (README.md, "Checkpoints"). */
export function planForking(ctx: PlanContext, registry: RunRegistry) {
  const { stores, lifecycle } = ctx;
  const guard = actionGuard(ctx, registry);
  return {
    /**
     * A new plan that shares the origin's steps before `atStep` (their decisions, changes, calls and
     * tokens: not run again) and goes on from that step's checkpoint with the profile, model or
     * steps the request changes. Its sandbox is made from the checkpoint. Not run: `run` does that.
     */
    async fork(planId: string, request: ForkRequest, baseDir = process.cwd(), policy?: ProjectPolicy): Promise<{ plan: Plan; fork: ForkResult }> {
      await guard.require('fork', planId);
      // Held: no run, rewind or apply of the origin starts while its checkpoint is copied.
      return registry.hold(planId, async () => {
        const origin = await guard.requireHeld('fork', planId);
        const { atStep } = request;
        const steps = stepsInOrder(await lifecycle.listDecisions(planId));
        if (!Number.isInteger(atStep) || atStep < 1 || atStep > steps.length) {
          throw new ValidationError('atStep', `${atStep} is out of range: plan ${planId} has steps 1 to ${steps.length}`);
        }
        const chain = await checkpointsThrough(stores.checkpoints, planId, atStep);
        if (!chain) {
          const last = (await stores.checkpoints.summaries(planId)).at(-1)?.step ?? 0;
          throw new ValidationError('atStep', `step ${atStep} has no checkpoint: it has not started yet (plan ${planId} has checkpoints before steps 1 to ${last})`);
        }
        // Everything the request names is checked before anything is made.
        const profile = request.profile === undefined ? origin.automationProfile : loadProfile(request.profile);
        if (request.agent !== undefined && request.model !== undefined) throw new ValidationError('agent', 'give another agent or another model, not both');
        if (request.agent !== undefined && !origin.agent && !origin.acp) throw new ValidationError('agent', `plan ${origin.id} is a scripted plan: its steps are tool calls, which no agent runs`);
        // Onto another agent: recorded as a new plan records the one its file names.
        const acp = request.agent !== undefined ? planAgentOf({ acp: request.agent }, acpSettingsOf(ctx.options.settings), ctx.env) : origin.acp;
        const agent = request.agent !== undefined ? undefined : forkModel(ctx, origin, request.model);
        const replacement = newSteps(ctx, request, baseDir, policy);
        const checkpoint = chain[chain.length - 1];

        const sandboxes = join(ctx.options.dataDir, SANDBOXES_FOLDER);
        // A machine that has run no plan yet has no sandboxes folder (private: sandboxes are copies of projects).
        mkdirSync(sandboxes, { recursive: true, mode: 0o700 });
        const staging = join(sandboxes, `.fork-${newId()}`);
        try {
          // The chain read once: its deltas folded give the files, and the fill their stats (the sandbox's base).
          const files = foldDeltas(chain.map((c) => c.delta));
          await ctx.ensureObjects(contentHashes(files.values()));
          const base = await fillNewFolder(files, ctx.objects, staging);
          const by = request.by;
          const at = new Date().toISOString();
          const forkedFrom: ForkOrigin = { planId, atStep, checkpointAt: checkpoint.createdAt, by, at };
          const changes = {
            ...(request.profile !== undefined ? { profile: profile.name } : {}),
            ...(request.model !== undefined && agent?.model ? { model: agent.model } : {}),
            ...(request.agent !== undefined ? { agent: request.agent } : {}),
            ...(replacement ? { steps: replacement.steps.length } : {}),
          };
          const make = async () => {
            const created = await lifecycle.createPlan({
              agent,
              name: origin.name,
              description: origin.description,
              definitionOfDone: origin.definitionOfDone,
              invariants: origin.invariants,
              automationProfile: profile,
              projectPath: origin.projectPath,
              projectSource: origin.projectSource,
              verify: origin.verify,
            });
            const { copies, ids, sharedIds, root, shared } = await copyDecisions(ctx, origin, created.id, atStep, checkpoint.createdAt, checkpoint.decisions, replacement);
            await lifecycle.saveDecisions(copies);
            // The shared steps' calls, so the fork's tree and counts show them; they are not made again.
            const calls = new Map<string, string>();
            const kept = await sharedCall(ctx, planId, checkpoint.createdAt);
            const stepOf = new Map(steps.map((d, i) => [d.id, i + 1]));
            for (const call of await stores.invocations.listForPlan(planId)) {
              if (call.decisionId === null || !sharedIds.has(call.decisionId) || !kept(call.startedAt, stepOf.get(call.decisionId) ?? 0)) continue;
              const decisionId = ids.get(call.decisionId) ?? null;
              const id = newId();
              calls.set(call.id, id);
              await stores.invocations.record({ ...call, id, planId: created.id, decisionId });
            }
            const entries = await copyEntries(ctx, checkpoint.changesetId, checkpoint.entries, ids, calls);
            const changesetId = checkpoint.changesetId || entries.copies.length > 0 ? await stores.changesets.start(created.id) : null;
            for (const entry of entries.copies) await stores.changesets.record(changesetId as string, entry);
            for (const copy of forkCheckpoints(chain, { planId: created.id, changesetId, decisions: ids, entries: entries.entries })) await stores.checkpoints.add(copy);
            const sandbox = join(sandboxes, created.id);
            await stores.sandboxFiles.recordBase(created.id, base);
            await lifecycle.update(created.id, {
              phase: root ? 'execute' : 'strategize',
              decisionRootId: root?.id ?? null,
              changesetId,
              sandboxRefs: [sandbox],
              usage: forkUsage(checkpoint.usage, { decisions: ids }),
              projectInvariants: origin.projectInvariants,
              forkedFrom,
              ...(origin.mcp ? { mcp: origin.mcp } : {}),
              ...(acp ? { acp } : {}),
            });
            await lifecycle.update(planId, { forks: [...((await ctx.get(planId)).forks ?? []), { planId: created.id, atStep, by, at }] });
            const data = { forkId: created.id, from: planId, atStep, sharedSteps: shared.length, sharedEntries: entries.copies.length, changes };
            await ctx.events.publish(created.id, 'plan_forked', { ...data, by });
            await ctx.events.publish(planId, 'plan_forked', { ...data, by });
            // Last, so a failure before leaves no sandbox behind; a rename within one folder is atomic.
            renameSync(staging, sandbox);
            return { plan: await ctx.get(created.id), fork: data };
          };
          return await lifecycle.unit(make);
        } finally {
          rmSync(staging, { recursive: true, force: true });
        }
      });
    },

    /** Two plans over the same project side by side: the files each changed, the difference between their results where both changed a file, and what each run took. */
    async compare(aId: string, bId: string): Promise<PlanCompare> {
      const a = await ctx.get(aId);
      const b = await ctx.get(bId);
      if (a.id === b.id) throw new ValidationError('plans', `plan ${a.id} given twice; compare needs two plans`);
      if (a.projectPath !== b.projectPath) {
        const over = (p: Plan) => (p.projectPath === null ? 'no project' : p.projectPath);
        throw new ValidationError('plans', `plan ${a.id} is over ${over(a)} and plan ${b.id} over ${over(b)}; compare needs two plans over the same project`);
      }
      const left = await side(ctx, a);
      const right = await side(ctx, b);
      const paths = (m: Map<string, unknown>) => [...m.keys()].sort();
      const both = paths(left.results).filter((p) => right.results.has(p));
      return {
        projectPath: a.projectPath,
        a: left.side,
        b: right.side,
        onlyA: paths(left.results).filter((p) => !right.results.has(p)),
        onlyB: paths(right.results).filter((p) => !left.results.has(p)),
        both: both.map((p) => difference(p, left.results.get(p) ?? null, right.results.get(p) ?? null)),
      };
    },
  };
}

export type PlanForking = ReturnType<typeof planForking>;
