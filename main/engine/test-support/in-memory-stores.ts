// Fakes of the engine's ports for tests: each keeps one process's memory. Production code never
// creates these; it is given SQLite stores (docs/ARCHITECTURE.md, "Required dependencies"). The
// in-memory ChangeSetStore lives in the engine, as PlanExecutionContext's fallback.
import type { CheckResult } from '../../../shared/checks';
import type { CheckResultStore } from '../checks/check-store';
import type { Approval } from '../../../shared/approvals';
import type { DecisionStatus, Plan, ProcessingState, StrategyDecision } from '../../../shared/domain';
import type { ErrorRecord } from '../../../shared/error-records';
import type { Subtask } from '../../../shared/subtasks';
import type { ToolInvocation } from '../../../shared/tool-calls';
import type { ToolTally } from '../../../shared/contract';
import type { EventData, StreamEvent, StreamEventOf, StreamEventType } from '../../../shared/events';
import type { CheckpointSummary } from '../../../shared/checkpoints';
import { type ApprovalStore, checkAnswerable } from '../ports/approvals';
import type { CheckpointStore, RewindJournal, StoredCheckpoint } from '../checkpoints/checkpoint-store';
import { EventPublisher, type EventLog } from '../ports/event-stream';
import { isLeaseLive, type Lease, type LeaseStore } from '../ports/leases';
import { PlanLifecycleService } from '../run/lifecycle';
import type { PlanRepository, StepCounts } from '../ports/plan-repository';
import type { ErrorLog } from '../ports/recovery';
import type { InvocationLog } from '../ports/invocation-log';
import { ToolRegistry, ToolRunner } from '../run/tool-runner';

export { InMemoryChangeSetStore } from '../run/in-memory-changeset-store';

export class InMemoryPlanRepository implements PlanRepository {
  private readonly plans = new Map<string, Plan>();
  private readonly decisions = new Map<string, StrategyDecision>();

  async insert(plan: Plan): Promise<void> {
    if (this.plans.has(plan.id)) throw new Error(`plan ${plan.id} already exists`);
    this.plans.set(plan.id, structuredClone(plan));
  }

  async get(id: string): Promise<Plan | undefined> {
    const plan = this.plans.get(id);
    return plan && structuredClone(plan);
  }

