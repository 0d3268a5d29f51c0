import type { CheckpointSummary } from '../../../shared/checkpoints';
import type { NotifyView, SettingsView } from '../../../shared/agent';
import type { McpServersView } from '../../../shared/mcp';
import type { AcpAgentsView } from '../../../shared/acp';
import type { TeamStatus } from '../../../shared/team';
import type { Bridge, ChangeEntryMeta, Channel, PlanListItem, RequestOf, ResponseOf, ReviewFile, Subscription } from '../../../shared/contract';
import { bridgeFailure } from '../../../shared/contract';
import type { Approval } from '../../../shared/approvals';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import type { ErrorRecord } from '../../../shared/error-records';
import type { ToolInvocation } from '../../../shared/tool-calls';
import type { EventData, StreamEvent, StreamEventType } from '../../../shared/events';
import { sampleData } from '../../../shared/test-support/sample-events';
import { type ListedHunk, withRejections } from '../../../shared/review-feedback';
import { reviewSummary } from '../lib/review-fold';
import { hostActions } from './host-actions';

const TS = '2026-01-01T00:00:00.000Z';

export function makePlan(overrides: Partial<Plan> = {}): Plan {
  return {
    id: 'P1',
    name: 'add-license',
    description: '',
    definitionOfDone: ['Create the licence file'],
    invariants: [],
    automationProfile: { name: 'trusted', autoRetryTransient: 3, allowShell: true, allowNetwork: false, allowUnconfinedShell: false, pauseBeforeEachDecision: false, approvalRequired: [] },
    projectPath: '/tmp/project',
    phase: 'execute',
    processingState: 'queued',
    decisionRootId: 'root',
    changesetId: 'CS1',
    sandboxRefs: [],
    errorMessage: null,
    errorDetails: {},
    waitingFor: null,
    projectInvariants: null,
    createdAt: TS,
    updatedAt: TS,
    ...overrides,
  };
}

export function makeListItem(overrides: Partial<PlanListItem> = {}): PlanListItem {
  return { ...makePlan(), progress: { done: 0, total: 2 }, needsAttention: false, awaitingApply: false, ...overrides };
}

export function makeDecision(id: string, parentId: string | null, order: number, overrides: Partial<StrategyDecision> = {}): StrategyDecision {
  return {
    id,
    planId: 'P1',
    parentId,
    type: parentId === null ? 'prompt_definition' : 'strategy_choice',
    order,
    description: `decision ${id}`,
    rationale: '',
    toolCalls: [],
    status: 'pending',
    createdAt: TS,
    updatedAt: TS,
    ...overrides,
  };
}

export function makeApproval(id: string, overrides: Partial<Approval> = {}): Approval {
  return {
    id,
    planId: 'P1',
    kind: 'tool',
    decisionId: 's1',
    callIndex: 0,
    tool: 'shell.run',
    args: { command: 'rm -rf cache' },
    description: 'Clear the cache',
    rationale: 'A stale cache breaks the build',
    diff: null,
    hunks: null,
    status: 'pending',
    scope: null,
    answeredBy: null,
    answeredAt: null,
    reason: null,
    usedAt: null,
    createdAt: TS,
    ...overrides,
  };
}

/** An event of `type` with valid data (shared/test-support/sample-events.ts), `data` merged in. */
export function makeEvent<T extends StreamEventType>(seq: number, type: T, data: Partial<EventData<T>> = {}, planId = 'P1'): StreamEvent {
  return { planId, seq, ts: TS, type, data: sampleData(type, data) } as StreamEvent;
}

export function makeEntry(id: string, path: string, overrides: Partial<ChangeEntryMeta> = {}): ChangeEntryMeta {
  return {
    id,
    path,
    oldPath: null,
    operation: 'modify',
    beforeHash: 'a',
    afterHash: 'b',
    binary: false,
    decisionId: null,
    invocationId: null,
    insertions: 1,
    deletions: 1,
    ...overrides,
  };
}

/** The review row of entries on one path: a fake netting, one hunk per file. */
export function reviewOf(entries: readonly ChangeEntryMeta[]): ReviewFile[] {
  const byPath = new Map<string, ChangeEntryMeta[]>();
  for (const e of entries) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  return [...byPath.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([path, list]) => ({
      path,
      oldPath: list[0].oldPath,
      operation: list[0].operation,
      binary: list.some((e) => e.binary),
      insertions: list.reduce((n, e) => n + e.insertions, 0),
      deletions: list.reduce((n, e) => n + e.deletions, 0),
      entryIds: list.map((e) => e.id),
      decisionIds: list.flatMap((e) => (e.decisionId ? [e.decisionId] : [])),
      editedByOperator: list.some((e) => e.origin === 'operator'),
      steps: list.flatMap((e) => (e.decisionId ? [{ id: e.decisionId, description: `decision ${e.decisionId}` }] : [])),
      hunks: [{ index: 1, header: '@@ -1 +1 @@', insertions: 1, deletions: 1, key: 'k1', applied: false }],
      units: 1,
      appliedHunks: [],
      state: 'remaining' as const,
    }));
}

