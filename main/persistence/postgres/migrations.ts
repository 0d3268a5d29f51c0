/**
 * The PostgreSQL schema, as an append-only list: migration i takes `agents_schema.version` from i
 * to i + 1. It holds the tables and columns of the SQLite schema (../migrations.ts) as they are
 * after its last migration, in PostgreSQL's types: bytea for file contents, bigint identity
 * positions, boolean flags, jsonb for the documents SQLite keeps as JSON text. Columns that hold
 * what a tool or a model produced (tool arguments and results, event data) are json, not jsonb:
 * jsonb cannot hold the character \u0000, which a tool's output may contain, and json keeps the
 * text as written. Dates stay ISO-8601 text, so they read back exactly as written.
 *
 * Never edit a migration that has shipped; append a new one.
 */
import { DatabaseError } from './errors';
import { PgDatabase } from './database';

/** The channel migration 2's trigger announces each stored event on, as `seq:planId`. */
export const EVENT_CHANNEL = 'agents_events';

export const PG_MIGRATIONS: readonly string[] = [
  /* 1: the schema of SQLite's migrations 1 to 9 */ `
  CREATE TABLE plans (
    id               text PRIMARY KEY,
    name             text NOT NULL,
    phase            text NOT NULL,
    processing_state text NOT NULL,
    created_at       text NOT NULL,
    updated_at       text NOT NULL,
    data             jsonb NOT NULL
  );
  CREATE INDEX plans_created_at ON plans (created_at DESC, id DESC);
  CREATE INDEX plans_phase ON plans (phase);
  CREATE INDEX plans_processing_state ON plans (processing_state);

  CREATE TABLE decisions (
    id          text PRIMARY KEY,
    plan_id     text NOT NULL,
    parent_id   text,
    type        text NOT NULL,
    sort_order  integer NOT NULL,
    status      text NOT NULL,
    description text NOT NULL,
    rationale   text NOT NULL,
    tool_calls  json NOT NULL,
    check_spec  jsonb,
    created_at  text NOT NULL,
    updated_at  text NOT NULL
  );
  CREATE INDEX decisions_plan ON decisions (plan_id, sort_order, id);
  CREATE INDEX decisions_parent ON decisions (parent_id);

  CREATE TABLE changesets (
    pos        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         text NOT NULL UNIQUE,
    plan_id    text NOT NULL,
    created_at text NOT NULL
  );
  CREATE INDEX changesets_plan ON changesets (plan_id, pos);

  -- Content-addressed file texts (UTF-8): the same text is stored once however many entries use it.
  CREATE TABLE blobs (
    hash    text PRIMARY KEY,
    content bytea NOT NULL
  );

  CREATE TABLE change_entries (
    changeset_id  text NOT NULL REFERENCES changesets (id) ON DELETE CASCADE,
    seq           integer NOT NULL,
    id            text NOT NULL UNIQUE,
    path          text NOT NULL,
    old_path      text,
    operation     text NOT NULL CHECK (operation IN ('create', 'modify', 'delete', 'rename')),
    before_hash   text,
    after_hash    text,
    before_blob   text REFERENCES blobs (hash),
    after_blob    text REFERENCES blobs (hash),
    "binary"      boolean NOT NULL DEFAULT false,
    decision_id   text,
    invocation_id text,
    insertions    integer NOT NULL DEFAULT 0,
    deletions     integer NOT NULL DEFAULT 0,
    created_at    text NOT NULL,
    origin        text NOT NULL DEFAULT 'tool' CHECK (origin IN ('tool', 'operator')),
    rewound_by    text,
    PRIMARY KEY (changeset_id, seq)
  );
  CREATE INDEX change_entries_path ON change_entries (changeset_id, path);
  CREATE INDEX change_entries_decision ON change_entries (decision_id);

  CREATE TABLE tool_invocations (
    pos         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          text NOT NULL UNIQUE,
    plan_id     text NOT NULL,
    decision_id text,
    tool        text NOT NULL,
    args        json NOT NULL,
    ok          boolean NOT NULL,
    result      json,
    error       json,
    started_at  text NOT NULL,
    duration_ms double precision NOT NULL,
    confinement text
  );
  CREATE INDEX tool_invocations_plan ON tool_invocations (plan_id, pos);
  CREATE INDEX tool_invocations_decision ON tool_invocations (decision_id);

  CREATE TABLE error_records (
    pos             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              text NOT NULL UNIQUE,
    plan_id         text NOT NULL,
    phase           text NOT NULL,
    decision_id     text,
    attempt         integer NOT NULL,
    category        text NOT NULL,
    retriable       boolean NOT NULL,
    recovery_action text NOT NULL,
    message         text NOT NULL,
    stack           text,
    hint            text NOT NULL,
    next            jsonb,
    outcome         text NOT NULL,
    created_at      text NOT NULL
  );
  CREATE INDEX error_records_plan ON error_records (plan_id, pos);

  CREATE TABLE events (
    plan_id text NOT NULL,
    seq     bigint NOT NULL,
    ts      text NOT NULL,
    type    text NOT NULL,
    data    json NOT NULL,
    PRIMARY KEY (plan_id, seq)
  );
  -- Each plan's last seq: appendNext increments it in an upsert, whose row lock orders the plan's
  -- appenders across processes until their transactions end.
  CREATE TABLE event_seqs (
    plan_id  text PRIMARY KEY,
    last_seq bigint NOT NULL
  );

  CREATE TABLE plan_leases (
    plan_id      text PRIMARY KEY,
    pid          integer NOT NULL,
    hostname     text NOT NULL,
    heartbeat_at text NOT NULL,
    acquired_at  text NOT NULL
  );

  CREATE TABLE approvals (
    pos        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         text NOT NULL UNIQUE,
    plan_id    text NOT NULL,
    status     text NOT NULL,
    created_at text NOT NULL,
    data       jsonb NOT NULL
  );
  CREATE INDEX approvals_plan ON approvals (plan_id, pos);

  CREATE TABLE applied_changes (
    plan_id      text NOT NULL,
    path         text NOT NULL,
    hunks        jsonb NOT NULL,
    content_hash text,
    applied_at   text NOT NULL,
    PRIMARY KEY (plan_id, path)
  );

  CREATE TABLE sandbox_bases (
    plan_id     text PRIMARY KEY,
    recorded_at text NOT NULL
  );
  CREATE TABLE sandbox_files (
    plan_id      text NOT NULL,
    path         text NOT NULL,
    base_hash    text,
    seen_hash    text,
    size         bigint,
    mtime_ms     double precision,
    ctime_ms     double precision,
    ino          bigint,
    hashed_at_ms double precision,
    PRIMARY KEY (plan_id, path)
  );

  CREATE TABLE check_results (
    pos        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id         text NOT NULL UNIQUE,
    plan_id    text NOT NULL,
    run_id     text NOT NULL,
    data       jsonb NOT NULL,
    created_at text NOT NULL
  );
  CREATE INDEX check_results_plan ON check_results (plan_id, pos);

  CREATE TABLE checkpoints (
    pos     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id      text NOT NULL UNIQUE,
    plan_id text NOT NULL,
    step    integer NOT NULL,
    summary jsonb NOT NULL,
    delta   jsonb NOT NULL,
    state   jsonb NOT NULL,
    UNIQUE (plan_id, step)
  );
  CREATE TABLE rewind_journals (
    plan_id text PRIMARY KEY,
    data    jsonb NOT NULL
  );
  -- What the object-store folder holds on one machine: checkpointed file contents by sha256.
  CREATE TABLE checkpoint_objects (
    hash       text PRIMARY KEY,
    content    bytea NOT NULL,
    created_at text NOT NULL
  );
  `,
  /* 2: team mode: every stored event is announced, and the run queue's workers */ `
  -- NOTIFY inside the appending transaction: PostgreSQL delivers it only on COMMIT, so a rolled-back
  -- event is never announced. The payload is small (seq:plan id); listeners read the rows.
  CREATE FUNCTION agents_announce_event() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('${EVENT_CHANNEL}', NEW.seq::text || ':' || NEW.plan_id);
    RETURN NULL;
  END $$;
  CREATE TRIGGER events_announce AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION agents_announce_event();

  -- One row per worker (a RunQueue.work call): where it runs, which plans it holds, when it was last heard from.
  CREATE TABLE run_workers (
    id           text PRIMARY KEY,
    name         text NOT NULL,
    host         text NOT NULL,
    pid          integer NOT NULL,
    concurrency  integer NOT NULL,
    plans        jsonb NOT NULL DEFAULT '[]',
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now(),
    stopped_at   timestamptz
  );
  `,
  /* 3: fencing: each take of a plan's lease raises its epoch; a holder's writes carry the epoch it took */ `
  -- Never deleted (a release keeps the epoch), so a plan's epoch only grows.
  CREATE TABLE plan_epochs (
    plan_id text PRIMARY KEY,
    epoch   bigint NOT NULL
  );
  ALTER TABLE events ADD COLUMN epoch bigint;

  -- The epoch this session holds for plan (the setting agents.fences, JSON {planId: epoch}, that a
  -- holder's connections carry), checked against the plan's current one: a holder whose lease was
  -- taken since is refused, inside the writing transaction. FOR SHARE makes a take (an UPDATE of
  -- the row) wait for the writes that passed the check to commit, so none lands after a takeover
  -- began. Checked once per transaction and plan. Writers holding no epoch (an operator's client)
  -- are not fenced.
  CREATE FUNCTION agents_fence(plan text) RETURNS bigint LANGUAGE plpgsql AS $fn$
  DECLARE
    fences text := current_setting('agents.fences', true);
    held bigint;
    now_epoch bigint;
  BEGIN
    IF plan IS NULL OR fences IS NULL OR fences = '' THEN RETURN NULL; END IF;
    held := (fences::jsonb ->> plan)::bigint;
    IF held IS NULL THEN RETURN NULL; END IF;
    IF current_setting('agents.fenced', true) = plan || ':' || held THEN RETURN held; END IF;
    SELECT epoch INTO now_epoch FROM plan_epochs WHERE plan_id = plan FOR SHARE;
    IF now_epoch IS DISTINCT FROM held THEN
      RAISE EXCEPTION 'stale epoch %: plan % was taken over (its epoch is now %)', held, plan, coalesce(now_epoch::text, 'none')
        USING ERRCODE = 'AG409';
    END IF;
    PERFORM set_config('agents.fenced', plan || ':' || held, true);
    RETURN held;
  END $fn$;

  CREATE FUNCTION agents_fence_row() RETURNS trigger LANGUAGE plpgsql AS $fn$
  DECLARE
    r record;
    plan text;
  BEGIN
    IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
    IF TG_TABLE_NAME = 'plans' THEN plan := r.id;
    ELSIF TG_TABLE_NAME = 'change_entries' THEN SELECT plan_id INTO plan FROM changesets WHERE id = r.changeset_id;
    ELSE plan := r.plan_id;
    END IF;
    IF TG_TABLE_NAME = 'events' AND TG_OP = 'INSERT' THEN NEW.epoch := agents_fence(plan);
    ELSE PERFORM agents_fence(plan);
    END IF;
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
  END $fn$;

  DO $do$
  DECLARE t text;
  BEGIN
    FOREACH t IN ARRAY ARRAY['plans', 'decisions', 'changesets', 'change_entries', 'tool_invocations', 'error_records', 'events',
                             'approvals', 'applied_changes', 'sandbox_bases', 'sandbox_files', 'check_results', 'checkpoints', 'rewind_journals']
    LOOP
      EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION agents_fence_row()', t || '_fence', t);
    END LOOP;
  END $do$;
  `,
  /* 4: a step's sub-tasks, as its coding agent's last `plan` update listed them (NULL: none sent) */ `
  ALTER TABLE decisions ADD COLUMN subtasks jsonb;
  `,
  /* 5: a file's permission bits, after a change and as last seen in the sandbox (NULL: not recorded) */ `
  ALTER TABLE change_entries ADD COLUMN mode integer;
  ALTER TABLE sandbox_files ADD COLUMN mode integer;
  `,
  /* 6: a file's permission bits before a change, and the sandbox's links and folders as last seen */ `
  ALTER TABLE change_entries ADD COLUMN before_mode integer;
  ALTER TABLE sandbox_bases ADD COLUMN shape jsonb;
  `,
];

