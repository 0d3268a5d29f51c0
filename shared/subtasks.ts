import { z } from 'zod';

/**
 * A step's sub-tasks: the entries of a coding agent's `plan` update (ACP's plan entries) while it
 * runs the step. Each update replaces the list; a rewind clears it for the steps rewound.
 */
export const SUBTASK_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export const SUBTASK_PRIORITIES = ['high', 'medium', 'low'] as const;

export const SubtaskSchema = z.object({
  content: z.string(),
  status: z.enum(SUBTASK_STATUSES),
  priority: z.enum(SUBTASK_PRIORITIES),
});
export type Subtask = z.infer<typeof SubtaskSchema>;

/** "2/5": the sub-tasks completed of all. */
export function subtaskTally(subtasks: readonly Subtask[]): string {
  return `${subtasks.filter((s) => s.status === 'completed').length}/${subtasks.length}`;
}

/** The mark a sub-task's status is shown with, in the terminal and the console alike. */
export const SUBTASK_MARKS: Record<Subtask['status'], string> = { pending: '○', in_progress: '◐', completed: '●' };

export const SUBTASK_STATUS_LABELS: Record<Subtask['status'], string> = { pending: 'pending', in_progress: 'in progress', completed: 'completed' };
