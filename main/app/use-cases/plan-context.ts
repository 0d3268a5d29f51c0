import type { StreamCallback } from '../../../shared/events';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { stepsInOrder } from '../../../shared/decision-tree';
import type { AppliedLog } from '../../engine/changeset/review';
import type { ChangeSetStore } from '../../engine/ports/changeset-store';
import { captureHandEdits } from '../../engine/changeset/hand-edits';
import { ErrorRecoveryService, type ErrorRecoveryOptions } from '../../engine/run/error-recovery-service';
import { EventPublisher, type EventLog } from '../../engine/ports/event-stream';
import { PlanLifecycleService } from '../../engine/run/lifecycle';
import type { PlanRepository } from '../../engine/ports/plan-repository';
import type { ErrorLog } from '../../engine/ports/recovery';
import type { ApprovalStore } from '../../engine/ports/approvals';
import type { LeaseStore } from '../../engine/ports/leases';
import type { SandboxFileStore } from '../../engine/sandbox/sandbox-files';
import type { CheckResultStore } from '../../engine/checks/check-store';
import type { CheckpointStore } from '../../engine/checkpoints/checkpoint-store';
import { ObjectStore } from '../../engine/checkpoints/object-store';
import { CheckpointRecorder } from '../../engine/checkpoints/recorder';
import { MirroredObjectStore, type SharedObjects } from '../../engine/checkpoints/shared-objects';
import { join } from 'node:path';
import { OBJECTS_FOLDER } from '../../persistence/data-dir';
import type { InvocationLog } from '../../engine/ports/invocation-log';
import { ToolRegistry } from '../../engine/run/tool-runner';
import { registerBuiltinTools } from '../../engine/tools';
import type { ModelConfig } from '../../engine/model/model-config';
import { recordModel, resolveModelConfig, type SettingsStore } from '../settings';
import type { RunRegistry } from './run-registry';
import type { RunDispatch } from '../run-vocabulary';

/** Everything the use cases keep; SQLite in the app, in memory in some tests. */
export interface EngineStores {
  plans: PlanRepository;
  changesets: ChangeSetStore;
  events: EventLog;
  invocations: InvocationLog;
  errors: ErrorLog;
  leases: LeaseStore;
  applied: AppliedLog;
  approvals: ApprovalStore;
  sandboxFiles: SandboxFileStore;
  checks: CheckResultStore;
  checkpoints: CheckpointStore;
  /** Several reads on one snapshot, where the stores share a database other processes write to. */
  readTogether?<T>(read: () => Promise<T>): Promise<T>;
  /** One transaction over every store, where they share a database: a read-modify-write no other task's write can split. */
  atomically?<T>(fn: () => Promise<T>): Promise<T>;
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
  /** The model settings of the data directory (`agents config`, the console's Settings). */
  settings: SettingsStore;
  /** Where AGENTS_MODEL, AGENTS_BASE_URL and AGENTS_API_KEY are read; default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** The largest project a sandbox copies; default 1 GiB. */
  maxProjectBytes?: number;
  /**
   * Team mode, in a process that does not run plans (the CLI, a console): runs go to the team's
   * queue and a worker runs them. Without it, runs run in this process.
   */
  dispatch?: RunDispatch;
  /** Team mode: checkpointed file contents in the database, so any worker can rewind or fork what another recorded. */
  sharedObjects?: SharedObjects;
  /**
   * A run of a plan whose sandbox is gone, or is not this data directory's (made on another
   * machine or by another worker), remakes it at `<dataDir>/sandboxes/<planId>` from its base and
   * the recorded changes instead of refusing. Workers set it.
   */
  remakeSandboxes?: boolean;
}

/**
 * Who answers an approval or applies a recovery: the operator's name (main/app/operator.ts) and
 * the machine the answer is given on (default: this process's, where the answer is recorded).
 */
export interface Answer {
  by: string;
  host?: string;
  reason?: string;
}

/** What every use case shares: the stores, the lifecycle and its events, the tools, the model settings. */
export class PlanContext {
  readonly stores: EngineStores;
  readonly events: EventPublisher;
  readonly lifecycle: PlanLifecycleService;
  private tools?: ToolRegistry;
  /** One for the process: the executor, a failed start and a manual retry record through it. */
  readonly recovery: ErrorRecoveryService;
  /** Checkpoints' file contents, `<dataDir>/objects`, and what takes a checkpoint as each step starts. */
  readonly objects: ObjectStore;
  readonly checkpoints: CheckpointRecorder;

