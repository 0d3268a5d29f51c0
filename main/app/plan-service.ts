import { STATUS_LABELS, plural, statusLabel, wrongStateMessage } from '../../shared/vocabulary';
import { existsSync, mkdirSync } from 'node:fs';
import { removeTemporaryFiles } from '../engine/sandbox/files';
import { markInterrupted } from './leases';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Approval, ChangeEntry, DiffHunk, ErrorRecord, Plan, RecoveryAction, StrategyDecision, ToolInvocation } from '../../shared/domain';
import type { ChangeEntryMeta, PlanListItem, ToolTally } from '../../shared/contract';
import { childrenByParent, stepsInOrder } from '../../shared/decision-tree';
import type { StreamEvent } from '../../shared/events';
import { PlanError, ValidationError } from '../../shared/errors';
import type { StreamCallback } from '../../shared/events';
import { type ChangeSetStore, entryLineCounts, toEntryMeta } from '../engine/changeset-store';
import { entryHunks, unifiedDiff } from '../engine/changeset/diff';
import { type AppliedLog, applyReviewed, type ReviewFile, reviewChanges, reviewDiffs, reviewFileHunks, reviewNet } from '../engine/changeset/review';
import { exportPatch } from '../engine/changeset/patch';
import { ErrorRecoveryService, type ErrorRecoveryOptions, recoveryHints, type RecoveryHint, classifyError } from '../engine/error-recovery-service';
import { EventPublisher, type EventLog } from '../engine/event-stream';
import { PlanExecutionContext } from '../engine/execution-context';
import { PlanLifecycleService } from '../engine/lifecycle';
import { PlanExecutor } from '../engine/plan-executor';
import type { PlanRepository } from '../engine/plan-repository';
import type { ErrorLog } from '../engine/recovery';
import { ApprovalGate } from '../engine/approval-gate';
import { pendingApproval, requestApproval } from '../engine/approvals';
import { InvariantRules } from '../engine/invariants';
import { parseDefinitionOfDone } from '../engine/strategize-actor';
import { createSandbox, removeSandbox } from '../engine/sandbox/sandbox';
import { TreeChangeTracker } from '../engine/sandbox/tracker';
import type { SandboxFileStore } from '../engine/sandbox/sandbox-files';
import { readSandboxFile, writeSandboxFile } from '../engine/sandbox/operator-files';
import { captureHandEdits, recordSandboxBase } from '../engine/changeset/hand-edits';
import { type InvocationLog, ToolRegistry, ToolRunner } from '../engine/tool-runner';
import { ApprovalPending } from '../engine/errors';
import { newId } from '../../shared/ids';
import { registerBuiltinTools } from '../engine/tools';
import { type ConfinementProbe, detectConfinement } from '../engine/tools/confinement';
import { type LoadedPlanFile, loadPlanFile, loadProfile, loadProjectInvariants, loadStepFile, parsePlanText, validatePlanFile } from './plan-file';
import { RunController } from './run-controller';
import { resolveProfile } from '../../shared/domain';
import { isLeaseLive, type LeaseStore } from '../engine/leases';
import { refuseProtected, requireSandboxPresent } from './sandbox-guards';
import { agentSpecOf, type PlanModelView, type SettingsPatch, type SettingsView } from '../../shared/agent';
import { ModelAgent } from '../engine/model/model-agent';
import { createLanguageModel } from '../engine/model/provider';
import type { CorrectionContext } from '../engine/model/prompts';
import type { ModelConfig } from '../engine/model/model-config';
import { planModelView, recordModel, resolveModelConfig, type SettingsStore } from './settings';
import type { ApprovalStore } from '../engine/approvals';
import { SANDBOXES_FOLDER } from '../persistence/data-dir';
import { DEFAULT_MAX_PROJECT_BYTES, type ProjectPolicy } from './project-policy';

/** Everything the service keeps; SQLite in the app, in memory in some tests. */
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
}

export interface DecisionNode extends StrategyDecision {
  children: DecisionNode[];
}

export interface DiffEntry extends ChangeEntryMeta {
  diff: string | null;
}

export interface ExternalEvents {
  /** Changes whenever another process commits to the database. */
  version(): number;
  /** Every plan's last event seq. */
  lastSeqs(): Map<string, number>;
}

export interface RunOptions {
  streamCallback?: StreamCallback;
  /** Pause before each decision; by default as the plan's profile says (`manual` does). */
  step?: boolean;
  breakpoints?: string[];
  /** For `correct`: the failed step's failure and the operator's note, in the model's context. */
  corrections?: ReadonlyMap<string, CorrectionContext>;
}

/** Who answers an approval or applies a recovery: the OS user at the CLI, "console" in the console. */
export interface Answer {
  by: string;
  reason?: string;
}

export interface ApplyResult {
  planId: string;
  applied: string[];
  conflicts: { path: string; expectedHash: string | null; actualHash: string | null; reason?: string }[];
  skipped: string[];
  /** Files with something still to apply after this apply. */
  remaining: string[];
  /** True when nothing is left: the plan is complete. */
  complete: boolean;
}

export interface ReviewStep {
  id: string;
  description: string;
}

export interface ChangesetReview {
  changesetId: string | null;
  files: (ReviewFile & { steps: ReviewStep[] })[];
}

/** `.agents/invariants.yaml` as the lines the decision tree's invariant records show. */
function projectInvariantRecords(plan: Plan): string[] {
  const rules = plan.projectInvariants;
  if (!rules) return [];
  return [...rules.protect.map((g) => `protect ${g}`), ...rules.denyCommands.map((g) => `deny command ${g}`), ...(rules.allowCommands ?? []).map((g) => `allow command ${g}`), ...rules.notes];
}

export type { ConfinementProbe };

/** The operations an operator performs on plans; the CLI, the web host and Electron all call these. */
export class PlanService {
  readonly lifecycle: PlanLifecycleService;
  readonly events: EventPublisher;
  readonly registry: ToolRegistry;
  /** Snapshot caches of shell.run's change capture, one per sandbox; dropped on discard. */
  private readonly tracker = new TreeChangeTracker();
  private readonly controllers = new Map<string, RunController>();
  private readonly runs = new Map<string, Promise<Plan>>();
  private readonly reviewCache = new Map<string, { key: string; files: ReviewFile[] }>();

