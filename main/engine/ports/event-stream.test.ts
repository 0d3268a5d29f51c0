import { describe, expect, it } from 'vitest';
import { sampleData } from '../../../shared/test-support/sample-events';
import type { StreamEvent } from '../../../shared/events';
import { EventPublisher } from './event-stream';
import { InMemoryEventLog } from '../test-support/in-memory-stores';

describe('EventPublisher', () => {
  it('numbers events per plan from 1 and continues after the log', async () => {
    const log = new InMemoryEventLog();
    const first = new EventPublisher(log);
    await first.publish('A', 'plan_created', sampleData('plan_created'));
    await first.publish('B', 'plan_created', sampleData('plan_created'));
    await first.publish('A', 'state_changed', sampleData('state_changed'));
    // A second publisher over the same log (another process) continues the numbering.
    const second = new EventPublisher(log);
    expect((await second.publish('A', 'paused', sampleData('paused'))).seq).toBe(3);
    expect((await log.list('A')).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await log.list('A', 1, 1)).map((e) => e.type)).toEqual(['state_changed']);
  });

  it('fans out to subscribers until they unsubscribe, and to a run callback', async () => {
    const publisher = new EventPublisher(new InMemoryEventLog());
    const seen: StreamEvent[] = [];
    const unsubscribe = publisher.subscribe((e) => seen.push(e));
    const direct: StreamEvent[] = [];
    await publisher.emitterFor('A', (e) => direct.push(e))('paused', sampleData('paused'));
    unsubscribe();
    await publisher.publish('A', 'state_changed', sampleData('state_changed'));
    expect(seen.map((e) => e.type)).toEqual(['paused']);
    expect(direct[0]).toMatchObject({ planId: 'A', seq: 1, type: 'paused', data: { reason: 'step' } });
  });
});

describe('EventPublisher.deferDelivery', () => {
  it('hands events to subscribers and run callbacks only once the unit has returned, in order', async () => {
    const publisher = new EventPublisher(new InMemoryEventLog());
    const seen: string[] = [];
    publisher.subscribe((e) => seen.push(`sub:${e.type}`));
    const emit = publisher.emitterFor('A', (e) => seen.push(`run:${e.type}`));
    const result = await publisher.deferDelivery(async () => {
      await emit('tool_call_finished', sampleData('tool_call_finished'));
      await publisher.publish('A', 'change_recorded', sampleData('change_recorded'));
      expect(seen).toEqual([]);
      return 42;
    });
    expect(result).toBe(42);
    expect(seen).toEqual(['sub:tool_call_finished', 'run:tool_call_finished', 'sub:change_recorded']);
  });

  it('never delivers the events of a unit that threw (its writes were rolled back), and nested units join the outer one', async () => {
    const publisher = new EventPublisher(new InMemoryEventLog());
    const seen: string[] = [];
    publisher.subscribe((e) => seen.push(e.type));
    await expect(publisher.deferDelivery(async () => {
        await publisher.publish('A', 'change_recorded', sampleData('change_recorded'));
        throw new Error('rolled back');
      })).rejects.toThrow('rolled back');
    expect(seen).toEqual([]);
    await publisher.deferDelivery(async () => {
      await publisher.deferDelivery(() => publisher.publish('A', 'paused', sampleData('paused')));
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(['paused']);
    await publisher.publish('A', 'state_changed', sampleData('state_changed'));
    expect(seen).toEqual(['paused', 'state_changed']);
  });
});
