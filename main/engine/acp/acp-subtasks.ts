import type { Plan as AcpPlan } from '@agentclientprotocol/sdk/unstable';
import { type Subtask, SUBTASK_PRIORITIES, SUBTASK_STATUSES } from '../../../shared/subtasks';
import type { PlanLifecycleService } from '../run/lifecycle';
import type { StepContext } from '../run/runtime-execute-actor';

/** An ACP `plan` update's entries as sub-tasks: unknown statuses and priorities (an agent's own words) read as pending and medium. */
export function subtasksOf(update: Pick<AcpPlan, 'entries'>): Subtask[] {
  return (update.entries ?? []).map((entry) => ({
    content: String(entry.content ?? '').slice(0, 2_000),
    status: (SUBTASK_STATUSES as readonly string[]).includes(entry.status) ? entry.status : 'pending',
    priority: (SUBTASK_PRIORITIES as readonly string[]).includes(entry.priority) ? entry.priority : 'medium',
  }));
}

/**
 * A step's sub-tasks as the agent's `plan` updates send them: each update is the whole list, so it
 * replaces the step's; one the same as the last is not recorded again (agents repeat theirs).
 */
export class StepSubtasks {
  private last = '';

  constructor(
    private readonly lifecycle: PlanLifecycleService,
    private readonly decisionId: string,
    private readonly emit: StepContext['emit'],
  ) {}

  async record(update: Pick<AcpPlan, 'entries'>): Promise<void> {
    const entries = subtasksOf(update);
    const key = JSON.stringify(entries);
    if (key === this.last) return;
    this.last = key;
    await this.lifecycle.saveDecisionSubtasks(this.decisionId, entries);
    this.emit('step_subtasks', { decisionId: this.decisionId, entries });
  }
}