  constructor(private readonly options: PlanServiceOptions) {
    this.events = new EventPublisher(options.stores.events);
    this.lifecycle = new PlanLifecycleService(options.stores.plans, this.events);
    this.registry = options.registry ?? registerBuiltinTools(new ToolRegistry(), { tracker: this.tracker });
  }

  get stores(): EngineStores {
    return this.options.stores;
  }

  // ---- reading ------------------------------------------------------------

  /** How shell.run can be confined on this host (bwrap, sandbox-exec), or why it cannot. */
  shellConfinement(): Promise<ConfinementProbe> {
    return detectConfinement();
  }

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
        // A failure, a call waiting for approval, or an interrupted run (errored too, category interrupted);
        // waiting to be applied is its own state.
        const needsAttention = plan.processingState === 'errored' || (plan.processingState === 'paused' && plan.waitingFor === 'approval');
        const awaitingApply = plan.phase === 'apply' && plan.processingState === 'queued';
        return { ...plan, progress: { done: steps.filter((d) => d.status === 'done').length, total: steps.length }, needsAttention, awaitingApply };
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

  /** One entry with its hunks, as the diff view draws them; the file texts stay here. */
  change(planId: string, entryId: string): { entry: ChangeEntryMeta; hunks: DiffHunk[] | null } {
    const { changesetId } = this.get(planId);
    const store = this.stores.changesets;
    const meta = changesetId ? store.getEntryMeta(changesetId, entryId) : undefined;
    const entry = changesetId && meta ? store.getEntry(changesetId, entryId) : undefined;
    if (!meta || !entry) throw new ValidationError('entryId', `no change entry "${entryId}" in plan ${planId}`);
    return { entry: meta, hunks: entryHunks(entry) };
  }

  invocations(planId: string): ToolInvocation[] {
    this.get(planId);
    return this.stores.invocations.listForPlan(planId);
  }

  invocationsForDecision(planId: string, decisionId: string): ToolInvocation[] {
    this.get(planId);
    return this.stores.invocations.listForDecision(decisionId).filter((i) => i.planId === planId);
  }

  /** With the last seq read in the same synchronous call (no commit of this process comes between), the events after it are those not counted. */
  toolTallies(planId: string): { tallies: ToolTally[]; throughSeq: number } {
    this.get(planId);
    return { tallies: this.stores.invocations.talliesForPlan(planId), throughSeq: this.stores.events.lastSeq(planId) };
  }

  eventsAfter(planId: string, afterSeq = 0, limit = 1000): { events: StreamEvent[]; lastSeq: number } {
    this.get(planId);
    return { events: this.stores.events.list(planId, afterSeq, limit), lastSeq: this.stores.events.lastSeq(planId) };
  }

  /**
   * What other processes append to the shared event log, for a host to poll: undefined where the
   * log is this process's alone (in memory).
   */
  get externalEvents(): ExternalEvents | undefined {
    const log = this.stores.events;
    if (!log.externalVersion || !log.lastSeqs) return undefined;
    return { version: () => log.externalVersion?.() ?? 0, lastSeqs: () => log.lastSeqs?.() ?? new Map() };
  }

  /**
   * The files of a plan's review (no contents), kept while neither the entries (appended only) nor
   * what was applied changed: a running plan's console asks for it when a path changes again.
   */
  private reviewFiles(planId: string): ReviewFile[] {
    const plan = this.get(planId);
    if (!plan.changesetId) return [];
    const applied = this.stores.applied.list(planId);
    const key = `${plan.changesetId}:${this.stores.changesets.countEntries(plan.changesetId)}:${JSON.stringify(applied)}`;
    const cached = this.reviewCache.get(planId);
    if (cached?.key === key) return cached.files;
    const files = reviewChanges(this.changeEntries(planId), applied);
    this.reviewCache.delete(planId);
    this.reviewCache.set(planId, { key, files });
    // A few open consoles' plans at most.
    if (this.reviewCache.size > 4) this.reviewCache.delete(this.reviewCache.keys().next().value as string);
    return files;
  }

  changeEntries(planId: string): ChangeEntry[] {
    const plan = this.get(planId);
    return plan.changesetId ? (this.stores.changesets.get(plan.changesetId)?.entries ?? []) : [];
  }

  diff(planId: string): { planId: string; changesetId: string | null; entries: DiffEntry[] } {
    const plan = this.get(planId);
    const entries = this.changeEntries(planId);
    // Line counts as stored when each entry was recorded, not computed again.
    const metas = plan.changesetId ? this.stores.changesets.listEntryMeta(plan.changesetId, { offset: 0, limit: entries.length }) : [];
    const byId = new Map(metas.map((m) => [m.id, m]));
    return {
      planId,
      changesetId: plan.changesetId,
      entries: entries.map((entry) => ({ ...(byId.get(entry.id) ?? toEntryMeta(entry, entryLineCounts(entry))), diff: unifiedDiff(entry) })),
    };
  }

  patch(planId: string): string {
    return exportPatch(this.changeEntries(planId));
  }

  /** The changeset as files to review: one row per path, netted across steps, with what is applied and what remains. */
  review(planId: string): ChangesetReview {
    const plan = this.get(planId);
    if (!plan.changesetId) return { changesetId: null, files: [] };
    const decisions = new Map(this.lifecycle.listDecisions(planId).map((d) => [d.id, d]));
    const files = this.reviewFiles(planId).map((file) => ({
      ...file,
      steps: file.decisionIds.map((id) => ({ id, description: decisions.get(id)?.description ?? id })),
    }));
    return { changesetId: plan.changesetId, files };
  }

  /** Every file of the review with the unified diff of its net change. */
  reviewWithDiffs(planId: string): { file: ReviewFile; diff: string | null }[] {
    return reviewDiffs(reviewNet(this.changeEntries(planId), this.stores.applied.list(planId)));
  }

