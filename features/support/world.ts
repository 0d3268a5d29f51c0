import { setWorldConstructor, World } from '@cucumber/cucumber';
import type { ChangeEntry } from '../../shared/changes';
import type { StrategyDecision } from '../../shared/domain';
import type { StreamEvent } from '../../shared/events';
import { newId } from '../../shared/ids';
import type { ChangeSetStore } from '../../main/engine/ports/changeset-store';
import type { PlanExecutionContext } from '../../main/engine/run/execution-context';
import type { PlanExecutor } from '../../main/engine/run/plan-executor';
import type { PlanLifecycleService } from '../../main/engine/run/lifecycle';
import type { RuntimeExecuteActor } from '../../main/engine/run/runtime-execute-actor';
import type { ToolRunner } from '../../main/engine/run/tool-runner';

/** State shared by the steps of one scenario. */
export class EngineWorld extends World {
  store!: ChangeSetStore;
  planId!: string;
  context?: PlanExecutionContext;
  toolRunner?: ToolRunner;
  actor?: RuntimeExecuteActor;
  lifecycle?: PlanLifecycleService;
  executor?: PlanExecutor;
  events: StreamEvent[] = [];
  collect = (event: StreamEvent) => this.events.push(event);
  changesetId?: string;
  recorded: ChangeEntry[] = [];
  result?: unknown;
  error?: unknown;
  options: Record<string, unknown> = {};
  decisions: StrategyDecision[] = [];
}

setWorldConstructor(EngineWorld);

export function sampleEntry(path = `src/file-${newId()}.txt`): ChangeEntry {
  return {
    id: newId(),
    path,
    oldPath: null,
    operation: 'create',
    beforeHash: null,
    afterHash: 'b'.repeat(64),
    beforeText: null,
    afterText: 'hello\n',
    binary: false,
    decisionId: null,
    invocationId: null,
    createdAt: new Date().toISOString(),
  };
}

export function stubDecision(planId: string, order: number): StrategyDecision {
  const now = new Date().toISOString();
  return {
    id: newId(),
    planId,
    parentId: null,
    type: 'strategy_choice',
    order,
    description: `Stub step ${order}`,
    rationale: 'stub',
    toolCalls: [],
    status: 'pending',
    createdAt: now,
    updatedAt: now,
  };
}
