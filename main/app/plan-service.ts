import { mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ChangeEntry, ErrorRecord, Plan, StrategyDecision, ToolInvocation } from '../../shared/domain';
import type { ChangeEntryMeta, PlanListItem } from '../../shared/contract';
import { childrenByParent } from '../../shared/decision-tree';
import type { StreamEvent } from '../../shared/events';
import { PlanError, ValidationError } from '../../shared/errors';
import type { StreamCallback } from '../../shared/events';
import { type ChangeSetStore, toEntryMeta } from '../engine/changeset-store';
import { applyChangeset } from '../engine/changeset/apply';
import { unifiedDiff } from '../engine/changeset/diff';
import { exportPatch } from '../engine/changeset/patch';
import { ErrorRecoveryService, type ErrorRecoveryOptions, recoveryHints, type RecoveryHint, classifyError } from '../engine/error-recovery-service';
import { EventPublisher, type EventLog } from '../engine/event-stream';
import { PlanExecutionContext } from '../engine/execution-context';
import { PlanLifecycleService } from '../engine/lifecycle';
import { PlanExecutor } from '../engine/plan-executor';
import type { PlanRepository } from '../engine/plan-repository';
import type { ErrorLog } from '../engine/recovery';
import { createSandbox, removeSandbox } from '../engine/sandbox/sandbox';
import { TreeChangeTracker } from '../engine/sandbox/tracker';
import { type InvocationLog, ToolRegistry, ToolRunner } from '../engine/tool-runner';
import { registerBuiltinTools } from '../engine/tools';
import { type LoadedPlanFile, loadPlanFile, parsePlanText, validatePlanFile } from './plan-file';
import { RunController } from './run-controller';
import { resolveProfile } from '../../shared/domain';
import type { LeaseStore } from '../engine/leases';

/** Everything the service keeps; SQLite in the app, in memory in some tests. */
export interface EngineStores {
  plans: PlanRepository;
  changesets: ChangeSetStore;
  events: EventLog;
  invocations: InvocationLog;
  errors: ErrorLog;
  leases: LeaseStore;
}

export interface PlanServiceOptions {
  stores: EngineStores;
  /** Where sandboxes live: `<dataDir>/sandboxes/<planId>`. */
  dataDir: string;
  registry?: ToolRegistry;
  recovery?: ErrorRecoveryOptions;
  sleep?: (ms: number) => Promise<void>;
  /** How often a running plan's lease is renewed. */
  heartbeatMs?: number;
}

export interface DecisionNode extends StrategyDecision {
  children: DecisionNode[];
}

export interface DiffEntry extends ChangeEntryMeta {
  diff: string | null;
}

export interface RunOptions {
  streamCallback?: StreamCallback;
  step?: boolean;
  breakpoints?: string[];
}

export interface ApplyResult {
  planId: string;
  applied: string[];
  conflicts: { path: string; expectedHash: string | null; actualHash: string | null; reason?: string }[];
  skipped: string[];
}

/** The operations an operator performs on plans; the CLI, the web host and Electron all call these. */
export class PlanService {
  readonly lifecycle: PlanLifecycleService;
  readonly events: EventPublisher;
  readonly registry: ToolRegistry;
  /** Snapshot caches of shell.run's change capture, one per sandbox; dropped on discard. */
  private readonly tracker = new TreeChangeTracker();
  private readonly controllers = new Map<string, RunController>();
  private readonly runs = new Map<string, Promise<Plan>>();

  constructor(private readonly options: PlanServiceOptions) {
    this.events = new EventPublisher(options.stores.events);
    this.lifecycle = new PlanLifecycleService(options.stores.plans, this.events);
    this.registry = options.registry ?? registerBuiltinTools(new ToolRegistry(), { tracker: this.tracker });
  }

  get stores(): EngineStores {
    return this.options.stores;
  }

  // ---- reading ------------------------------------------------------------

  get(planId: string): Plan {
    return this.lifecycle.getPlan(planId);
  }

