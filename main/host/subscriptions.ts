import type { BridgeErrorPayload, Envelope, Subscription } from '../../shared/contract';
import { MAX_SUBSCRIPTIONS } from '../../shared/streams';
import type { EventHub, EventSink, HubSubscription } from './event-hub';
import { toBridgeError } from './errors';
import type { HostLog } from './router';

const fail = (error: BridgeErrorPayload): Envelope<never> => ({ ok: false, error });

/**
 * One client's subscriptions by the ids it chose: the bookkeeping both transports share. Electron's
 * IPC keeps one table per window, the WebSocket one per connection; each gives the sink its events go to.
 */
export class SubscriptionTable {
  private readonly subscriptions = new Map<number, HubSubscription>();
  private readonly pending = new Set<number>();
  private disposed = false;

  constructor(
    private readonly hub: EventHub,
    private readonly log: HostLog,
    private readonly max = MAX_SUBSCRIPTIONS,
  ) {}

  get size(): number {
    return this.subscriptions.size;
  }

  async subscribe(id: number, subscription: Subscription, sink: EventSink): Promise<Envelope<{ subscriptionId: number }>> {
    if (this.subscriptions.has(id) || this.pending.has(id)) return fail({ code: 'duplicate_subscription', message: `subscription ${id} already exists` });
    if (this.subscriptions.size + this.pending.size >= this.max) return fail({ code: 'too_many_subscriptions', message: `at most ${this.max} subscriptions per client` });
    // The id is taken while the hub checks the plan, so a second subscribe with it is refused.
    this.pending.add(id);
    let made: HubSubscription;
    try {
      made = await this.hub.subscribe({ planId: subscription.planId, afterSeq: subscription.afterSeq, types: subscription.types }, sink);
    } catch (error) {
      return fail(toBridgeError(error, this.log));
    } finally {
      this.pending.delete(id);
    }
    if (this.disposed) {
      made.dispose();
      return fail({ code: 'unknown_subscription', message: `subscription ${id} was closed` });
    }
    this.subscriptions.set(id, made);
    return { ok: true, data: { subscriptionId: id } };
  }

  unsubscribe(id: number): Envelope<Record<string, never>> {
    const subscription = this.subscriptions.get(id);
    if (!subscription) return fail({ code: 'unknown_subscription', message: `no subscription with id ${id}` });
    subscription.dispose();
    this.subscriptions.delete(id);
    return { ok: true, data: {} };
  }

  dispose(): void {
    this.disposed = true;
    for (const subscription of this.subscriptions.values()) subscription.dispose();
    this.subscriptions.clear();
  }
}
