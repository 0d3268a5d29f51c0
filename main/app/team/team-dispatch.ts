import type { Plan } from '../../../shared/domain';
import type { StreamCallback } from '../../../shared/events';
import type { PgEventFeed, PostgresStores } from '../../persistence/postgres';
import type { QueuedRun, RunDispatch } from '../run-vocabulary';
import type { RunQueue } from './run-queue';

/** How often a follower asks whether the plan's run is still queued or running (events wake it sooner). */
const FOLLOW_CHECK_MS = 250;

/** Runs sent to the team's queue, and followed through the database's event feed. */
export class TeamDispatch implements RunDispatch {
  constructor(
    private readonly queue: () => Promise<RunQueue>,
    private readonly feed: () => Promise<PgEventFeed>,
    private readonly stores: PostgresStores,
  ) {}

  async enqueue(planId: string, run: QueuedRun): Promise<void> {
    await (await this.queue()).enqueue(planId, run);
  }

  lastSeq(planId: string): Promise<number> {
    return this.stores.events.lastSeq(planId);
  }

  /**
   * The plan's events in order, until no job of the plan is queued or running. Events are handed
   * on as the feed delivers them; the run's end is the job's, so a run that stops (done, failed,
   * waiting for an approval) ends the follow once its worker has let the job go.
   */
  async follow(planId: string, afterSeq: number, onEvent: StreamCallback): Promise<Plan> {
    const [queue, feed] = await Promise.all([this.queue(), this.feed()]);
    return new Promise<Plan>((resolve, reject) => {
      let checking = false;
      let finished = false;
      const finish = (outcome: () => Promise<void>) => {
        if (finished) return;
        finished = true;
        clearInterval(timer);
        unsubscribe();
        outcome().catch(reject);
      };
      const check = async () => {
        if (checking || finished) return;
        checking = true;
        try {
          if (await queue.pending(planId)) return;
          // The job is done: hand on every event the run stored before it let the job go, then the plan.
          const last = await this.stores.events.lastSeq(planId);
          await waitUntil(() => seen >= last || finished, 5_000);
          finish(async () => resolve(await this.stores.plans.get(planId).then((plan) => plan ?? Promise.reject(new Error(`plan ${planId} is gone`)))));
        } catch (error) {
          finish(() => Promise.reject(error));
        } finally {
          checking = false;
        }
      };
      let seen = afterSeq;
      const unsubscribe = feed.subscribe(planId, afterSeq, (event) => {
        seen = Math.max(seen, event.seq);
        if (!finished) onEvent(event);
        if (event.type === 'state_changed' && event.data.to !== 'processing') void check();
      });
      const timer = setInterval(() => void check(), FOLLOW_CHECK_MS);
      void check();
    });
  }
}

/** Resolves once `done()` holds, looking every few milliseconds, or after `limitMs` (a feed that lost its connection). */
async function waitUntil(done: () => boolean, limitMs: number): Promise<void> {
  const until = Date.now() + limitMs;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
}
