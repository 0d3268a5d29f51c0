// Fakes of the engine's ports for tests: each keeps one process's memory. Production code never
// creates these; it is given SQLite stores (docs/ARCHITECTURE.md, "Required dependencies"). The
// in-memory ChangeSetStore lives in the engine, as PlanExecutionContext's fallback.
import type { CheckResult } from '../../../shared/checks';
import type { CheckResultStore } from '../checks/check-store';
import type { Approval, DecisionStatus, ErrorRecord, Plan, ProcessingState, StrategyDecision, ToolInvocation } from '../../../shared/domain';
import type { ToolTally } from '../../../shared/contract';
import type { EventData, StreamEvent, StreamEventOf, StreamEventType } from '../../../shared/events';
import type { CheckpointSummary } from '../../../shared/checkpoints';
import type { ApprovalStore } from '../approvals';
import type { CheckpointStore, RewindJournal, StoredCheckpoint } from '../checkpoints/checkpoint-store';
import { EventPublisher, type EventLog } from '../event-stream';
import { isLeaseLive, type Lease, type LeaseStore } from '../leases';
import { PlanLifecycleService } from '../lifecycle';
import type { PlanRepository, StepCounts } from '../plan-repository';
import type { ErrorLog } from '../recovery';
import { type InvocationLog, ToolRegistry, ToolRunner } from '../tool-runner';

export { InMemoryChangeSetStore } from '../in-memory-changeset-store';

export class InMemoryPlanRepository implements PlanRepository {
  private readonly plans = new Map<string, Plan>();
  private readonly decisions = new Map<string, StrategyDecision>();

  insert(plan: Plan): void {
    if (this.plans.has(plan.id)) throw new Error(`plan ${plan.id} already exists`);
    this.plans.set(plan.id, structuredClone(plan));
  }

  get(id: string): Plan | undefined {
    const plan = this.plans.get(id);
    return plan && structuredClone(plan);
  }

