import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecuteResult, StrategyDecision } from '../../../shared/domain';
import type { StreamCallback } from '../../../shared/events';
import { newId } from '../../../shared/ids';
import { ChangeSetCapture } from './change-capture';
import type { EventPublisher } from '../ports/event-stream';
import type { ToolRunner } from './tool-runner';

/**
 * The legacy execute path, used when no execution context is given: a throw-away sandbox,
 * tool calls through the runner when one is given, and changes captured in memory.
 */
export class ExecuteStubActor {
  constructor(
    private readonly toolRunner: ToolRunner | null,
    private readonly events: EventPublisher,
  ) {}

  async execute(planId: string, decisions: readonly StrategyDecision[], streamCallback?: StreamCallback): Promise<ExecuteResult> {
    const emit = this.events.emitterFor(planId, streamCallback);
    const sandboxRoot = mkdtempSync(join(tmpdir(), 'agents-stub-'));
    const capture = new ChangeSetCapture();
    const changesetId = newId();
    let toolCallsCount = 0;
    await emit('execute_started', { changesetId, decisionCount: decisions.length, sandboxRoot });
    for (const [index, decision] of decisions.entries()) {
      await emit('execute_step', { decisionId: decision.id, index: index + 1, total: decisions.length, description: decision.description });
      if (!this.toolRunner) continue;
      for (const call of decision.toolCalls) {
        toolCallsCount += 1;
        await this.toolRunner.execute(call, {
          planId,
          decisionId: decision.id,
          sandboxRoot,
          recordChange: async (change, invocationId) => {
            capture.capture(change, { decisionId: decision.id, invocationId });
          },
        });
      }
    }
    const result: ExecuteResult = {
      changesetId,
      changeset: { id: changesetId, planId, createdAt: new Date().toISOString(), entries: capture.entries },
      toolCallsCount,
      sandboxRefs: [sandboxRoot],
    };
    await emit('execute_complete', { changesetId, toolCallsCount, entryCount: capture.entries.length });
    return result;
  }
}