type Handler<C extends Channel> = (request: RequestOf<C>) => ResponseOf<C> | Promise<ResponseOf<C>>;

/**
 * An in-memory host for store and view tests: answers from fields a test sets, records every call,
 * and lets the test push events to subscribers.
 */
/** The diff every fake change shows: line 1 `old` became `new`. */
const ONE_LINE_CHANGED = [
  {
    header: '@@ -1 +1 @@',
    rows: [
      { kind: 'del' as const, text: 'old', oldLine: 1, newLine: null },
      { kind: 'add' as const, text: 'new', oldLine: null, newLine: 1 },
    ],
  },
];

/** The notifications as a host shows them with nothing set: every switch on, no webhook. */
export const NOTIFY_DEFAULTS: NotifyView = { webhook: null, desktop: true, terminal: true, approval: true, failed: true, checksFailed: true, ready: true };

export class FakeBridge {
  plans: PlanListItem[] = [];
  plan: Plan = makePlan();
  decisions: StrategyDecision[] = [];
  invocations: ToolInvocation[] = [];
  events: StreamEvent[] = [];
  entries: ChangeEntryMeta[] = [];
  checkpoints: CheckpointSummary[] = [];
  errors: ErrorRecord[] = [];
  mcpServers: McpServersView['servers'] = [];
  acpAgents: AcpAgentsView['agents'] = [];
  /** What `team.status` answers: null, as over the embedded database, unless a test sets the team. */
  team: TeamStatus | null = null;
  settings: SettingsView = {
    model: null,
    baseUrl: null,
    apiKeySet: false,
    price: null,
    database: null,
    operator: null,
    notify: NOTIFY_DEFAULTS,
    effective: { model: null, modelSource: 'none', baseUrl: null, apiKeySource: 'none' },
  };
  approvals: Approval[] = [];
  readonly calls: { channel: Channel; request: unknown }[] = [];
  readonly subscriptions = new Map<number, { subscription: Subscription; listener: (event: StreamEvent) => void }>();
  private readonly overrides = new Map<Channel, (request: never) => unknown>();
  private nextSub = 1;

  on<C extends Channel>(channel: C, handler: Handler<C>): this {
    this.overrides.set(channel, handler as (request: never) => unknown);
    return this;
  }

  fail(channel: Channel, message: string): this {
    this.overrides.set(channel, () => {
      throw bridgeFailure({ code: 'wrong_state', message });
    });
    return this;
  }

  /** The plan as an action left it: what the host answers, and what plans.get says from then on. */
  private moved(plan: Plan): { plan: Plan } {
    this.plan = plan;
    return { plan };
  }

  emit(event: StreamEvent): void {
    for (const { subscription, listener } of this.subscriptions.values()) {
      if ((subscription.planId === null || subscription.planId === event.planId) && (!subscription.types || subscription.types.includes(event.type))) listener(event);
    }
  }

  /** The hunks of `path` as the review (the test's, else the default) lists them. */
  private listedHunks(path: string): ListedHunk[] {
    const review = this.overrides.get('plans.review') as ((request: { planId: string }) => ResponseOf<'plans.review'>) | undefined;
    const files = review ? review({ planId: this.plan.id }).files : reviewOf(this.entries);
    return files.find((f) => f.path === path)?.hunks ?? [];
  }

  callsTo(channel: Channel): unknown[] {
    return this.calls.filter((c) => c.channel === channel).map((c) => c.request);
  }

