import { z } from 'zod';

/** The nine event types of the seed, in the order a successful run emits them per mode. */
export const SEED_EVENT_TYPES = [
  'strategize_started',
  'strategize_decisions',
  'strategize_complete',
  'execute_started',
  'execute_step',
  'execute_complete',
  'runtime_execute_started',
  'runtime_execute_step',
  'runtime_execute_complete',
] as const;

/** Events the engine adds beyond the seed's. */
export const ENGINE_EVENT_TYPES = [
  'plan_created',
  'state_changed',
  'decision_status',
  'tool_call_started',
  'tool_call_finished',
  'change_recorded',
  'error_recorded',
  'retry_scheduled',
  'paused',
  'apply_complete',
  'approval_requested',
  'approval_resolved',
  'recovery_applied',
] as const;

export const STREAM_EVENT_TYPES = [...SEED_EVENT_TYPES, ...ENGINE_EVENT_TYPES] as const;
export const StreamEventTypeSchema = z.enum(STREAM_EVENT_TYPES);
export type StreamEventType = z.infer<typeof StreamEventTypeSchema>;

export const StreamEventSchema = z.object({
  planId: z.string().min(1),
  /** Monotonic per plan, starting at 1. */
  seq: z.number().int().positive(),
  ts: z.string(),
  type: StreamEventTypeSchema,
  data: z.record(z.string(), z.unknown()),
});
export type StreamEvent = z.infer<typeof StreamEventSchema>;

export type StreamCallback = (event: StreamEvent) => void;