  /** One file of the review with the hunks of its net change as the diff view draws them (null for a binary file). */
  reviewDiff(planId: string, path: string): { file: ReviewFile; hunks: DiffHunk[] | null } {
    const { changesetId } = this.get(planId);
    const file = this.reviewFiles(planId).find((f) => f.path === path || f.oldPath === path);
    // Only the entries behind this file are read: their net change is the file's.
    const entries = file && changesetId ? file.entryIds.flatMap((id) => this.stores.changesets.getEntry(changesetId, id) ?? []) : [];
    const found = file && reviewFileHunks(reviewNet(entries, this.stores.applied.list(planId)), file.path);
    if (!found) throw new ValidationError('path', `plan ${planId} does not change "${path}"`);
    return found;
  }

  /** The error history, the tree's error decisions, and the commands that apply now (none unless the plan is errored). */
  errors(planId: string): { planId: string; errors: ErrorRecord[]; recoveryDecisions: StrategyDecision[]; recoveryHints: RecoveryHint[] } {
    const plan = this.get(planId);
    const errors = this.stores.errors.listForPlan(planId);
    const decisions = this.lifecycle.listDecisions(planId);
    const last = errors.at(-1);
    const step = last?.decisionId ? stepsInOrder(decisions).findIndex((d) => d.id === last.decisionId) + 1 : 0;
    const hints = plan.processingState === 'errored' ? recoveryHints(planId, last?.category ?? classifyError(null), step || null) : [];
    const recoveryDecisions = decisions.filter((d) => d.type === 'error_recovery');
    return { planId, errors, recoveryDecisions, recoveryHints: hints };
  }

  /** The plan's approvals, oldest first; the pending one (at most one) is what the plan waits for. */
  approvals(planId: string): { planId: string; pending: Approval | null; approvals: Approval[] } {
    this.get(planId);
    const approvals = this.stores.approvals.listForPlan(planId);
    return { planId, pending: pendingApproval(approvals) ?? null, approvals };
  }

  // ---- changing -------------------------------------------------------------

  createFromFile(file: string, overrides: { project?: string; profile?: string } = {}): Plan {
    return this.createFromLoaded(loadPlanFile(file, this.registry, overrides));
  }

  /**
   * From a plan file's text, as a browser's file picker sends it; nothing is written to disk. An
   * uploaded file has no folder of its own, so a relative `project` resolves against `baseDir` (and,
   * with a policy, its roots).
   */
  createFromContent(input: { content: string; fileName?: string; project?: string; profile?: string }, baseDir: string, policy?: ProjectPolicy): Plan {
    const raw = parsePlanText(input.content, 'content', input.fileName);
    return this.createFromLoaded(validatePlanFile(raw, baseDir, this.registry, { project: input.project, profile: input.profile }, policy));
  }

  private createFromLoaded({ plan, projectPath }: LoadedPlanFile): Plan {
    const spec = agentSpecOf(plan.agent);
    const agent = spec && recordModel(spec, this.options.env ?? process.env, this.options.settings);
    return this.lifecycle.createPlan({
      agent,
      name: plan.name,
      description: plan.description,
      definitionOfDone: plan.definitionOfDone,
      invariants: plan.invariants,
      automationProfile: resolveProfile(plan.automationProfile),
      projectPath,
    });
  }

  // ---- the model ------------------------------------------------------------

  /** The model an agent plan uses; a one-line ValidationError names the setting that is missing. */
  modelConfig(agent: NonNullable<Plan['agent']>): ModelConfig {
    return resolveModelConfig(agent, this.options.env ?? process.env, this.options.settings);
  }

  /**
   * The plan's model recorded on it if it has none yet (a plan made before plans kept theirs);
   * throws a one-line ModelSettingError when this process cannot use it.
   */
  private pinModel(plan: Plan): Plan {
    if (!plan.agent) return plan;
    const agent = recordModel(plan.agent, this.options.env ?? process.env, this.options.settings);
    this.modelConfig(agent);
    return agent === plan.agent ? plan : this.lifecycle.update(plan.id, { agent });
  }

  /** The agent plan's model and whether this process can use it; null for a scripted plan. */
  planModel(plan: Plan): PlanModelView | null {
    return plan.agent ? planModelView(plan.agent, this.options.env ?? process.env, this.options.settings) : null;
  }

  settingsView(): SettingsView {
    return this.options.settings.view(this.options.env ?? process.env);
  }

  updateSettings(patch: SettingsPatch): SettingsView {
    this.options.settings.patch(patch);
    return this.settingsView();
  }

  /**
   * The seed's `correct` action: the model runs the failed step again, told of the failure and the
   * operator's note. Recorded as an error_recovery decision with action `correct`.
   */
  correct(planId: string, answer: Answer, options: RunOptions = {}): Promise<Plan> {
    const plan = this.get(planId);
    if (!plan.agent) throw new PlanError(`plan ${planId} is not an agent plan; only a model can correct a step (use: agents plan retry ${planId})`, 'not_agent');
    if (plan.processingState !== 'errored' || plan.phase !== 'execute') {
      throw new PlanError(wrongStateMessage(plan, 'correct', [STATUS_LABELS.failed]), 'wrong_state');
    }
    const failed = this.failedStep(planId);
    if (!failed) throw new PlanError(`plan ${planId} has no failed step to correct`, 'wrong_state');
    this.modelConfig(plan.agent);
    const failure = plan.errorMessage ?? 'the step failed';
    const note = answer.reason?.trim() || null;
    this.recovered(planId, failed.id, 'correct', `Asked the agent to fix step "${failed.description}"`, { by: answer.by, reason: note ?? undefined });
    return this.run(planId, { ...options, corrections: new Map([[failed.id, { failure, note }]]) });
  }