  list(): Plan[] {
    return this.lifecycle.listPlans();
  }

  decisions(planId: string): StrategyDecision[] {
    this.get(planId);
    return this.lifecycle.listDecisions(planId);
  }

  tree(planId: string): DecisionNode | null {
    const children = childrenByParent(this.decisions(planId));
    const build = (decision: StrategyDecision): DecisionNode => ({ ...decision, children: (children.get(decision.id) ?? []).map(build) });
    const root = children.get(null)?.find((d) => d.type === 'prompt_definition');
    return root ? build(root) : null;
  }


  /** Plans for the list view: progress, and the ones that need the operator first. */
  listItems(filter: { state?: Plan['processingState']; search?: string } = {}): PlanListItem[] {
    const search = filter.search?.trim().toLowerCase();
    return this.list()
      .filter((p) => (!filter.state || p.processingState === filter.state) && (!search || p.name.toLowerCase().includes(search)))
      .map((plan) => {
        const steps = this.lifecycle.listDecisions(plan.id).filter((d) => d.type === 'strategy_choice');
        const needsAttention =
          plan.processingState === 'errored' || plan.processingState === 'paused' || (plan.phase === 'apply' && plan.processingState === 'queued');
        return { ...plan, progress: { done: steps.filter((d) => d.status === 'done').length, total: steps.length }, needsAttention };
      })
      .sort((a, b) => Number(b.needsAttention) - Number(a.needsAttention));
  }

  /** One page of the changeset's entries, without file contents. */
  changes(planId: string, offset = 0, limit = 500): { changesetId: string | null; total: number; entries: ChangeEntryMeta[] } {
    const plan = this.get(planId);
    if (!plan.changesetId) return { changesetId: null, total: 0, entries: [] };
    const store = this.stores.changesets;
    return {
      changesetId: plan.changesetId,
      total: store.countEntries(plan.changesetId),
      entries: store.listEntryMeta(plan.changesetId, { offset, limit }),
    };
  }

  /** One entry with its contents and diff. */
  change(planId: string, entryId: string): { entry: ChangeEntryMeta & { beforeText: string | null; afterText: string | null }; diff: string | null } {
    const { changesetId } = this.get(planId);
    const entry = changesetId ? this.stores.changesets.getEntry(changesetId, entryId) : undefined;
    if (!entry) throw new ValidationError('entryId', `no change entry "${entryId}" in plan ${planId}`);
    return { entry: { ...toEntryMeta(entry), beforeText: entry.beforeText, afterText: entry.afterText }, diff: unifiedDiff(entry) };
  }

  invocations(planId: string): ToolInvocation[] {
    this.get(planId);
    return this.stores.invocations.listForPlan(planId);
  }

  eventsAfter(planId: string, afterSeq = 0, limit = 1000): { events: StreamEvent[]; lastSeq: number } {
    this.get(planId);
    return { events: this.stores.events.list(planId, afterSeq, limit), lastSeq: this.stores.events.lastSeq(planId) };
  }

  changeEntries(planId: string): ChangeEntry[] {
    const plan = this.get(planId);
    return plan.changesetId ? (this.stores.changesets.get(plan.changesetId)?.entries ?? []) : [];
  }

  diff(planId: string): { planId: string; changesetId: string | null; entries: DiffEntry[] } {
    const plan = this.get(planId);
    const entries = this.changeEntries(planId).map((entry) => ({ ...toEntryMeta(entry), diff: unifiedDiff(entry) }));
    return { planId, changesetId: plan.changesetId, entries };
  }

  patch(planId: string): string {
    return exportPatch(this.changeEntries(planId));
  }

  errors(planId: string): { planId: string; errors: ErrorRecord[]; recoveryHints: RecoveryHint[] } {
    const plan = this.get(planId);
    const errors = this.stores.errors.listForPlan(planId);
    const last = errors.at(-1);
    const hints = plan.processingState === 'errored' ? recoveryHints(planId, last?.category ?? classifyError(null)) : [];
    return { planId, errors, recoveryHints: hints };
  }

