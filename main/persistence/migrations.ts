/**
 * The schema, as an append-only list: migration i takes `PRAGMA user_version` from i to i + 1.
 * Never edit a migration that has shipped; append a new one.
 *
 * No foreign keys point at plans: every store works on its own (as the in-memory ones do), and a
 * plan id in an event or changeset is a reference, not an ownership the database must enforce.
 */
/**
 * For migration 7: the next step (shared/actions.ts) a stored `agents plan <command> <id> ...`
 * line stood for, as SQL over the column `line` with `message` its reason; NULL for a line it
 * does not know. The lines were written by one function, so these are all the forms there are.
 */
const COMMAND_ACTIONS: readonly [string, string][] = [
  ['retry', 'retry'],
  ['reset', 'reset'],
  ['errors', 'show_errors'],
  ['discard', 'discard'],
  ['skip', 'skip'],
  ['edit-step', 'edit_step'],
  ['profile', 'set_profile'],
  ['replan', 'replan'],
  ['correct', 'correct'],
];
function nextStepOf(line: string, message: string): string {
  const action = `CASE ${COMMAND_ACTIONS.map(([command, id]) => `WHEN ${line} LIKE 'agents plan ${command} %' THEN '${id}'`).join(' ')} END`;
  // `agents plan profile <id> <profile>`: the profile is the word after the id.
  const rest = `substr(${line}, length('agents plan profile ') + 1)`;
  const args = `CASE WHEN ${line} LIKE 'agents plan profile %' THEN json_object('profile', substr(${rest}, instr(${rest}, ' ') + 1)) ELSE json_object() END`;
  return `(CASE WHEN (${action}) IS NULL THEN NULL ELSE json_object('action', ${action}, 'args', json(${args}), 'message', ${message}) END)`;
}