  /**
   * A model's proposed tree waits for the operator under every profile except full-auto: one
   * pending approval of kind `plan`, on the tree's root. Approve lets execute start; reject sends
   * the reason back to the model, whose new steps replace the ones not done. Says what the run
   * does next.
   */
  private reviewProposedTree(planId: string): { next: 'execute'; plan: Plan } | { next: 'wait'; approvalId: string } | { next: 'propose_again' } {
    const plan = this.get(planId);
    if (!plan.agent || plan.automationProfile.name === 'full-auto' || !plan.decisionRootId) return { next: 'execute', plan };
    const latest = this.stores.approvals.listForPlan(planId).filter((a) => a.kind === 'plan').at(-1);
    const steps = stepsInOrder(this.lifecycle.listDecisions(planId)).filter((d) => d.status === 'pending');
    // An approval covers the steps it showed: steps proposed since (after a replan) are asked about again.
    const shown = new Set(Array.isArray(latest?.args.stepIds) ? (latest.args.stepIds as unknown[]) : []);
    if (latest?.status === 'approved' && steps.every((d) => shown.has(d.id))) return { next: 'execute', plan };
    if (latest?.status === 'pending') return { next: 'wait', approvalId: latest.id };
    if (latest?.status === 'rejected' && latest.usedAt === null) {
      this.stores.approvals.update(latest.id, { usedAt: new Date().toISOString() });
      const now = new Date().toISOString();
      const open = stepsInOrder(this.lifecycle.listDecisions(planId)).filter((d) => d.status !== 'done' && d.status !== 'skipped');
      this.lifecycle.saveDecisions(open.map((d) => ({ ...d, status: 'skipped' as const, updatedAt: now })));
      this.lifecycle.update(planId, { phase: 'strategize', agentFeedback: { reason: latest.reason ?? 'no reason given', previous: latest.rationale } });
      return { next: 'propose_again' };
    }
    const approval = requestApproval(this.stores.approvals, this.events, {
      planId,
      kind: 'plan',
      decisionId: plan.decisionRootId,
      callIndex: null,
      tool: null,
      args: { steps: steps.map((d) => ({ description: d.description, rationale: d.rationale, toolCalls: d.toolCalls })), stepIds: steps.map((d) => d.id) },
      description: `The model proposes ${steps.length} step${steps.length === 1 ? '' : 's'}`,
      rationale: steps.map((d, i) => `${i + 1}. ${d.description}\n   ${d.rationale.replace(/\n/g, '\n   ')}`).join('\n'),
      diff: null,
      hunks: null,
    });
    return { next: 'wait', approvalId: approval.id };
  }

  /** Strategize (if not done) and execute; stops before apply. Resolves when the run ends. */
  run(planId: string, options: RunOptions = {}): Promise<Plan> {
    const plan = this.pinModel(this.get(planId));
    const runnable =
      (plan.phase === 'strategize' && plan.processingState === 'queued') || (plan.phase === 'execute' && plan.processingState === 'queued');
    if (!runnable) {
      throw new PlanError(
        wrongStateMessage(plan, 'run', [STATUS_LABELS.ready_to_run]) +
          (plan.processingState === 'errored' ? ` (use: agents plan retry ${planId})` : ''),
        'wrong_state',
      );
    }
    return this.runFrom(planId, options, undefined, plan);
  }

  /**
   * Runs what is left of the plan. The plan is read once per phase: the copy read here (or by the
   * caller) serves strategize, one read after strategize serves execute, and each phase carries the
   * plan the lifecycle hands back instead of reading the store again.
   */
  private runFrom(planId: string, options: RunOptions, resumeAt?: { decisionId: string; callIndex: number }, known?: Plan): Promise<Plan> {
    let plan = known ?? this.get(planId);
    const step = options.step ?? plan.automationProfile.pauseBeforeEachDecision;
    // Read before the run starts, so a broken invariants file is bad input, and the context carries the rules.
    if (plan.phase === 'strategize') plan = this.recordProjectInvariants(plan);
    return this.track(planId, { ...options, step }, plan, async (executor, controller, planNow) => {
      if (planNow.phase === 'strategize') await executor.runStrategize(planId, { streamCallback: options.streamCallback, plan: planNow });
      let review = this.reviewProposedTree(planId);
      for (; review.next !== 'execute'; review = this.reviewProposedTree(planId)) {
        if (review.next === 'wait') {
          // Stopped between strategize and execute, as a tool call's approval stops before the call.
          this.lifecycle.transition(planId, 'processing');
          this.lifecycle.transition(planId, 'paused', { waitingFor: 'approval' });
          throw new ApprovalPending(review.approvalId);
        }
        await executor.runStrategize(planId, { streamCallback: options.streamCallback });
      }
      // The review's read of the plan serves execute.
      const plan = review.plan;
      const sandboxRoot = executor.executionContext?.sandboxRoot ?? null;
      const rules = plan.projectInvariants ? new InvariantRules(plan.projectInvariants) : undefined;
      await executor.runExecute(planId, {
        plan,
        streamCallback: options.streamCallback,
        beforeDecision: controller.beforeDecision,
        gate: new ApprovalGate(this.stores.approvals, this.events, planId, plan.automationProfile, sandboxRoot, rules),
        resumeAt,
        rules,
      });
    });
  }

  /** The project's `.agents/invariants.yaml`, read once at strategize and kept on the plan. */
  private recordProjectInvariants(plan: Plan): Plan {
    const invariants = plan.projectPath ? loadProjectInvariants(plan.projectPath) : null;
    return invariants ? this.lifecycle.update(plan.id, { projectInvariants: invariants }) : plan;
  }

  // ---- the operator's answers -------------------------------------------------------

  /** Approves the call the plan waits for (with `all`, every later call of that tool too), then goes on with the run. */
  approve(planId: string, answer: Answer & { all?: boolean }, options: RunOptions = {}): Promise<Plan> {
    return this.answer(planId, 'approved', answer.all ? 'all' : 'once', answer, options);
  }

  /** Rejects the call the plan waits for: the run goes on, and the step fails with category `rejected`. */
  reject(planId: string, answer: Answer, options: RunOptions = {}): Promise<Plan> {
    if (!answer.reason?.trim()) throw new ValidationError('reason', 'is required: say why the call is rejected');
    return this.answer(planId, 'rejected', null, answer, options);
  }

