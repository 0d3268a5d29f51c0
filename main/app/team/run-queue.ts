import { hostname } from 'node:os';
import { PgBoss, type Job } from 'pg-boss';
import { ulid } from 'ulid';
import { migrateDatabase, PgDatabase } from '../../persistence/postgres';
import type { QueuedRun } from '../run-vocabulary';

/** The pg-boss queue a plan's run is a job of. */
export const RUN_QUEUE = 'plan-runs';

/** A job's data: the plan, why it was queued, and the run's options. */
export interface RunJobData extends QueuedRun {
  planId: string;
}

export interface RunQueueOptions {
  /** This process's name in pg-boss's instance registry and in listWorkers (default `agents`). */
  name?: string;
  /** pg-boss's error and warning events (a lost connection, a slow query), for the host to log. */
  onError?: (error: Error) => void;
  onWarning?: (warning: { message: string }) => void;
  /**
   * Whether this process also supervises the queue (fails jobs whose heartbeat lapsed, maintains
   * pg-boss's tables); default true. A CLI command that only queues and follows runs says false.
   */
  supervise?: boolean;
  /** Bring both schemas up to date (default true); false expects them current (a CLI command checked ours already). */
  migrate?: boolean;
}

export interface WorkOptions {
  /** Runs this process works on at once. */
  concurrency: number;
  /** The worker's name in listWorkers (default the queue's name). */
  name?: string;
}

/** Runs a plan until it stops: done, failed, or waiting for an approval. The signal aborts when the job is lost (taken over, or the queue stops). */
export type RunHandler = (planId: string, signal: AbortSignal, job: QueuedRun & { attempt: number }) => Promise<void>;

export interface WorkerInfo {
  id: string;
  name: string;
  host: string;
  pid: number;
  concurrency: number;
  /** Plans it runs now. */
  plans: string[];
  startedAt: Date;
  lastHeartbeat: Date;
  /** Heard from within three of its heartbeats. */
  live: boolean;
}

/** A worker's row is rewritten this often (and at each job's start and end). */
const WORKER_BEAT_SECONDS = 5;
/**
 * The job lease: a worker refreshes its jobs' heartbeat every half of this; a job not refreshed
 * for this long is failed by the supervisor and retried by another worker (pg-boss's minimum).
 */
const JOB_HEARTBEAT_SECONDS = 10;
/** How often a supervisor looks for expired heartbeats: a takeover within about heartbeat + 5 s. */
const SUPERVISE_SECONDS = 2;
/** The backstop poll for retried (taken over) jobs, which no NOTIFY announces. */
const POLL_SECONDS = 2;

/**
 * Team mode's run queue on pg-boss: a plan's run is a job keyed by the plan id in a `stately`
 * queue, so a plan has at most one job queued and one active (enqueueing a queued plan is a
 * no-op; enqueueing one that runs queues the next run, which waits for the current one). Jobs
 * carry pg-boss's heartbeat: a worker that dies stops refreshing it, a supervisor fails the job,
 * and another worker takes it over. pg-boss migrates its own schema (under its advisory lock);
 * ours, with the worker table, migrates under our own.
 */
export class RunQueue {
  private readonly workers = new Map<string, { plans: Set<string>; timer: NodeJS.Timeout }>();
  private stopping = false;

  private constructor(
    private readonly boss: PgBoss,
    private readonly db: PgDatabase,
    private readonly options: RunQueueOptions,
  ) {}

  /** Connects, migrates both schemas, makes the queue. Safe for several processes at once. */
  static async open(url: string, options: RunQueueOptions = {}): Promise<RunQueue> {
    const db = new PgDatabase(url, { max: 3 });
    let boss: PgBoss | undefined;
    try {
      if (options.migrate ?? true) await migrateDatabase(db);
      boss = new PgBoss({
        connectionString: url,
        application_name: 'agents run queue',
        max: 5,
        instanceName: options.name ?? 'agents',
        instanceHeartbeatSeconds: WORKER_BEAT_SECONDS,
        useListenNotify: true,
        supervise: options.supervise ?? true,
        superviseIntervalSeconds: SUPERVISE_SECONDS,
        // Heartbeat expiry is checked in the monitor step of each supervise pass.
        monitorIntervalSeconds: SUPERVISE_SECONDS,
        schedule: false,
      });
      boss.on('error', (error: Error) => options.onError?.(error));
      boss.on('warning', (warning: { message: string }) => options.onWarning?.(warning));
      await boss.start();
      await boss.createQueue(RUN_QUEUE, {
        policy: 'stately',
        notify: true,
        heartbeatSeconds: JOB_HEARTBEAT_SECONDS,
        // The heartbeat is the lease; expiry only bounds a run that hangs while still beating.
        expireInSeconds: 24 * 60 * 60,
        // A retry is a takeover (or a handler that threw on a lost connection): try again at once.
        retryLimit: 10,
        retryDelay: 0,
      });
      return new RunQueue(boss, db, options);
    } catch (error) {
      await boss?.stop({ graceful: false }).catch(() => {});
      await db.close();
      throw error;
    }
  }