export const MIGRATIONS: readonly string[] = [
  /* 1: initial schema */ `
  CREATE TABLE plans (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    phase            TEXT NOT NULL,
    processing_state TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    -- The whole Plan as JSON; the columns above are copies kept for indexes and filters.
    data             TEXT NOT NULL CHECK (json_valid(data))
  );
  CREATE INDEX plans_created_at ON plans (created_at DESC, id DESC);
  CREATE INDEX plans_phase ON plans (phase);
  CREATE INDEX plans_processing_state ON plans (processing_state);

  CREATE TABLE decisions (
    id          TEXT PRIMARY KEY,
    plan_id     TEXT NOT NULL,
    parent_id   TEXT,
    type        TEXT NOT NULL,
    sort_order  INTEGER NOT NULL,
    status      TEXT NOT NULL,
    description TEXT NOT NULL,
    rationale   TEXT NOT NULL,
    tool_calls  TEXT NOT NULL CHECK (json_valid(tool_calls)),
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
  );
  CREATE INDEX decisions_plan ON decisions (plan_id, sort_order, id);
  CREATE INDEX decisions_parent ON decisions (parent_id);

  -- pos is an explicit INTEGER PRIMARY KEY so insertion order survives VACUUM.
  CREATE TABLE changesets (
    pos        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    plan_id    TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX changesets_plan ON changesets (plan_id, pos);

  -- Content-addressed file texts: the same text is stored once however many entries use it.
  CREATE TABLE blobs (
    hash    TEXT PRIMARY KEY,
    content TEXT NOT NULL
  );

  CREATE TABLE change_entries (
    changeset_id  TEXT NOT NULL REFERENCES changesets (id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL,
    id            TEXT NOT NULL UNIQUE,
    path          TEXT NOT NULL,
    old_path      TEXT,
    operation     TEXT NOT NULL CHECK (operation IN ('create', 'modify', 'delete', 'rename')),
    before_hash   TEXT,
    after_hash    TEXT,
    before_blob   TEXT REFERENCES blobs (hash),
    after_blob    TEXT REFERENCES blobs (hash),
    binary        INTEGER NOT NULL DEFAULT 0,
    decision_id   TEXT,
    invocation_id TEXT,
    -- Line counts computed once at record time, so a summary is one aggregate query.
    insertions    INTEGER NOT NULL DEFAULT 0,
    deletions     INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (changeset_id, seq)
  );
  CREATE INDEX change_entries_path ON change_entries (changeset_id, path);
  CREATE INDEX change_entries_decision ON change_entries (decision_id);

  CREATE TABLE tool_invocations (
    pos         INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    plan_id     TEXT NOT NULL,
    decision_id TEXT,
    tool        TEXT NOT NULL,
    args        TEXT NOT NULL CHECK (json_valid(args)),
    ok          INTEGER NOT NULL,
    result      TEXT,
    error       TEXT,
    started_at  TEXT NOT NULL,
    duration_ms REAL NOT NULL
  );
  CREATE INDEX tool_invocations_plan ON tool_invocations (plan_id, pos);
  CREATE INDEX tool_invocations_decision ON tool_invocations (decision_id);

  CREATE TABLE error_records (
    pos             INTEGER PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    plan_id         TEXT NOT NULL,
    phase           TEXT NOT NULL,
    decision_id     TEXT,
    attempt         INTEGER NOT NULL,
    category        TEXT NOT NULL,
    retriable       INTEGER NOT NULL,
    recovery_action TEXT NOT NULL,
    message         TEXT NOT NULL,
    stack           TEXT,
    hint            TEXT NOT NULL,
    command         TEXT,
    outcome         TEXT NOT NULL,
    created_at      TEXT NOT NULL
  );
  CREATE INDEX error_records_plan ON error_records (plan_id, pos);

  CREATE TABLE events (
    plan_id TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    ts      TEXT NOT NULL,
    type    TEXT NOT NULL,
    data    TEXT NOT NULL CHECK (json_valid(data)),
    PRIMARY KEY (plan_id, seq)
  ) WITHOUT ROWID;

  -- Which process is running a plan; a lease whose holder died marks a plan to recover.
  CREATE TABLE plan_leases (
    plan_id      TEXT PRIMARY KEY,
    pid          INTEGER NOT NULL,
    hostname     TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL,
    acquired_at  TEXT NOT NULL
  );
  `,
  // 2: operator approvals of tool calls; the request and its answer are one JSON document.
  `
  CREATE TABLE approvals (
    pos        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    plan_id    TEXT NOT NULL,
    status     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    data       TEXT NOT NULL CHECK (json_valid(data))
  );
  CREATE INDEX approvals_plan ON approvals (plan_id, pos);
  `,
  // 3: how each shell.run call was confined (bwrap, sandbox-exec, none); NULL for other tools.
  `
  ALTER TABLE tool_invocations ADD COLUMN confinement TEXT;
  `,
  /* 4: what apply wrote per path, so a changeset can be applied in parts */ `
  CREATE TABLE applied_changes (
    plan_id      TEXT NOT NULL,
    path         TEXT NOT NULL,
    -- The hunks applied so far (1-based), as a JSON array.
    hunks        TEXT NOT NULL CHECK (json_valid(hunks)),
    -- sha256 of what the project held at path right after; NULL when the apply removed it.
    content_hash TEXT,
    applied_at   TEXT NOT NULL,
    PRIMARY KEY (plan_id, path)
  ) WITHOUT ROWID;
  `,
  // 5: change_recorded events carry the entry's metadata (docs/ARCHITECTURE.md, "The data path of a
  // change"); events stored before that named only the entry, so they get its metadata from its row.
  `
  UPDATE events SET data = json_object('entry', json_object(
      'id', ce.id, 'path', ce.path, 'oldPath', ce.old_path, 'operation', ce.operation,
      'beforeHash', ce.before_hash, 'afterHash', ce.after_hash,
      'binary', json(CASE ce.binary WHEN 1 THEN 'true' ELSE 'false' END),
      'decisionId', ce.decision_id, 'invocationId', ce.invocation_id,
      'insertions', ce.insertions, 'deletions', ce.deletions))
    FROM change_entries ce
   WHERE events.type = 'change_recorded'
     AND json_extract(events.data, '$.entry') IS NULL
     AND ce.id = json_extract(events.data, '$.entryId');
  `,
  // 6: who made each change (a tool call, or the operator by hand in the sandbox), and what each
  // plan's sandbox held when it was made (base_hash) and when it was last looked at (the rest), so
  // hand edits are found without reading unchanged files.
  `
  ALTER TABLE change_entries ADD COLUMN origin TEXT NOT NULL DEFAULT 'tool' CHECK (origin IN ('tool', 'operator'));
  CREATE TABLE sandbox_bases (
    plan_id     TEXT PRIMARY KEY,
    recorded_at TEXT NOT NULL
  );
  CREATE TABLE sandbox_files (
    plan_id      TEXT NOT NULL,
    path         TEXT NOT NULL,
    base_hash    TEXT,
    seen_hash    TEXT,
    size         INTEGER,
    mtime_ms     REAL,
    ctime_ms     REAL,
    ino          INTEGER,
    hashed_at_ms REAL,
    PRIMARY KEY (plan_id, path)
  ) WITHOUT ROWID;
  `,
  // 7: a failure's next step is an action and its arguments, not a command line: the error
  // records, their error_recorded events and the plans' error details (current and history).
  `
  ALTER TABLE error_records ADD COLUMN next TEXT CHECK (next IS NULL OR json_valid(next));
  UPDATE error_records SET next = ${nextStepOf('command', 'hint')} WHERE command IS NOT NULL;
  ALTER TABLE error_records DROP COLUMN command;

  UPDATE events SET data = json_remove(json_set(data, '$.next', json(${nextStepOf("json_extract(data, '$.command')", "json_extract(data, '$.hint')")})), '$.command')
   WHERE type = 'error_recorded';

  UPDATE plans SET data = json_remove(json_set(data, '$.errorDetails.next',
      json(${nextStepOf("json_extract(data, '$.errorDetails.recoveryCommand')", "json_extract(data, '$.errorDetails.hint')")})), '$.errorDetails.recoveryCommand')
   WHERE json_type(data, '$.errorDetails.recoveryCommand') IS NOT NULL;
  UPDATE plans SET data = json_set(data, '$.errorDetails.history', json((
      SELECT json_group_array(json(CASE WHEN json_type(h.value, '$.recoveryCommand') IS NULL THEN h.value ELSE
        json_remove(json_set(h.value, '$.next', json(${nextStepOf("json_extract(h.value, '$.recoveryCommand')", "json_extract(h.value, '$.hint')")})), '$.recoveryCommand') END))
        FROM json_each(plans.data, '$.errorDetails.history') AS h)))
   WHERE json_type(data, '$.errorDetails.history') = 'array';
  `,
  // 8: verify before apply (README.md, "Verify"): a step's own check, and each check's result.
  `
  ALTER TABLE decisions ADD COLUMN check_spec TEXT CHECK (check_spec IS NULL OR json_valid(check_spec));
  CREATE TABLE check_results (
    pos        INTEGER PRIMARY KEY,
    id         TEXT NOT NULL UNIQUE,
    plan_id    TEXT NOT NULL,
    run_id     TEXT NOT NULL,
    data       TEXT NOT NULL CHECK (json_valid(data)),
    created_at TEXT NOT NULL
  );
  CREATE INDEX check_results_plan ON check_results (plan_id, pos);
  `,
  // 9: checkpoints (one as each step starts: the sandbox's files as a delta against the previous
  // one, the changeset's length, the decisions' states and the usage), the journal of a rewind in
  // flight, and which rewind made a change entry history.
  `
  CREATE TABLE checkpoints (
    pos     INTEGER PRIMARY KEY,
    id      TEXT NOT NULL UNIQUE,
    plan_id TEXT NOT NULL,
    step    INTEGER NOT NULL,
    summary TEXT NOT NULL CHECK (json_valid(summary)),
    delta   TEXT NOT NULL CHECK (json_valid(delta)),
    state   TEXT NOT NULL CHECK (json_valid(state)),
    UNIQUE (plan_id, step)
  );
  CREATE TABLE rewind_journals (
    plan_id TEXT PRIMARY KEY,
    data    TEXT NOT NULL CHECK (json_valid(data))
  );
  ALTER TABLE change_entries ADD COLUMN rewound_by TEXT;
  `,
  // 10: fencing: each take of a plan's lease raises its epoch (never deleted, so it only grows); a
  // holder whose take was overtaken is refused its writes (lease-store.ts's temporary triggers).
  `
  CREATE TABLE plan_epochs (
    plan_id TEXT PRIMARY KEY,
    epoch   INTEGER NOT NULL
  );
  `,
  // 11: a step's sub-tasks, as its coding agent's last `plan` update listed them (JSON; NULL: none sent).
  `
  ALTER TABLE decisions ADD COLUMN subtasks TEXT CHECK (subtasks IS NULL OR json_valid(subtasks));
  `,
  // 12: a file's permission bits, after a change and as last seen in the sandbox (NULL: not recorded),
  // so a remade sandbox and an apply carry a `chmod` made after the last checkpoint.
  `
  ALTER TABLE change_entries ADD COLUMN mode INTEGER;
  ALTER TABLE sandbox_files ADD COLUMN mode INTEGER;
  `,
  // 13: a file's permission bits before a change (a review shows a chmod as git does: old mode, new
  // mode), and the sandbox's symbolic links and folders as last seen (JSON), so a remade sandbox has
  // the ones made after the last checkpoint.
  `
  ALTER TABLE change_entries ADD COLUMN before_mode INTEGER;
  ALTER TABLE sandbox_bases ADD COLUMN shape TEXT CHECK (shape IS NULL OR json_valid(shape));
  `,
];