  private answer(planId: string, status: 'approved' | 'rejected', scope: 'once' | 'all' | null, answer: Answer, options: RunOptions): Promise<Plan> {
    // The run goes on in this process: refuse before the answer is recorded if it cannot use the plan's model.
    const plan = this.pinModel(this.get(planId));
    const pending = pendingApproval(this.stores.approvals.listForPlan(planId));
    if (!pending) throw new PlanError(`plan ${planId} has no call waiting for approval (it is ${statusLabel(plan)})`, 'wrong_state');
    if (this.isRunning(planId)) throw new PlanError(`plan ${planId} is still stopping; answer again in a moment`, 'wrong_state');
    requireSandboxPresent(plan);
    const now = new Date().toISOString();
    const reason = answer.reason?.trim() || null;
    this.stores.approvals.update(pending.id, { status, scope, answeredBy: answer.by, answeredAt: now, reason });
    const what = scope === 'all' ? `every ${pending.tool} call of the plan` : `${pending.tool ?? 'the plan'}`;
    this.lifecycle.addDecisionUnder(
      planId,
      pending.decisionId,
      'approval',
      `${status === 'approved' ? 'Approved' : 'Rejected'} ${what}`,
      `${status} by ${answer.by} at ${now}${reason ? `: ${reason}` : ''}`,
    );
    this.events.publish(planId, 'approval_resolved', {
      approvalId: pending.id,
      decisionId: pending.decisionId,
      tool: pending.tool,
      approved: status === 'approved',
      scope,
      answeredBy: answer.by,
      reason,
    });
    if (plan.processingState === 'paused') this.lifecycle.transition(planId, 'queued');
    const resumeAt = pending.decisionId !== null && pending.callIndex !== null ? { decisionId: pending.decisionId, callIndex: pending.callIndex } : undefined;
    return this.runFrom(planId, options, resumeAt);
  }

  // ---- fixing a failed plan in place --------------------------------------------------

  /** Marks the failed step (or step `step`, numbered as `plan tree` shows them) skipped; the run goes on with the next one. */
  skip(planId: string, answer: Answer & { step?: number }): Plan {
    const target = this.targetStep(planId, answer.step);
    this.lifecycle.saveDecisions([{ ...target, status: 'skipped', updatedAt: new Date().toISOString() }]);
    return this.recovered(planId, target.id, 'skip', `Skipped step "${target.description}"`, answer);
  }

  /** Replaces the tool calls (and the description) of a step that has not completed, from a file in the plan-file format. */
  editStep(planId: string, answer: Answer & { step: number; file: string }): Plan {
    const target = this.targetStep(planId, answer.step);
    const number = stepsInOrder(this.lifecycle.listDecisions(planId)).findIndex((d) => d.id === target.id) + 1;
    const step = loadStepFile(answer.file, this.registry, number);
    this.lifecycle.saveDecisions([
      { ...target, description: step.step, rationale: step.rationale ?? target.rationale, toolCalls: step.tools, status: 'pending', updatedAt: new Date().toISOString() },
    ]);
    const calls = step.tools.map((t) => t.tool).join(', ') || 'no tool calls';
    return this.recovered(planId, target.id, 'edit_step', `Edited step ${answer.step}: "${step.step}" (${calls})`, answer);
  }

  /** Changes the plan's automation profile: a built-in name, or a file with a profile as a plan file writes it. */
  setProfile(planId: string, answer: Answer & { profile: string }): Plan {
    const plan = this.requireFixable(planId);
    const profile = loadProfile(answer.profile);
    this.lifecycle.update(planId, { automationProfile: profile });
    const failed = this.failedStep(planId);
    return this.recovered(planId, failed?.id ?? null, 'change_profile', `Profile ${plan.automationProfile.name} -> ${profile.name}`, {
      ...answer,
      reason: answer.reason ?? `approve: ${profile.approvalRequired.join(', ') || 'none'}; shell ${profile.allowShell ? 'allowed' : 'denied'}; auto-retry ${profile.autoRetryTransient}`,
    });
  }

  /**
   * Goes back to strategize for the steps not done: they are marked skipped and the steps of
   * `file` (a plan file) take their place. Completed steps and the changeset are kept.
   */
  replan(planId: string, answer: Answer & { file?: string }): Plan {
    const plan = this.requireFixable(planId);
    if (!plan.decisionRootId) throw new PlanError(`plan ${planId} has no decision tree yet; run it to strategize`, 'wrong_state');
    if (answer.file === undefined) return this.replanByModel(plan, answer);
    const { plan: file } = loadPlanFile(answer.file, this.registry);
    const decisions = this.lifecycle.listDecisions(planId);
    const steps = stepsInOrder(decisions);
    const now = new Date().toISOString();
    const replaced = steps.filter((d) => d.status !== 'done' && d.status !== 'skipped').map((d) => ({ ...d, status: 'skipped' as const, updatedAt: now }));
    let order = Math.max(0, ...decisions.filter((d) => d.parentId === plan.decisionRootId).map((d) => d.order)) + 1;
    const added: StrategyDecision[] = parseDefinitionOfDone(file.definitionOfDone).map((step) => ({
      id: newId(),
      planId,
      parentId: plan.decisionRootId,
      type: 'strategy_choice',
      order: order++,
      description: step.step,
      rationale: step.rationale ?? `Replanned: ${step.tools.map((t) => t.tool).join(', ') || 'no tool calls'}`,
      toolCalls: step.tools,
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    }));
    this.lifecycle.saveDecisions([...replaced, ...added]);
    return this.recovered(planId, null, 'revert_to_strategize', `Replanned: ${plural(replaced.length, 'step')} replaced by ${added.length} from ${file.name}`, answer);
  }

