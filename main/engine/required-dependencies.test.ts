import { describe, expect, it } from 'vitest';
import { sampleData } from '../../shared/test-support/sample-events';
import { ValidationError } from '../../shared/errors';
import { EventPublisher } from './ports/event-stream';
import { PlanExecutionContext } from './run/execution-context';
import { PlanLifecycleService } from './run/lifecycle';
import { RuntimeExecuteActor } from './run/runtime-execute-actor';
import { InMemoryChangeSetStore, InMemoryEventLog, InMemoryPlanRepository, inMemoryToolRunner } from './test-support/in-memory-stores';
import { ToolRegistry, ToolRunner } from './run/tool-runner';

/**
 * A missing store is an error, never a quiet in-memory fallback (docs/ARCHITECTURE.md); the one
 * exception, PlanExecutionContext's changeset store, is the seed's and is tested with the app.
 */
describe('required dependencies', () => {
  const missing = undefined as never;
  it.each([
    ['EventPublisher without an event log', () => new EventPublisher(missing), 'log'],
    ['ToolRunner without an invocation log', () => new ToolRunner(new ToolRegistry(), missing), 'log'],
    ['ToolRunner without a registry', () => new ToolRunner(missing, missing), 'registry'],
    ['PlanLifecycleService without a publisher', () => new PlanLifecycleService(new InMemoryPlanRepository(), missing), 'events'],
    [
      'RuntimeExecuteActor without a publisher',
      () => new RuntimeExecuteActor({ toolRunner: inMemoryToolRunner(), executionContext: new PlanExecutionContext({ planId: 'p', changesetStore: new InMemoryChangeSetStore() }), events: missing }),
      'events',
    ],
  ])('%s is refused', (_name, make, field) => {
    expect(make).toThrow(ValidationError);
    expect(make).toThrow(field);
  });

  it('a publisher keeps events in the log it is given', async () => {
    const log = new InMemoryEventLog();
    await new EventPublisher(log).publish('p', 'paused', sampleData('paused'));
    expect(await log.lastSeq('p')).toBe(1);
  });
});