  list(): Plan[] {
    return [...this.plans.values()].map((p) => structuredClone(p)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  listInStates(states: readonly ProcessingState[]): Plan[] {
    return this.list().filter((plan) => states.includes(plan.processingState));
  }

  update(id: string, patch: Partial<Omit<Plan, 'id' | 'createdAt'>>): Plan {
    const plan = this.plans.get(id);
    if (!plan) throw new Error(`unknown plan ${id}`);
    const next = { ...plan, ...structuredClone(patch), updatedAt: new Date().toISOString() };
    this.plans.set(id, next);
    return structuredClone(next);
  }

  saveDecisions(decisions: readonly StrategyDecision[]): void {
    for (const decision of decisions) this.decisions.set(decision.id, structuredClone(decision));
  }

  saveDecisionStatus(decisionId: string, status: DecisionStatus, updatedAt: string): void {
    const decision = this.decisions.get(decisionId);
    if (!decision) throw new Error(`unknown decision ${decisionId}`);
    this.decisions.set(decisionId, { ...decision, status, updatedAt });
  }

  listDecisions(planId: string): StrategyDecision[] {
    return [...this.decisions.values()]
      .filter((d) => d.planId === planId)
      .sort((a, b) => a.order - b.order || a.id.localeCompare(b.id))
      .map((d) => structuredClone(d));
  }

  stepCounts(planId: string): StepCounts {
    const steps = this.listDecisions(planId).filter((d) => d.type === 'strategy_choice');
    return { total: steps.length, done: steps.filter((d) => d.status === 'done').length, failedOrRunning: steps.filter((d) => d.status === 'failed' || d.status === 'running').length };
  }
}

export class InMemoryEventLog implements EventLog {
  private readonly events = new Map<string, StreamEvent[]>();
  append(event: StreamEvent): void {
    const list = this.events.get(event.planId) ?? [];
    list.push(event);
    this.events.set(event.planId, list);
  }
  list(planId: string, afterSeq = 0, limit = Number.MAX_SAFE_INTEGER): StreamEvent[] {
    return (this.events.get(planId) ?? []).filter((e) => e.seq > afterSeq).slice(0, limit);
  }
  lastSeq(planId: string): number {
    return this.events.get(planId)?.at(-1)?.seq ?? 0;
  }
  appendNext<T extends StreamEventType>(planId: string, type: T, data: EventData<T>): StreamEventOf<T> {
    const event = { planId, seq: this.lastSeq(planId) + 1, ts: new Date().toISOString(), type, data } as StreamEventOf<T>;
    this.append(event as StreamEvent);
    return event;
  }

}

export class InMemoryInvocationLog implements InvocationLog {
  private readonly invocations: ToolInvocation[] = [];
  record(invocation: ToolInvocation): void {
    this.invocations.push(invocation);
  }
  listForPlan(planId: string): ToolInvocation[] {
    return this.invocations.filter((i) => i.planId === planId);
  }
  listForDecision(decisionId: string): ToolInvocation[] {
    return this.invocations.filter((i) => i.decisionId === decisionId);
  }
  talliesForPlan(planId: string): ToolTally[] {
    const tallies = new Map<string, ToolTally>();
    for (const { decisionId, ok } of this.listForPlan(planId)) {
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
  record(record: ErrorRecord): void {
    this.records.push(record);
  }
  listForPlan(planId: string): ErrorRecord[] {
    return this.records.filter((r) => r.planId === planId);
  }
}

/** A LeaseStore for tests: one process's memory. */
export class InMemoryLeaseStore implements LeaseStore {
  private readonly leases = new Map<string, Lease>();
  acquire(planId: string, pid: number, host: string): boolean {
    const current = this.leases.get(planId);
    if (current && current.pid !== pid && isLeaseLive(current)) return false;
    const now = new Date().toISOString();
    this.leases.set(planId, { planId, pid, hostname: host, heartbeatAt: now, acquiredAt: now });
    return true;
  }
  heartbeat(planId: string, pid: number): void {
    const lease = this.leases.get(planId);
    if (lease?.pid === pid) lease.heartbeatAt = new Date().toISOString();
  }
  release(planId: string, pid: number): void {
    if (this.leases.get(planId)?.pid === pid) this.leases.delete(planId);
  }
  get(planId: string): Lease | undefined {
    return this.leases.get(planId);
  }
}

export class InMemoryCheckResultStore implements CheckResultStore {
  private readonly results: CheckResult[] = [];
  record(result: CheckResult): void {
    this.results.push(structuredClone(result));
  }
  listForPlan(planId: string): CheckResult[] {
    return this.results.filter((r) => r.planId === planId).map((r) => structuredClone(r));
  }
}

export class InMemoryApprovalStore implements ApprovalStore {
  private readonly approvals = new Map<string, Approval>();
  add(approval: Approval): void {
    if (this.approvals.has(approval.id)) throw new Error(`approval ${approval.id} already exists`);
    this.approvals.set(approval.id, structuredClone(approval));
  }
  get(id: string): Approval | undefined {
    const found = this.approvals.get(id);
    return found && structuredClone(found);
  }
  listForPlan(planId: string): Approval[] {
    return [...this.approvals.values()].filter((a) => a.planId === planId).map((a) => structuredClone(a));
  }
  update(id: string, patch: Parameters<ApprovalStore['update']>[1]): Approval {
    const found = this.approvals.get(id);
    if (!found) throw new Error(`unknown approval ${id}`);
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

  add(checkpoint: StoredCheckpoint): void {
    this.removeAfter(checkpoint.planId, checkpoint.step - 1);
    this.checkpoints.push(structuredClone(checkpoint));
  }

  list(planId: string): StoredCheckpoint[] {
    return this.checkpoints
      .filter((c) => c.planId === planId)
      .sort((a, b) => a.step - b.step)
      .map((c) => structuredClone(c));
  }

  summaries(planId: string): CheckpointSummary[] {
    return this.list(planId).map(({ delta: _delta, changesetId: _changeset, decisions: _decisions, usage: _usage, ...summary }) => summary);
  }

  count(planId: string): number {
    return this.checkpoints.filter((c) => c.planId === planId).length;
  }

  removeAfter(planId: string, step: number): void {
    for (let i = this.checkpoints.length - 1; i >= 0; i--) {
      if (this.checkpoints[i].planId === planId && this.checkpoints[i].step > step) this.checkpoints.splice(i, 1);
    }
  }

  referencedObjects(): Set<string> {
    const hashes = new Set<string>();
    for (const checkpoint of this.checkpoints) for (const entry of Object.values(checkpoint.delta)) if (entry?.kind === 'file') hashes.add(entry.hash);
    for (const journal of this.journals.values()) for (const op of journal.ops) if (op.op === 'write') hashes.add(op.hash);
    return hashes;
  }

  beginRewind(journal: RewindJournal): void {
    this.journals.set(journal.planId, structuredClone(journal));
  }

  pendingRewinds(): RewindJournal[] {
    return [...this.journals.values()].map((j) => structuredClone(j));
  }

  endRewind(planId: string): void {
    this.journals.delete(planId);
  }
}