  /**
   * Replan of an agent plan without a file: the steps not done are marked skipped and the next run
   * goes back to strategize, where the model proposes them again (told what is done) for approval.
   */
  private replanByModel(plan: Plan, answer: Answer): Plan {
    if (!plan.agent) throw new ValidationError('--file', 'is required: a scripted plan takes its new steps from a plan file');
    this.modelConfig(plan.agent);
    const now = new Date().toISOString();
    const open = stepsInOrder(this.lifecycle.listDecisions(plan.id)).filter((d) => d.status !== 'done' && d.status !== 'skipped');
    this.lifecycle.saveDecisions(open.map((d) => ({ ...d, status: 'skipped' as const, updatedAt: now })));
    const failed = plan.errorMessage && plan.processingState === 'errored' ? ` The last attempt failed: ${plan.errorMessage}.` : '';
    const done = stepsInOrder(this.lifecycle.listDecisions(plan.id)).filter((d) => d.status === 'done');
    const agentFeedback = {
      reason: `the operator asked for new steps for what is not done yet${answer.reason ? `: ${answer.reason}` : ''}.${failed} Done already: ${done.map((d) => d.description).join('; ') || 'nothing'}.`,
      previous: open.map((d, i) => `${i + 1}. ${d.description}`).join('\n'),
    };
    const recovered = this.recovered(plan.id, null, 'revert_to_strategize', `Replanned by the model: ${plural(open.length, 'step')} to propose again`, answer);
    // The tree's root stays; the next run strategizes again under it.
    return this.lifecycle.update(plan.id, { phase: 'strategize', processingState: recovered.processingState, agentFeedback });
  }

  /** A plan that can be fixed in place: stopped with an error, or queued between runs. */
  private requireFixable(planId: string): Plan {
    const plan = this.get(planId);
    if (this.isRunning(planId) || plan.processingState === 'processing') {
      throw new PlanError(`plan ${planId} is running; pause it or wait for it to stop`, 'wrong_state');
    }
    if (plan.phase === 'apply' || plan.processingState === 'complete' || plan.processingState === 'cancelled') {
      throw new PlanError(wrongStateMessage(plan, 'this change', [STATUS_LABELS.ready_to_run, STATUS_LABELS.failed, STATUS_LABELS.interrupted, STATUS_LABELS.paused]), 'wrong_state');
    }
    return plan;
  }

  private failedStep(planId: string): StrategyDecision | undefined {
    return stepsInOrder(this.lifecycle.listDecisions(planId)).find((d) => d.status === 'failed' || d.status === 'running');
  }

  private targetStep(planId: string, step: number | undefined): StrategyDecision {
    this.requireFixable(planId);
    const steps = stepsInOrder(this.lifecycle.listDecisions(planId));
    if (steps.length === 0) throw new PlanError(`plan ${planId} has no steps yet; run it to strategize`, 'wrong_state');
    if (step !== undefined && (!Number.isInteger(step) || step < 1 || step > steps.length)) {
      throw new ValidationError('step', `must be a step number from 1 to ${steps.length}`);
    }
    const target = step !== undefined ? steps[step - 1] : this.failedStep(planId);
    if (!target) throw new ValidationError('step', 'no step failed; name one with --step N');
    if (target.status === 'done') throw new PlanError(`step ${steps.indexOf(target) + 1} ("${target.description}") is already done`, 'wrong_state');
    return target;
  }

  /** Records a recovery under the step (or the root), clears the current error, and leaves the plan queued to run on. */
  private recovered(planId: string, decisionId: string | null, action: RecoveryAction, description: string, answer: Answer): Plan {
    const plan = this.get(planId);
    this.lifecycle.addDecisionUnder(planId, decisionId, 'error_recovery', description, `${action} by ${answer.by}${answer.reason ? `: ${answer.reason}` : ''}`);
    this.events.publish(planId, 'recovery_applied', { action, decisionId, description, by: answer.by });
    if (plan.processingState === 'errored' || plan.processingState === 'paused') {
      // Execute goes on from the next step not done; an errored strategize starts over.
      this.lifecycle.transition(planId, 'queued', plan.decisionRootId && plan.phase === 'strategize' ? { phase: 'execute' } : {});
    }
    return this.get(planId);
  }