  // ---- changing -------------------------------------------------------------

  createFromFile(file: string, overrides: { project?: string; profile?: string } = {}): Plan {
    return this.createFromLoaded(loadPlanFile(file, overrides));
  }

  /**
   * From a plan file's text, as a browser's file picker sends it; nothing is written to disk. An
   * uploaded file has no folder of its own, so a relative `project` resolves against `baseDir`.
   */
  createFromContent(input: { content: string; fileName?: string; project?: string; profile?: string }, baseDir: string): Plan {
    const raw = parsePlanText(input.content, 'content', input.fileName);
    return this.createFromLoaded(validatePlanFile(raw, baseDir, { project: input.project, profile: input.profile }));
  }

  private createFromLoaded({ plan, projectPath }: LoadedPlanFile): Plan {
    return this.lifecycle.createPlan({
      name: plan.name,
      description: plan.description,
      definitionOfDone: plan.definitionOfDone,
      invariants: plan.invariants,
      automationProfile: resolveProfile(plan.automationProfile),
      projectPath,
    });
  }

  /** Strategize (if not done) and execute; stops before apply. Resolves when the run ends. */
  run(planId: string, options: RunOptions = {}): Promise<Plan> {
    const plan = this.get(planId);
    const runnable =
      (plan.phase === 'strategize' && plan.processingState === 'queued') || (plan.phase === 'execute' && plan.processingState === 'queued');
    if (!runnable) {
      throw new PlanError(
        `plan ${planId} is ${plan.processingState} in phase ${plan.phase}; only a queued plan can run` +
          (plan.processingState === 'errored' ? ` (use: agents plan retry ${planId})` : ''),
        'wrong_state',
      );
    }
    return this.track(planId, options, async (executor, controller) => {
      if (this.get(planId).phase === 'strategize') await executor.runStrategize(planId, { streamCallback: options.streamCallback });
      await executor.runExecute(planId, { streamCallback: options.streamCallback, beforeDecision: controller.beforeDecision });
    });
  }

  /** Re-runs the failed phase from the failed decision; decisions already done are not run again. */
  retry(planId: string, options: RunOptions = {}): Promise<Plan> {
    const plan = this.get(planId);
    if (plan.processingState !== 'errored') {
      throw new PlanError(`plan ${planId} is ${plan.processingState}; only an errored plan can be retried`, 'wrong_state');
    }
    if (plan.phase === 'apply') throw new PlanError(`plan ${planId} failed to apply; resolve the conflicts, then apply again`, 'wrong_state');
    const failed = this.lifecycle.listDecisions(planId).find((d) => d.status === 'failed' || d.status === 'running');
    new ErrorRecoveryService(this.stores.errors, this.lifecycle).addRecoveryDecision(
      plan,
      failed?.id ?? null,
      'Retried by the operator',
      `Manual retry of the ${plan.phase} phase${failed ? ` from step "${failed.description}"` : ''}`,
    );
    this.lifecycle.reset(planId);
    return this.run(planId, options);
  }

  reset(planId: string): Plan {
    return this.lifecycle.reset(planId);
  }

  async apply(planId: string, options: { paths?: string[]; force?: boolean } = {}): Promise<ApplyResult> {
    const plan = this.get(planId);
    this.lifecycle.requirePhase(plan, 'apply', ['queued', 'errored']);
    if (!plan.projectPath) throw new PlanError(`plan ${planId} has no project directory to apply to`, 'no_project');
    const result = await applyChangeset(plan.projectPath, this.changeEntries(planId), options);
    const outcome: ApplyResult = { planId, ...result };
    if (result.conflicts.length > 0 && !options.force) {
      this.events.publish(planId, 'apply_complete', { ok: false, ...outcome });
      return outcome;
    }
    if (plan.processingState === 'errored') this.lifecycle.reset(planId);
    this.lifecycle.beginPhase(planId, 'apply');
    this.lifecycle.completePhase(planId, { errorDetails: { ...this.get(planId).errorDetails, applied: result.applied.length, conflicts: result.conflicts.length } });
    this.events.publish(planId, 'apply_complete', { ok: true, ...outcome });
    return outcome;
  }