  private defaults(): { [C in Channel]: Handler<C> } {
    return {
      'app.info': () => ({ version: '0', dataDir: '/tmp', tools: [], nativeFileDialog: false }),
      'plans.createFromDialog': () => ({ plan: null }),
      'team.status': () => this.team,
      'plans.checkProject': (r) => ({ project: r.project ?? null, path: r.project ? `/projects/${r.project}` : null, problem: null, relativeTo: ['/projects'] }),
      'plans.list': () => ({ plans: this.plans }),
      'plans.get': () => ({
        plan: this.plan,
        actions: hostActions(this.plan, {
          decisions: this.decisions,
          pendingApproval: this.approvals.some((a) => a.status === 'pending'),
          checkpoints: this.checkpoints.length,
          partlyApplied: reviewSummary(reviewOf(this.entries)).touched > 0,
          team: this.team !== null,
        }),
      }),
      'plans.create': (r) => ({ plan: makePlan({ id: 'NEW', name: r.fileName ?? 'new', phase: 'strategize' }) }),
      'plans.decisions': (r) => ({
        decisions: this.decisions.slice(r.offset ?? 0, r.limit === undefined ? undefined : (r.offset ?? 0) + r.limit),
        total: this.decisions.length,
      }),
      'plans.invocations': () => ({ invocations: this.invocations }),
      'plans.invocationsForDecision': (r) => ({ invocations: this.invocations.filter((i) => i.decisionId === r.decisionId) }),
      'plans.toolTallies': () => {
        const tallies = new Map<string, { decisionId: string; ran: number; failed: number }>();
        for (const { decisionId, ok } of this.invocations) {
          if (!decisionId) continue;
          const tally = tallies.get(decisionId) ?? { decisionId, ran: 0, failed: 0 };
          tally.ran += 1;
          if (!ok) tally.failed += 1;
          tallies.set(decisionId, tally);
        }
        return { tallies: [...tallies.values()], throughSeq: this.events.at(-1)?.seq ?? 0 };
      },
      'plans.events': (r) => {
        const after = this.events.filter((e) => e.seq > (r.afterSeq ?? 0));
        const limit = r.limit ?? 1000;
        return { events: r.newest ? after.slice(-limit) : after.slice(0, limit), lastSeq: this.events.at(-1)?.seq ?? 0 };
      },
      'plans.changes': (r) => ({
        changesetId: this.plan.changesetId,
        total: this.entries.length,
        entries: this.entries.slice(r.offset ?? 0, (r.offset ?? 0) + (r.limit ?? 500)),
      }),
      'plans.change': (r) => {
        const entry = this.entries.find((e) => e.id === r.entryId);
        if (!entry) throw bridgeFailure({ code: 'invalid_request', message: `no change entry "${r.entryId}"`, field: 'entryId' });
        return { entry, hunks: ONE_LINE_CHANGED };
      },
      'plans.review': () => ({ changesetId: this.plan.changesetId, files: reviewOf(this.entries) }),
      'plans.reviewDiff': (r) => {
        const file = reviewOf(this.entries).find((f) => f.path === r.path);
        if (!file) throw bridgeFailure({ code: 'invalid_request', message: `no change to "${r.path}"`, field: 'path' });
        return { file, hunks: ONE_LINE_CHANGED };
      },
      'plans.errors': () => ({ planId: this.plan.id, errors: this.errors, recoveryDecisions: [], recoveryHints: [] }),
      'plans.approvals': () => ({ planId: this.plan.id, pending: this.approvals.find((a) => a.status === 'pending') ?? null, approvals: this.approvals }),
      'plans.approve': () => this.moved({ ...this.plan, processingState: 'processing', waitingFor: null }),
      'plans.reject': () => this.moved({ ...this.plan, processingState: 'processing', waitingFor: null }),
      'plans.skip': () => this.moved({ ...this.plan, processingState: 'queued' }),
      'plans.setProfile': (r) => this.moved({ ...this.plan, automationProfile: { ...this.plan.automationProfile, name: r.profile } }),
      'plans.run': () => this.moved({ ...this.plan, processingState: 'processing' }),
      'plans.step': () => ({ plan: this.plan }),
      'plans.continue': () => ({ plan: this.plan }),
      'plans.pause': () => ({ plan: this.plan }),
      'plans.breakpoint': (r) => ({ breakpoints: r.enabled ? [r.decisionId] : [] }),
      'plans.retry': () => this.moved({ ...this.plan, processingState: 'processing' }),
      'plans.reset': () => this.moved({ ...this.plan, processingState: 'queued' }),
      'plans.apply': (r) => ({ planId: this.plan.id, applied: r.paths ?? this.entries.map((e) => e.path), conflicts: [], skipped: [], remaining: [], complete: true }),
      'plans.discard': () => this.moved({ ...this.plan, processingState: 'cancelled' }),
      'plans.readFile': (r) => ({ path: r.path, content: '', binary: false }),
      'plans.saveFile': () => ({ entry: null }),
      'plans.openSandbox': () => ({}),
      'plans.correct': () => this.moved({ ...this.plan, processingState: 'processing' }),
      'plans.checks': () => ({ planId: this.plan.id, summary: this.plan.checks ?? null, checks: [], results: [], criteria: [] }),
      'plans.verify': () => this.moved({ ...this.plan, processingState: 'processing' }),
      'plans.checkpoints': () => ({ checkpoints: this.checkpoints }),
      'plans.rewindPreview': (r) => ({ planId: this.plan.id, toStep: r.toStep, steps: 1, files: [], operatorEdits: [], entriesRewound: 0 }),
      'plans.rewind': (r) => ({
        ...this.moved({ ...this.plan, phase: 'execute', processingState: 'queued' }),
        rewind: { planId: this.plan.id, toStep: r.toStep, steps: 1, files: [], operatorEdits: [], entriesRewound: 0, decisionId: 'REWIND' },
      }),
      'plans.fork': (r) => ({
        plan: { ...this.plan, id: 'FORK', phase: 'execute', processingState: 'queued', forkedFrom: { planId: this.plan.id, atStep: r.atStep, checkpointAt: this.plan.createdAt, by: 'console', at: this.plan.createdAt } },
        fork: { forkId: 'FORK', from: this.plan.id, atStep: r.atStep, sharedSteps: r.atStep - 1, sharedEntries: 0, changes: {} },
      }),
      'plans.compare': (r) => {
        const side = (planId: string) => ({ planId, name: this.plan.name, status: 'Ready to apply', files: [], stepsDone: 0, steps: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, cost: null, durationMs: 0 });
        return { projectPath: this.plan.projectPath, a: side(r.planId), b: side(r.with), onlyA: [], onlyB: [], both: [] };
      },
      // Kept as the host keeps them: each with its hunk's key, replacing the rejections of the hunks named.
      'plans.rejectHunks': (r) => {
        const listed = this.listedHunks(r.path);
        const added = r.hunks.map((hunk) => ({ path: r.path, hunk, lines: '', key: listed[hunk - 1]?.key, reason: r.reason?.trim() || null, by: 'console', at: new Date().toISOString() }));
        this.plan = { ...this.plan, rejectedHunks: withRejections(this.plan.rejectedHunks ?? [], r.path, r.hunks, added, listed) };
        return { plan: this.plan };
      },
      'plans.restoreHunks': (r) => {
        this.plan = { ...this.plan, rejectedHunks: withRejections(this.plan.rejectedHunks ?? [], r.path, r.hunks, [], this.listedHunks(r.path)) };
        return { plan: this.plan };
      },
      'settings.get': () => this.settings,
      'settings.set': (r) => {
        const patch = r as { model?: string; apiKey?: string };
        if (patch.model !== undefined) this.settings = { ...this.settings, model: patch.model || null };
        if (patch.apiKey !== undefined) this.settings = { ...this.settings, apiKeySet: patch.apiKey !== '' };
        if (r.notify) {
          const { webhook, ...switches } = r.notify;
          this.settings = { ...this.settings, notify: { ...this.settings.notify, ...switches, ...(webhook !== undefined && { webhook: webhook || null }) } };
        }
        return this.settings;
      },
      'settings.mcp': () => ({ servers: this.mcpServers }),
      'settings.mcpAdd': (r) => {
        this.mcpServers = [...this.mcpServers.filter((s) => s.name !== r.name), { name: r.name, summary: r.url ?? r.commandLine ?? '', local: r.url === undefined }];
        return { servers: this.mcpServers };
      },
      'settings.mcpRemove': (r) => {
        this.mcpServers = this.mcpServers.filter((s) => s.name !== r.name);
        return { servers: this.mcpServers };
      },
      'settings.acp': () => ({ agents: this.acpAgents }),
      'settings.acpAdd': (r) => {
        const env = (r.env ?? []).map((pair) => pair.split('=')[0]);
        const row = { name: r.name, builtin: false, summary: `${r.commandLine}${env.length > 0 ? ` (env: ${env.join(', ')})` : ''}`, installed: true, starts: true, version: 'scripted 1.0', modes: ['default'], problem: null };
        this.acpAgents = [...this.acpAgents.filter((a) => a.name !== r.name), row];
        return { agents: this.acpAgents };
      },
      'settings.acpRemove': (r) => {
        this.acpAgents = this.acpAgents.filter((a) => a.name !== r.name);
        return { agents: this.acpAgents };
      },
    };
  }

  asBridge(): Bridge {
    const defaults = this.defaults();
    const call = async (channel: Channel, request: unknown) => {
      this.calls.push({ channel, request });
      await Promise.resolve();
      const handler = (this.overrides.get(channel) ?? defaults[channel]) as (request: unknown) => unknown;
      return handler(request);
    };
    const bridge = Object.fromEntries(Object.keys(defaults).map((channel) => [channel, (request: unknown) => call(channel as Channel, request)]));
    return {
      ...bridge,
      subscribe: (subscription: Subscription, listener: (event: StreamEvent) => void) => {
        const id = this.nextSub++;
        this.subscriptions.set(id, { subscription, listener });
        return () => this.subscriptions.delete(id);
      },
    } as unknown as Bridge;
  }
}

/** Lets every pending promise chain run. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}