  constructor(
    readonly options: PlanServiceOptions,
    private readonly runs: RunRegistry,
  ) {
    this.stores = options.stores;
    this.events = new EventPublisher(options.stores.events);
    const { stores } = options;
    this.lifecycle = new PlanLifecycleService(stores.plans, this.events, stores.atomically ? (fn) => stores.atomically!(fn) : undefined);
    this.recovery = new ErrorRecoveryService(options.stores.errors, this.lifecycle, options.recovery);
    const objectsDir = join(options.dataDir, OBJECTS_FOLDER);
    this.objects = options.sharedObjects ? new MirroredObjectStore(objectsDir, options.sharedObjects) : new ObjectStore(objectsDir);
    this.checkpoints = new CheckpointRecorder(options.stores.checkpoints, this.objects, options.stores.changesets, options.stores.invocations);
  }

  /** The tools, the built-in ones registered when a command first asks for them (reading never does). */
  get registry(): ToolRegistry {
    return (this.tools ??= this.options.registry ?? registerBuiltinTools(new ToolRegistry(), { tracker: this.runs.tracker }));
  }

  /** The checkpointed contents among `hashes` brought into this machine's folder, where a team shares them. */
  async ensureObjects(hashes: Iterable<string>): Promise<void> {
    if (this.objects instanceof MirroredObjectStore) await this.objects.ensure(hashes);
  }

  get env(): NodeJS.ProcessEnv {
    return this.options.env ?? process.env;
  }

  get(planId: string): Promise<Plan> {
    return this.lifecycle.getPlan(planId);
  }

  /** Hands the plan's events to `streamCallback` too while `body` runs: those published outside the executor's own. */
  async streaming<T>(planId: string, streamCallback: StreamCallback | undefined, body: () => Promise<T>): Promise<T> {
    const unsubscribe = streamCallback ? this.events.subscribe((event) => event.planId === planId && streamCallback(event)) : undefined;
    try {
      return await body();
    } finally {
      unsubscribe?.();
    }
  }

  /** The model an agent plan uses; a one-line ValidationError names the setting that is missing. */
  modelConfig(agent: NonNullable<Plan['agent']>): ModelConfig {
    return resolveModelConfig(agent, this.env, this.options.settings);
  }

  /**
   * The plan's model recorded on it if it has none yet (a plan made before plans kept theirs);
   * throws a one-line ModelSettingError when this process cannot use it.
   */
  async pinModel(plan: Plan): Promise<Plan> {
    if (!plan.agent) return plan;
    const agent = recordModel(plan.agent, this.env, this.options.settings);
    // In team mode the worker that runs the plan needs the model's key, not this process.
    if (!this.options.dispatch) this.modelConfig(agent);
    return agent === plan.agent ? plan : this.lifecycle.update(plan.id, { agent });
  }

  async failedStep(planId: string): Promise<StrategyDecision | undefined> {
    return stepsInOrder(await this.lifecycle.listDecisions(planId)).find((d) => d.status === 'failed' || d.status === 'running');
  }

  /**
   * Records what the operator changed by hand in the plan's sandbox as changes of origin
   * `operator` (main/engine/changeset/hand-edits.ts); with `only`, just those paths.
   */
  async captureHandEdits(plan: Pick<Plan, 'id' | 'projectPath' | 'sandboxRefs' | 'changesetId'>, only?: string[]) {
    const sandboxRoot = plan.sandboxRefs[0];
    if (!sandboxRoot) return [];
    const recorded = await captureHandEdits(
      {
        planId: plan.id,
        sandboxRoot,
        projectDir: plan.projectPath,
        files: this.stores.sandboxFiles,
        changesets: this.stores.changesets,
        events: this.events,
        changesetId: plan.changesetId,
        startChangeset: async () => {
          const changesetId = await this.stores.changesets.start(plan.id);
          await this.lifecycle.update(plan.id, { changesetId });
          return changesetId;
        },
        lastCheckpoint: async () => (await this.stores.checkpoints.summaries(plan.id)).at(-1)?.id ?? null,
      },
      only,
    );
    if (recorded.length > 0) await this.markChecksStale(plan.id, `${[...new Set(recorded.map((e) => e.path))].join(', ')} edited in the sandbox`);
    return recorded;
  }

  /** The sandbox changed after the plan's checks ran: their verdicts are stale, and they run again before apply. */
  markChecksStale(planId: string, reason: string): Promise<void> {
    return this.lifecycle.unit(async () => {
      const { checks } = await this.get(planId);
      if (!checks || checks.stale) return;
      const summary = { ...checks, stale: true };
      await this.lifecycle.update(planId, { checks: summary });
      await this.events.publish(planId, 'checks_stale', { reason, summary });
    });
  }
}