  async discard(planId: string): Promise<Plan> {
    const plan = this.get(planId);
    if (plan.processingState === 'processing' || this.runs.has(planId)) {
      throw new PlanError(`plan ${planId} is running; pause it or wait for it to finish before discarding`, 'wrong_state');
    }
    if (plan.processingState === 'cancelled' || plan.processingState === 'complete') {
      throw new PlanError(`plan ${planId} is already ${plan.processingState}`, 'wrong_state');
    }
    for (const ref of plan.sandboxRefs) {
      await this.tracker.forget(ref);
      await removeSandbox(ref);
    }
    return this.lifecycle.cancel(planId);
  }

  // ---- stepping -------------------------------------------------------------

  controller(planId: string): RunController {
    const controller = this.controllers.get(planId);
    if (!controller) throw new PlanError(`plan ${planId} is not running in this process`, 'not_running');
    return controller;
  }

  isRunning(planId: string): boolean {
    return this.runs.has(planId);
  }

  /** Resolves when every run started by this service has ended. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.runs.values()]);
  }

  // ---- internals --------------------------------------------------------------

  private track(planId: string, options: RunOptions, body: (executor: PlanExecutor, controller: RunController) => Promise<void>): Promise<Plan> {
    if (this.runs.has(planId)) throw new PlanError(`plan ${planId} is already running`, 'wrong_state');
    const lease = this.stores.leases;
    if (!lease.acquire(planId, process.pid, hostname())) {
      throw new PlanError(`plan ${planId} is being run by another process`, 'wrong_state');
    }
    const heartbeat = setInterval(() => lease.heartbeat(planId, process.pid), this.options.heartbeatMs ?? 2_000);
    heartbeat.unref();
    const controller = new RunController(planId, this.lifecycle, { step: options.step, breakpoints: options.breakpoints });
    this.controllers.set(planId, controller);
    const run = (async () => {
      try {
        const executor = await this.executorFor(planId);
        await body(executor, controller);
      } catch (error) {
        // The executor already recorded the failure on the plan; anything else is a bug worth surfacing.
        if (this.get(planId).processingState !== 'errored') throw error;
      } finally {
        clearInterval(heartbeat);
        lease.release(planId, process.pid);
        this.controllers.delete(planId);
        this.runs.delete(planId);
      }
      return this.get(planId);
    })();
    this.runs.set(planId, run);
    return run;
  }

  private async executorFor(planId: string): Promise<PlanExecutor> {
    const plan = this.get(planId);
    let sandboxRoot = plan.sandboxRefs[0] ?? null;
    if (!sandboxRoot) {
      const sandboxesDir = join(this.options.dataDir, 'sandboxes');
      mkdirSync(sandboxesDir, { recursive: true });
      if (plan.projectPath) {
        sandboxRoot = await createSandbox(plan.projectPath, sandboxesDir, planId);
      } else {
        sandboxRoot = join(sandboxesDir, planId);
        mkdirSync(sandboxRoot, { recursive: true });
      }
      this.lifecycle.update(planId, { sandboxRefs: [sandboxRoot] });
    }
    const context = new PlanExecutionContext({
      planId,
      decisionRootId: plan.decisionRootId,
      sandboxRoot,
      automationProfile: plan.automationProfile.name,
      projectResources: plan.projectPath ? { project: { path: plan.projectPath } } : {},
      changesetStore: this.stores.changesets,
    });
    return new PlanExecutor({
      lifecycleService: this.lifecycle,
      toolRunner: new ToolRunner(this.registry, this.stores.invocations),
      executionContext: context,
      errorRecoveryService: new ErrorRecoveryService(this.stores.errors, this.lifecycle, this.options.recovery),
      sleep: this.options.sleep,
    });
  }
}
