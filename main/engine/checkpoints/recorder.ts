import type { CheckpointSummary } from '../../../shared/checkpoints';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { newId } from '../../../shared/ids';
import type { ChangeSetStore } from '../ports/changeset-store';
import type { InvocationLog } from '../ports/invocation-log';
import { builtinTools } from '../tools';
import type { CheckpointStore, StoredCheckpoint } from './checkpoint-store';
import { deltaBetween, filesChanged, foldDeltas, type Manifest, type ManifestDelta, refreshPaths, scanManifest } from './manifest';
import type { ObjectStore } from './object-store';

export interface StepStart {
  plan: Plan;
  sandboxRoot: string;
  /** The plan's steps in tree order; `step` is the 1-based number of `decision` among them. */
  steps: readonly StrategyDecision[];
  /** Every decision of the plan, for their states. */
  decisions: readonly StrategyDecision[];
  decision: StrategyDecision;
  step: number;
}

/** The built-in tools that only read or write files the changeset names; every other tool (shell.run, an MCP server's, all `exec`) may change anything. */
let fileTools: ReadonlySet<string> | undefined;
function runsCommands(tool: string): boolean {
  fileTools ??= new Set(builtinTools().filter((t) => t.effect !== 'exec').map((t) => t.name));
  return !fileTools.has(tool);
}

/**
 * Takes a checkpoint as a step starts. The first one reads the whole sandbox (and stores each
 * distinct content once); each later one looks only at the paths the changeset recorded since the
 * previous checkpoint, unless a command ran since (shell.run or an MCP server's tool) (it may have changed a mode, which the
 * changeset does not record): then the whole tree is stat-ed, and only files whose stat changed are read.
 */
export class CheckpointRecorder {
  /** The last manifest taken per plan, so the next checkpoint need not fold every delta again. */
  private readonly last = new Map<string, { id: string; changesetId: string | null; manifest: Manifest }>();

  constructor(
    private readonly store: CheckpointStore,
    private readonly objects: ObjectStore,
    private readonly changesets: ChangeSetStore,
    private readonly invocations: Pick<InvocationLog, 'listForDecision'>,
  ) {}

  /** The checkpoint taken, or null when the step has one already (it started before: a retry keeps what it held before its first start). */
  async record(start: StepStart): Promise<StoredCheckpoint | null> {
    const { plan, decision, step } = start;
    // Summaries only: the deltas (the first holds every file) are read when this process has no manifest of its own.
    const existing = await this.store.summaries(plan.id);
    if (existing.some((c) => c.step === step && c.decisionId === decision.id)) return null;
    const previous = existing.filter((c) => c.step < step).at(-1);
    const changesetId = plan.changesetId;
    const entries = changesetId ? await this.changesets.countEntries(changesetId) : 0;

    let manifest: Manifest;
    let delta: ManifestDelta;
    let changed: number;
    if (!previous) {
      manifest = await scanManifest(start.sandboxRoot, this.objects);
      delta = Object.fromEntries(manifest);
      changed = [...manifest.values()].filter((e) => e.kind !== 'dir').length;
    } else {
      let cached = this.last.get(plan.id);
      if (cached?.id !== previous.id) {
        const earlier = (await this.store.list(plan.id)).filter((c) => c.step <= previous.step);
        cached = { id: previous.id, changesetId: earlier.at(-1)?.changesetId ?? null, manifest: foldDeltas(earlier.map((c) => c.delta)) };
      }
      manifest = cached.manifest;
      if (await this.commandRanSince(previous, start)) {
        const now = await scanManifest(start.sandboxRoot, this.objects, manifest);
        delta = deltaBetween(manifest, now);
      } else {
        delta = await refreshPaths(start.sandboxRoot, this.objects, manifest, await this.pathsSince(changesetId, previous, cached.changesetId));
      }
      changed = filesChanged(manifest, delta);
      for (const [rel, entry] of Object.entries(delta)) {
        if (entry) manifest.set(rel, entry);
        else manifest.delete(rel);
      }
    }
    const checkpoint: StoredCheckpoint = {
      id: newId(),
      planId: plan.id,
      step,
      decisionId: decision.id,
      description: decision.description,
      createdAt: new Date().toISOString(),
      filesChanged: changed,
      entries,
      inputTokens: plan.usage?.inputTokens ?? 0,
      outputTokens: plan.usage?.outputTokens ?? 0,
      delta,
      changesetId,
      decisions: Object.fromEntries(start.decisions.map((d) => [d.id, d.status])),
      usage: plan.usage ?? null,
    };
    await this.store.add(checkpoint);
    this.last.set(plan.id, { id: checkpoint.id, changesetId, manifest });
    return checkpoint;
  }

  /** The paths the changeset's entries since `previous` touched (rewound ones too: a rewind put those paths back). */
  private async pathsSince(changesetId: string | null, previous: CheckpointSummary, previousChangeset: string | null): Promise<string[]> {
    if (!changesetId) return [];
    const offset = previousChangeset === changesetId ? previous.entries : 0;
    const metas = await this.changesets.listEntryMeta(changesetId, { offset, limit: Math.max(1, (await this.changesets.countEntries(changesetId)) - offset) });
    return metas.flatMap((m) => (m.oldPath ? [m.path, m.oldPath] : [m.path]));
  }

  /** Whether a step run since `previous` called a tool that runs commands (shell.run, an MCP server's tool). */
  private async commandRanSince(previous: CheckpointSummary, start: StepStart): Promise<boolean> {
    const from = start.steps.findIndex((d) => d.id === previous.decisionId);
    const ran = start.steps.slice(Math.max(0, from), start.step - 1);
    for (const d of ran) if ((await this.invocations.listForDecision(d.id)).some((i) => runsCommands(i.tool))) return true;
    return false;
  }

  /** Forgets what is kept for a plan (its checkpoints were changed by a rewind in this process, or elsewhere). */
  forget(planId: string): void {
    this.last.delete(planId);
  }
}
