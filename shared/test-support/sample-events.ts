// Valid `data` for every event type, for tests that need an event and do not care which values it holds.
import type { EventData, StreamEventType } from '../events';

const meta = {
  id: '01ENTRY',
  path: 'README.md',
  oldPath: null,
  operation: 'modify',
  beforeHash: 'a',
  afterHash: 'b',
  binary: false,
  decisionId: '01DECISION',
  invocationId: '01INVOCATION',
  insertions: 1,
  deletions: 1,
} as const;

const SAMPLES: { [T in StreamEventType]: EventData<T> } = {
  strategize_started: {},
  strategize_decisions: { decisionRootId: '01ROOT', decisionCount: 2, invariantRecords: [] },
  strategize_complete: { decisionRootId: '01ROOT' },
  execute_started: { changesetId: '01CHANGESET', decisionCount: 1, sandboxRoot: null },
  execute_step: { decisionId: '01DECISION', index: 1, total: 1, description: 'a step' },
  execute_complete: { changesetId: '01CHANGESET', toolCallsCount: 0, entryCount: 0 },
  runtime_execute_started: { changesetId: '01CHANGESET', decisionCount: 1, sandboxRoot: null },
  runtime_execute_step: { decisionId: '01DECISION', index: 1, total: 1, description: 'a step' },
  runtime_execute_complete: { changesetId: '01CHANGESET', toolCallCount: 1, sandboxRefs: [], decisionIdsProcessed: [], executionDurationMs: 1 },
  plan_created: { name: 'a plan', phase: 'strategize', processingState: 'queued' },
  state_changed: { from: 'queued', to: 'processing', phase: 'execute' },
  decision_status: { decisionId: '01DECISION', status: 'running' },
  tool_call_started: { decisionId: '01DECISION', tool: 'file.write', args: {} },
  tool_call_finished: { decisionId: '01DECISION', invocationId: '01INVOCATION', tool: 'file.write', ok: true, durationMs: 1 },
  change_recorded: { entry: meta },
  error_recorded: {
    id: '01ERROR',
    planId: '01PLAN',
    phase: 'execute',
    decisionId: null,
    attempt: 1,
    category: 'tool',
    retriable: false,
    recoveryAction: 'manual',
    message: 'failed',
    hint: 'fix it',
    next: null,
    outcome: 'gave_up',
    createdAt: '2026-01-01T00:00:00.000Z',
  },
  retry_scheduled: { phase: 'execute', decisionId: null, attempt: 2, delayMs: 10, error: 'flaky' },
  paused: { decisionId: '01DECISION', index: 1, total: 1, reason: 'step', description: 'a step' },
  apply_complete: { ok: true, planId: '01PLAN', applied: [], conflicts: [], skipped: [], remaining: [], complete: true },
  approval_requested: { approvalId: '01APPROVAL', decisionId: '01DECISION', tool: 'shell.run', args: {}, description: 'a step' },
  approval_resolved: { approvalId: '01APPROVAL', decisionId: '01DECISION', tool: 'shell.run', approved: true, scope: 'once', answeredBy: 'operator', reason: null },
  recovery_applied: { action: 'skip', decisionId: null, description: 'skipped', by: 'operator' },
  model_output: { decisionId: null, phase: 'strategize', text: 'thinking' },
  model_usage: { decisionId: null, phase: 'strategize', inputTokens: 10, outputTokens: 5, stepInputTokens: 10, stepOutputTokens: 5, planInputTokens: 10, planOutputTokens: 5 },
  checkpoint_created: { id: 'C1', step: 1, decisionId: 'D1', description: 'step 1', createdAt: '2026-01-01T00:00:00.000Z', filesChanged: 3, entries: 0, inputTokens: 0, outputTokens: 0 },
  plan_rewound: { toStep: 1, fromStep: 2, decisionId: 'D9', by: 'operator', files: 2, entriesRewound: 2, recovered: false },
  plan_forked: { originPlanId: 'P1', forkPlanId: 'P2', atStep: 2, profile: null, model: null },
};

/** Valid data for an event of `type`, with `overrides` merged in. */
export function sampleData<T extends StreamEventType>(type: T, overrides: Partial<EventData<T>> = {}): EventData<T> {
  return { ...SAMPLES[type], ...overrides } as EventData<T>;
}