  /** Queues a run of the plan; returns the job id, or null when the plan already has one queued. */
  async enqueue(planId: string, run: QueuedRun): Promise<string | null> {
    const data: RunJobData = { planId, ...run };
    return this.boss.send(RUN_QUEUE, data, { singletonKey: planId });
  }

  /** Whether a run of the plan is queued, waiting to be retried, or running. */
  async pending(planId: string): Promise<boolean> {
    const row = await this.db.one(
      "SELECT 1 FROM pgboss.job WHERE name = $1 AND singleton_key = $2 AND state IN ('created', 'retry', 'active') LIMIT 1",
      [RUN_QUEUE, planId],
    );
    return row !== undefined;
  }

  /**
   * Takes runs off the queue, `concurrency` at a time, until stop(). The job completes when the
   * handler resolves and is retried (by any worker) when it throws.
   */
  async work(options: WorkOptions, handler: RunHandler): Promise<string> {
    const id = ulid();
    const plans = new Set<string>();
    // Rows of workers stopped or silent for a day are history nobody lists: drop them as a new one registers.
    await this.db.query("DELETE FROM run_workers WHERE coalesce(stopped_at, heartbeat_at) < now() - interval '1 day'");
    await this.db.query('INSERT INTO run_workers (id, name, host, pid, concurrency) VALUES ($1, $2, $3, $4, $5)', [
      id,
      options.name ?? this.options.name ?? 'agents',
      hostname(),
      process.pid,
      options.concurrency,
    ]);
    const timer = setInterval(() => void this.beat(id, plans), WORKER_BEAT_SECONDS * 1000);
    timer.unref();
    this.workers.set(id, { plans, timer });
        await this.boss.work<RunJobData>(
      RUN_QUEUE,
      { localConcurrency: options.concurrency, batchSize: 1, pollingIntervalSeconds: POLL_SECONDS, notifyPollingIntervalSeconds: POLL_SECONDS },
      async ([job]: Job<RunJobData>[]) => {
        const { planId, ...run } = job!.data;
        plans.add(planId);
        await this.beat(id, plans);
        try {
          await handler(planId, job!.signal, { ...run, attempt: job!.retryCount });
        } finally {
          plans.delete(planId);
          await this.beat(id, plans);
        }
      },
    );
    return id;
  }

  /** Runs queued (waiting, or to be retried after a takeover) and running now. */
  async depth(): Promise<{ queued: number; active: number }> {
    // pg-boss's cached queue counts lag by a monitor pass; its job table (pinned version) is exact.
    const rows = await this.db.query<{ state: string; count: number }>(
      "SELECT state::text AS state, count(*)::int AS count FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active') GROUP BY state",
      [RUN_QUEUE],
    );
    const count = (...states: string[]) => rows.filter((row) => states.includes(row.state)).reduce((sum, row) => sum + row.count, 0);
    return { queued: count('created', 'retry'), active: count('active') };
  }

  /** The plans whose runs wait for a worker (queued, or to be retried after a takeover), oldest first. */
  async queuedPlans(): Promise<string[]> {
    const rows = await this.db.query<{ plan: string }>(
      "SELECT singleton_key AS plan FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry') ORDER BY created_on, singleton_key",
      [RUN_QUEUE],
    );
    return rows.map((row) => row.plan);
  }

  /** Workers not stopped, newest first: a dead one stays listed (not live) for a day, with the plans it held. */
  async listWorkers(): Promise<WorkerInfo[]> {
    return this.db.query<WorkerInfo>(
      `SELECT id, name, host, pid, concurrency, plans, started_at AS "startedAt", heartbeat_at AS "lastHeartbeat",
              heartbeat_at > now() - make_interval(secs => $1) AS live
         FROM run_workers
        WHERE stopped_at IS NULL AND heartbeat_at > now() - interval '1 day'
        ORDER BY started_at DESC, id DESC`,
      [3 * WORKER_BEAT_SECONDS],
    );
  }

  /**
   * Stops taking jobs and waits up to `timeoutMs` for running handlers (a handler still running
   * then is abandoned; its job is retried after its heartbeat expires), then disconnects.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    for (const [id, worker] of this.workers) {
      clearInterval(worker.timer);
      await this.db.query('UPDATE run_workers SET stopped_at = now() WHERE id = $1', [id]).catch(() => {});
    }
    await this.boss.stop({ graceful: true, timeout: timeoutMs, close: true });
    await this.db.close();
  }

  private async beat(id: string, plans: Set<string>): Promise<void> {
    try {
      await this.db.query('UPDATE run_workers SET heartbeat_at = now(), plans = $2::jsonb WHERE id = $1', [id, JSON.stringify([...plans])]);
    } catch (error) {
      this.options.onError?.(error as Error);
    }
  }
}