/** The schema version this process knows. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** Serializes migrations of several processes (workers and serve started together on a fresh database). */
const MIGRATION_LOCK = 'agents schema migration';

async function versionOf(db: PgDatabase): Promise<number> {
  await db.query('CREATE TABLE IF NOT EXISTS agents_schema (version integer NOT NULL)');
  const row = await db.one<{ version: number }>('SELECT version FROM agents_schema');
  return row?.version ?? 0;
}

function tooNew(db: PgDatabase, version: number): DatabaseError {
  return new DatabaseError(
    `the database's schema is version ${version}, newer than this agents knows (${PG_SCHEMA_VERSION}): upgrade agents to use ${new URL(db.url).pathname.slice(1) || 'it'}`,
  );
}

/**
 * Brings the database's schema up to this process's version, each migration in the same
 * transaction as its version bump, under an advisory lock. Refuses a newer schema. Returns the
 * version it found.
 */
export async function migrateDatabase(db: PgDatabase): Promise<number> {
  return db.transaction(async () => {
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [MIGRATION_LOCK]);
    const found = await versionOf(db);
    if (found > PG_SCHEMA_VERSION) throw tooNew(db, found);
    for (let version = found; version < PG_SCHEMA_VERSION; version += 1) await db.query(PG_MIGRATIONS[version]!);
    if (found === 0) await db.query('INSERT INTO agents_schema (version) VALUES ($1)', [PG_SCHEMA_VERSION]);
    else if (found < PG_SCHEMA_VERSION) await db.query('UPDATE agents_schema SET version = $1', [PG_SCHEMA_VERSION]);
    return found;
  });
}

/** Refuses a database whose schema is newer than this process's, or not yet made or migrated. */
export async function checkSchema(db: PgDatabase): Promise<void> {
  const row = await db.one<{ exists: boolean }>("SELECT to_regclass('agents_schema') IS NOT NULL AS exists");
  const version = row?.exists ? ((await db.one<{ version: number }>('SELECT version FROM agents_schema'))?.version ?? 0) : 0;
  if (version > PG_SCHEMA_VERSION) throw tooNew(db, version);
  if (version < PG_SCHEMA_VERSION) {
    throw new DatabaseError(`the database's schema is version ${version}, older than this agents (${PG_SCHEMA_VERSION}): run \`agents db migrate\``);
  }
}

/** Migrates the database at `url` (see migrateDatabase) and closes the connection. */
export async function migratePostgres(url: string): Promise<{ from: number; to: number }> {
  const db = new PgDatabase(url, { max: 1 });
  try {
    const from = await migrateDatabase(db);
    return { from, to: PG_SCHEMA_VERSION };
  } finally {
    await db.close();
  }
}
