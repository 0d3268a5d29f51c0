import type { Plan } from '../../../shared/domain';
import type { StreamCallback, StreamEvent } from '../../../shared/events';
import { isConnectionLoss, type PgEventFeed, type PostgresStores } from '../../persistence/postgres';
import type { QueuedRun, RunDispatch } from '../run-vocabulary';
import type { RunQueue } from './run-queue';

/** How often a follower asks whether the plan's run is still queued or running (events wake it sooner). */
const FOLLOW_CHECK_MS = 250;
/** A follower that heard nothing from the feed this long reads the log for what it missed. */
const SILENT_FEED_MS = 2_000;
const CATCH_UP_PAGE = 500;

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
   * The plan's events in order, each once, until no job of the plan is queued or running. Events
   * are handed on as the feed delivers them; a feed that falls silent (its connection lost, its
   * notices not coming) is caught up from the event log by seq, and the follow ends only once the
   * run's job is done and every event its run stored has been handed on, read from the log itself.
   */
  async follow(planId: string, afterSeq: number, onEvent: StreamCallback): Promise<Plan> {
    const [queue, feed] = await Promise.all([this.queue(), this.feed()]);
    return new Promise<Plan>((resolve, reject) => {
      let checking = false;
      let finished = false;
      let seen = afterSeq;
      let heardAt = Date.now();
      const deliver = (event: StreamEvent) => {
        // In order, never twice: the feed and a catch-up may both bring an event.
        if (finished || event.seq !== seen + 1) return;
        seen = event.seq;
        heardAt = Date.now();
        onEvent(event);
      };
      const catchUp = async () => {
        for (let page = await this.stores.events.list(planId, seen, CATCH_UP_PAGE); page.length > 0; page = await this.stores.events.list(planId, seen, CATCH_UP_PAGE)) {
          for (const event of page) deliver(event);
          if (page.length < CATCH_UP_PAGE || finished) break;
        }
      };
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
          if (await queue.pending(planId)) {
            // Nothing from the feed for a while: read the log in case it went silent.
            if (Date.now() - heardAt >= SILENT_FEED_MS && (await this.stores.events.lastSeq(planId)) > seen) await catchUp();
            return;
          }
          // The job is done: everything its run stored is in the log; hand on what the feed has not, then the plan.
          await catchUp();
          finish(async () => resolve(await this.stores.plans.get(planId).then((plan) => plan ?? Promise.reject(new Error(`plan ${planId} is gone`)))));
        } catch (error) {
          // The database restarting: the next check tries again; the follow ends with the run, not with a connection.
          if (!isConnectionLoss(error)) finish(() => Promise.reject(error));
        } finally {
          checking = false;
        }
      };
      const unsubscribe = feed.subscribe(planId, afterSeq, (event) => {
        if (event.seq > seen + 1) void catchUp().catch(() => undefined);
        deliver(event);
        if (event.type === 'state_changed' && event.data.to !== 'processing') void check();
      });
      const timer = setInterval(() => void check(), FOLLOW_CHECK_MS);
      void check();
    });
  }
}