  async list(): Promise<Plan[]> {
    return [...this.plans.values()].map((p) => structuredClone(p)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  async listInStates(states: readonly ProcessingState[]): Promise<Plan[]> {
    return (await this.list()).filter((plan) => states.includes(plan.processingState));
  }

  async update(id: string, patch: Partial<Omit<Plan, 'id' | 'createdAt'>>): Promise<Plan> {
    const plan = this.plans.get(id);
    if (!plan) throw new Error(`unknown plan ${id}`);
    const next = { ...plan, ...structuredClone(patch), updatedAt: new Date().toISOString() };
    this.plans.set(id, next);
    return structuredClone(next);
  }

  async saveDecisions(decisions: readonly StrategyDecision[]): Promise<void> {
    for (const decision of decisions) this.decisions.set(decision.id, structuredClone(decision));
  }

  async saveDecisionStatus(decisionId: string, status: DecisionStatus, updatedAt: string): Promise<void> {
    const decision = this.decisions.get(decisionId);
    if (!decision) throw new Error(`unknown decision ${decisionId}`);
    this.decisions.set(decisionId, { ...decision, status, updatedAt });
  }

  async saveDecisionSubtasks(decisionId: string, subtasks: readonly Subtask[] | null): Promise<void> {
    const decision = this.decisions.get(decisionId);
    if (!decision) throw new Error(`unknown decision ${decisionId}`);
    const { subtasks: _dropped, ...rest } = decision;
    this.decisions.set(decisionId, subtasks ? { ...rest, subtasks: structuredClone([...subtasks]) } : rest);
  }

  async listDecisions(planId: string): Promise<StrategyDecision[]> {
    return [...this.decisions.values()]
      .filter((d) => d.planId === planId)
      .sort((a, b) => a.order - b.order || a.id.localeCompare(b.id))
      .map((d) => structuredClone(d));
  }

  async stepCounts(planId: string): Promise<StepCounts> {
    const steps = (await this.listDecisions(planId)).filter((d) => d.type === 'strategy_choice');
    return { total: steps.length, done: steps.filter((d) => d.status === 'done').length, failedOrRunning: steps.filter((d) => d.status === 'failed' || d.status === 'running').length };
  }
}

export class InMemoryEventLog implements EventLog {
  private readonly events = new Map<string, StreamEvent[]>();
  async append(event: StreamEvent): Promise<void> {
    const list = this.events.get(event.planId) ?? [];
    list.push(event);
    this.events.set(event.planId, list);
  }
  async list(planId: string, afterSeq = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StreamEvent[]> {
    return (this.events.get(planId) ?? []).filter((e) => e.seq > afterSeq).slice(0, limit);
  }
  async lastSeq(planId: string): Promise<number> {
    return this.events.get(planId)?.at(-1)?.seq ?? 0;
  }
  async appendNext<T extends StreamEventType>(planId: string, type: T, data: EventData<T>): Promise<StreamEventOf<T>> {
    const event = { planId, seq: (await this.lastSeq(planId)) + 1, ts: new Date().toISOString(), type, data } as StreamEventOf<T>;
    await this.append(event as StreamEvent);
    return event;
  }

}

export class InMemoryInvocationLog implements InvocationLog {
  private readonly invocations: ToolInvocation[] = [];
  async record(invocation: ToolInvocation): Promise<void> {
    this.invocations.push(invocation);
  }
  async listForPlan(planId: string): Promise<ToolInvocation[]> {
    return this.invocations.filter((i) => i.planId === planId);
  }
  async listForDecision(decisionId: string): Promise<ToolInvocation[]> {
    return this.invocations.filter((i) => i.decisionId === decisionId);
  }
  async talliesForPlan(planId: string): Promise<ToolTally[]> {
    const tallies = new Map<string, ToolTally>();
    for (const { decisionId, ok } of await this.listForPlan(planId)) {
      if (decisionId === null) continue;
      const tally = tallies.get(decisionId) ?? { decisionId, ran: 0, failed: 0 };
      tally.ran += 1;
      if (!ok) tally.failed += 1;
      tallies.set(decisionId, tally);
    }
    return [...tallies.values()];
  }
}

export class InMemoryErrorLog implements ErrorLog {
  readonly records: ErrorRecord[] = [];
  async record(record: ErrorRecord): Promise<void> {
    this.records.push(record);
  }
  async listForPlan(planId: string): Promise<ErrorRecord[]> {
    return this.records.filter((r) => r.planId === planId);
  }
}

/** A LeaseStore for tests: one process's memory. */
export class InMemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, Lease>();
  async acquire(planId: string, pid: number, host: string): Promise<boolean> {
    const current = this.leases.get(planId);
    if (current && current.pid !== pid && isLeaseLive(current)) return false;
    const now = new Date().toISOString();
    this.leases.set(planId, { planId, pid, hostname: host, heartbeatAt: now, acquiredAt: now });
    return true;
  }
  async heartbeat(planId: string, pid: number): Promise<void> {
    const lease = this.leases.get(planId);
    if (lease?.pid === pid) lease.heartbeatAt = new Date().toISOString();
  }
  async release(planId: string, pid: number): Promise<void> {
    if (this.leases.get(planId)?.pid === pid) this.leases.delete(planId);
  }
  async get(planId: string): Promise<Lease | undefined> {
    return this.leases.get(planId);
  }
}

export class InMemoryCheckResultStore implements CheckResultStore {
  private readonly results: CheckResult[] = [];
  async record(result: CheckResult): Promise<void> {
    this.results.push(structuredClone(result));
  }
  async listForPlan(planId: string): Promise<CheckResult[]> {
    return this.results.filter((r) => r.planId === planId).map((r) => structuredClone(r));
  }
}

export class InMemoryApprovalStore implements ApprovalStore {
  private readonly approvals = new Map<string, Approval>();
  async add(approval: Approval): Promise<void> {
    if (this.approvals.has(approval.id)) throw new Error(`approval ${approval.id} already exists`);
    this.approvals.set(approval.id, structuredClone(approval));
  }
  async get(id: string): Promise<Approval | undefined> {
    const found = this.approvals.get(id);
    return found && structuredClone(found);
  }
  async listForPlan(planId: string): Promise<Approval[]> {
    return [...this.approvals.values()].filter((a) => a.planId === planId).map((a) => structuredClone(a));
  }
  async update(id: string, patch: Parameters<ApprovalStore['update']>[1]): Promise<Approval> {
    const found = this.approvals.get(id);
    if (!found) throw new Error(`unknown approval ${id}`);
    checkAnswerable(found, patch);
    Object.assign(found, patch);
    return structuredClone(found);
  }
}

/** A lifecycle service over in-memory stores, with its publisher. */
export function inMemoryLifecycle(repository: PlanRepository = new InMemoryPlanRepository()): PlanLifecycleService {
  return new PlanLifecycleService(repository, new EventPublisher(new InMemoryEventLog()));
}

/** A tool runner whose invocations are kept in memory. */
export function inMemoryToolRunner(registry: ToolRegistry = new ToolRegistry()): ToolRunner {
  return new ToolRunner(registry, new InMemoryInvocationLog());
}

/** Checkpoints and rewind journals in memory. */
export class InMemoryCheckpointStore implements CheckpointStore {
  private readonly checkpoints: StoredCheckpoint[] = [];
  private readonly journals = new Map<string, RewindJournal>();

  async add(checkpoint: StoredCheckpoint): Promise<void> {
    await this.removeAfter(checkpoint.planId, checkpoint.step - 1);
    this.checkpoints.push(structuredClone(checkpoint));
  }

  async list(planId: string): Promise<StoredCheckpoint[]> {
    return this.checkpoints
      .filter((c) => c.planId === planId)
      .sort((a, b) => a.step - b.step)
      .map((c) => structuredClone(c));
  }

  async summaries(planId: string): Promise<CheckpointSummary[]> {
    return (await this.list(planId)).map(({ delta: _delta, changesetId: _changeset, decisions: _decisions, usage: _usage, ...summary }) => summary);
  }

  async count(planId: string): Promise<number> {
    return this.checkpoints.filter((c) => c.planId === planId).length;
  }

  async removeAfter(planId: string, step: number): Promise<void> {
    for (let i = this.checkpoints.length - 1; i >= 0; i--) {
      if (this.checkpoints[i].planId === planId && this.checkpoints[i].step > step) this.checkpoints.splice(i, 1);
    }
  }

  async referencedObjects(): Promise<Set<string>> {
    const hashes = new Set<string>();
    for (const checkpoint of this.checkpoints) for (const entry of Object.values(checkpoint.delta)) if (entry?.kind === 'file') hashes.add(entry.hash);
    for (const journal of this.journals.values()) for (const op of journal.ops) if (op.op === 'write') hashes.add(op.hash);
    return hashes;
  }

  async beginRewind(journal: RewindJournal): Promise<void> {
    this.journals.set(journal.planId, structuredClone(journal));
  }

  async pendingRewinds(): Promise<RewindJournal[]> {
    return [...this.journals.values()].map((j) => structuredClone(j));
  }

  async endRewind(planId: string): Promise<void> {
    this.journals.delete(planId);
  }
}