  /** Re-runs the failed phase from the failed decision; decisions already done are not run again. */
  retry(planId: string, options: RunOptions = {}): Promise<Plan> {
    const plan = this.get(planId);
    if (plan.processingState !== 'errored') {
      throw new PlanError(wrongStateMessage(plan, 'retry', [STATUS_LABELS.failed, STATUS_LABELS.interrupted]), 'wrong_state');
    }
    if (plan.phase === 'apply') throw new PlanError(`plan ${planId} failed to apply; resolve the conflicts, then apply again`, 'wrong_state');
    requireSandboxPresent(plan);
    this.pinModel(plan);
    const failed = this.failedStep(planId);
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

  /**
   * Writes what was accepted into the project: every file with something left, or only `paths`,
   * and for the files in `hunks` only those hunks. The plan stays in apply until nothing is left
   * (or the rest is discarded), so apply can be repeated.
   */
  async apply(planId: string, options: { paths?: string[]; hunks?: Record<string, number[]>; force?: boolean } = {}): Promise<ApplyResult> {
    const plan = this.get(planId);
    this.lifecycle.requirePhase(plan, 'apply', ['queued', 'errored']);
    if (!plan.projectPath) throw new PlanError(`plan ${planId} has no project directory to apply to`, 'no_project');
    await this.captureHandEdits(plan);
    const entries = this.changeEntries(planId);
    refuseProtected(plan, reviewChanges(entries, this.stores.applied.list(planId)));
    const result = await applyReviewed(plan.projectPath, entries, this.stores.applied.list(planId), options);
    const left = () => reviewChanges(entries, this.stores.applied.list(planId)).filter((f) => f.state !== 'applied').map((f) => f.path);
    if (result.conflicts.length > 0 && !options.force) {
      const outcome: ApplyResult = { planId, applied: [], conflicts: result.conflicts, skipped: result.skipped, remaining: left(), complete: false };
      this.events.publish(planId, 'apply_complete', { ok: false, ...outcome });
      return outcome;
    }
    this.stores.applied.record(planId, result.records);
    const remaining = left();
    const outcome: ApplyResult = { planId, applied: result.applied, conflicts: result.conflicts, skipped: result.skipped, remaining, complete: remaining.length === 0 };
    if (plan.processingState === 'errored') this.lifecycle.reset(planId);
    const totals = { applied: this.stores.applied.list(planId).length, remaining: remaining.length, conflicts: result.conflicts.length };
    if (remaining.length === 0) {
      this.lifecycle.beginPhase(planId, 'apply');
      this.lifecycle.completePhase(planId, { errorDetails: { ...this.get(planId).errorDetails, ...totals } });
    } else {
      this.lifecycle.update(planId, { errorDetails: { ...this.get(planId).errorDetails, ...totals } });
    }
    this.events.publish(planId, 'apply_complete', { ok: true, ...outcome });
    return outcome;
  }

  /**
   * The operator stopped the run (Ctrl-C): the plan is marked interrupted, as a run whose process
   * died is at the next start, and no half-written temporary file stays in its sandbox. Retry resumes it.
   */
  interrupt(planId: string): Plan {
    markInterrupted(this.lifecycle, this.stores.errors, this.get(planId), 'Stopped by the operator (Ctrl-C)');
    this.stores.leases.release(planId, process.pid);
    const plan = this.get(planId);
    for (const root of plan.sandboxRefs) if (existsSync(root)) removeTemporaryFiles(root);
    return plan;
  }

  /**
   * Records what the operator changed by hand in the plan's sandbox as changes of origin
   * `operator` (main/engine/changeset/hand-edits.ts); with `only`, just those paths.
   */
  private captureHandEdits(plan: Pick<Plan, 'id' | 'projectPath' | 'sandboxRefs' | 'changesetId'>, only?: string[]) {
    const sandboxRoot = plan.sandboxRefs[0];
    if (!sandboxRoot) return Promise.resolve([]);
    return captureHandEdits(
      {
        planId: plan.id,
        sandboxRoot,
        projectDir: plan.projectPath,
        files: this.stores.sandboxFiles,
        changesets: this.stores.changesets,
        events: this.events,
        changesetId: plan.changesetId,
        startChangeset: () => {
          const changesetId = this.stores.changesets.start(plan.id);
          this.lifecycle.update(plan.id, { changesetId });
          return changesetId;
        },
      },
      only,
    );
  }

  /** A plan whose sandbox the operator may read and write: it has one, and no run is using it. */
  private sandboxOf(planId: string, forWrite: boolean): { plan: Plan; sandboxRoot: string } {
    const plan = this.get(planId);
    const sandboxRoot = plan.sandboxRefs[0];
    if (!sandboxRoot || plan.processingState === 'cancelled') throw new PlanError(`plan ${planId} has no sandbox${plan.processingState === 'cancelled' ? ' (it was discarded)' : ' yet; run it first'}`, 'wrong_state');
    if (forWrite && (plan.processingState === 'processing' || this.isRunning(planId) || this.runElsewhere(planId))) {
      throw new PlanError(`plan ${planId} is ${STATUS_LABELS.running}; save when it has stopped`, 'wrong_state');
    }
    if (forWrite && plan.processingState === 'complete') throw new PlanError(`plan ${planId} is ${STATUS_LABELS.applied}; its changes are in the project`, 'wrong_state');
    return { plan, sandboxRoot };
  }

  /** A file of the plan's sandbox, as the console's editor opens it. */
  readFile(planId: string, path: string): Promise<{ path: string; content: string | null; binary: boolean }> {
    return readSandboxFile(this.sandboxOf(planId, false).sandboxRoot, path);
  }

  /** Writes a text into the plan's sandbox and records it at once as the operator's change; null when nothing changed. */
  async saveFile(planId: string, path: string, content: string): Promise<{ entry: ChangeEntryMeta | null }> {
    const { plan, sandboxRoot } = this.sandboxOf(planId, true);
    const relative = await writeSandboxFile(sandboxRoot, path, content);
    const recorded = await this.captureHandEdits(plan, [relative]);
    return { entry: recorded.at(-1) ?? null };
  }

  async discard(planId: string): Promise<Plan> {
    const plan = this.get(planId);
    if (plan.processingState === 'processing' || this.runs.has(planId) || this.runElsewhere(planId)) {
      throw new PlanError(`plan ${planId} is running; pause it or wait for it to finish before discarding`, 'wrong_state');
    }
    if (plan.processingState === 'cancelled' || plan.processingState === 'complete') {
      throw new PlanError(`plan ${planId} is already ${statusLabel(plan)}`, 'wrong_state');
    }
    const partlyApplied = plan.phase === 'apply' && this.stores.applied.list(planId).length > 0;
    const discarded = partlyApplied ? this.review(planId).files.filter((f) => f.state !== 'applied').length : 0;
    for (const ref of plan.sandboxRefs) {
      await this.tracker.forget(ref);
      await removeSandbox(ref);
    }
    this.stores.sandboxFiles.forget(planId);
    if (!partlyApplied) return this.lifecycle.cancel(planId);
    // Part of the changeset is in the project already: discarding the rest finishes the apply.
    if (plan.processingState === 'errored') this.lifecycle.reset(planId);
    this.lifecycle.beginPhase(planId, 'apply');
    const done = this.lifecycle.completePhase(planId, { errorDetails: { ...this.get(planId).errorDetails, remaining: 0, discarded } });
    this.events.publish(planId, 'apply_complete', { ok: true, planId, applied: [], conflicts: [], skipped: [], remaining: [], complete: true, discarded });
    return done;
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

  /** Another live process holds the plan's lease: its run is using the sandbox. */
  private runElsewhere(planId: string): boolean {
    const lease = this.stores.leases.get(planId);
    return lease !== undefined && lease.pid !== process.pid && isLeaseLive(lease);
  }

  /** Resolves when every run started by this service has ended. */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.runs.values()]);
  }

  // ---- internals --------------------------------------------------------------

  private track(planId: string, options: RunOptions, plan: Plan, body: (executor: PlanExecutor, controller: RunController, plan: Plan) => Promise<void>): Promise<Plan> {
    if (this.runs.has(planId)) throw new PlanError(`plan ${planId} is already running`, 'wrong_state');
    requireSandboxPresent(plan);
    const lease = this.stores.leases;
    if (!lease.acquire(planId, process.pid, hostname())) {
      throw new PlanError(`plan ${planId} is being run by another process`, 'wrong_state');
    }
    const heartbeat = setInterval(() => lease.heartbeat(planId, process.pid), this.options.heartbeatMs ?? 2_000);
    heartbeat.unref();
    const controller = new RunController(planId, this.lifecycle, { step: options.step, breakpoints: options.breakpoints });
    this.controllers.set(planId, controller);
    let context: PlanExecutionContext | null = null;
    const run = (async () => {
      try {
        const { executor, plan: ready } = await this.executorFor(plan, options);
        context = executor.executionContext;
        await body(executor, controller, ready);
      } catch (error) {
        // The executor records its failures on the plan, and a plan waiting for an approval is paused. Anything
        // else (making the sandbox, or a bug) is recorded here, so every client sees a plan error; a bug is also thrown to the log.
        const state = this.get(planId).processingState;
        if (state !== 'errored' && !(state === 'paused' && error instanceof ApprovalPending)) {
          const recorded = this.recordFailure(planId, error);
          if (!recorded || classifyError(error) === 'internal') throw error;
        }
      } finally {
        // What the run left is what the next capture compares against: files it wrote are not read again then.
        const ran = context as PlanExecutionContext | null;
        if (ran?.sandboxRoot) {
          const ended = { id: planId, projectPath: plan.projectPath, sandboxRefs: [ran.sandboxRoot], changesetId: ran.activeChangesetId ?? null };
          await this.captureHandEdits(ended).catch(() => undefined);
        }
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

  /**
   * A failure outside the executor (making the sandbox: a missing project, one past the size limit,
   * a full disk) is recorded like any other: an error with a category and hints, published to every
   * client, and the plan errored. Retry then tries again. False when the plan's state cannot fail.
   */
  private recordFailure(planId: string, error: unknown): boolean {
    const plan = this.get(planId);
    if (plan.processingState === 'queued') this.lifecycle.beginPhase(planId, plan.phase);
    else if (plan.processingState !== 'processing' && plan.processingState !== 'paused') return false;
    // Not retried automatically: the operator sees the cause at once.
    const noRetry = { ...plan, automationProfile: { ...plan.automationProfile, autoRetryTransient: 0 } };
    const verdict = new ErrorRecoveryService(this.stores.errors, this.lifecycle, this.options.recovery).onFailure({
      plan: noRetry,
      phase: plan.phase,
      error,
      attempt: 1,
      decisionId: null,
      mode: plan.phase === 'strategize' ? 'strategize' : 'runtime',
    });
    const message = error instanceof Error ? error.message : String(error);
    this.lifecycle.fail(planId, message, { exceptionType: error instanceof Error ? error.name : 'Error', phase: plan.phase, decisionId: null, attempt: 1, ...verdict.details });
    return true;
  }

  private async executorFor(known: Plan, options: RunOptions): Promise<{ executor: PlanExecutor; plan: Plan }> {
    let plan = known;
    const planId = plan.id;
    let sandboxRoot = plan.sandboxRefs[0] ?? null;
    if (!sandboxRoot) {
      const sandboxesDir = join(this.options.dataDir, SANDBOXES_FOLDER);
      // Private: a sandbox is a copy of the operator's project.
      mkdirSync(sandboxesDir, { recursive: true, mode: 0o700 });
      if (plan.projectPath) {
        sandboxRoot = await createSandbox(plan.projectPath, sandboxesDir, planId, { maxBytes: this.options.maxProjectBytes ?? DEFAULT_MAX_PROJECT_BYTES });
      } else {
        sandboxRoot = join(sandboxesDir, planId);
        mkdirSync(sandboxRoot, { recursive: true });
      }
      await recordSandboxBase(this.stores.sandboxFiles, planId, sandboxRoot);
      plan = this.lifecycle.update(planId, { sandboxRefs: [sandboxRoot] });
    } else if ((await this.captureHandEdits(plan)).length > 0) {
      plan = this.get(planId);
    }
    const context = new PlanExecutionContext({
      planId,
      decisionRootId: plan.decisionRootId,
      sandboxRoot,
      automationProfile: plan.automationProfile.name,
      projectResources: {
        ...(plan.projectPath ? { project: { path: plan.projectPath } } : {}),
        // The project's rules as text records, as the strategize actor records the plan's own invariants.
        invariants: projectInvariantRecords(plan),
      },
      resourceBindings: {
        sandbox: { name: 'sandbox', kind: 'directory', path: sandboxRoot },
        ...(plan.projectPath ? { project: { name: 'project', kind: 'directory', path: plan.projectPath } } : {}),
      },
      changesetStore: this.stores.changesets,
    });
    const toolRunner = new ToolRunner(this.registry, this.stores.invocations);
    let agent: ModelAgent | null = null;
    if (plan.agent) {
      const config = this.modelConfig(plan.agent);
      agent = new ModelAgent({ model: await createLanguageModel(config), config, spec: plan.agent, toolRunner, lifecycle: this.lifecycle, sandboxRoot });
    }
    const executor = new PlanExecutor({
      lifecycleService: this.lifecycle,
      strategizer: agent
        ? {
            strategize: async (p, invariants, emit) => {
              const result = await agent.strategize(p, invariants, emit, p.agentFeedback ?? undefined);
              if (p.agentFeedback) this.lifecycle.update(planId, { agentFeedback: null });
              return result;
            },
          }
        : undefined,
      stepRunner: agent ? agent.stepRunner(plan, options.corrections) : undefined,
      toolRunner,
      executionContext: context,
      errorRecoveryService: new ErrorRecoveryService(this.stores.errors, this.lifecycle, this.options.recovery),
      sleep: this.options.sleep,
    });
    return { executor, plan };
  }
}
