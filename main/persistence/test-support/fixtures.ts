import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BUILTIN_PROFILES } from '../../../shared/profiles';
import type { ChangeEntry } from '../../../shared/changes';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import type { ErrorRecord } from '../../../shared/error-records';
import type { ToolInvocation } from '../../../shared/tool-calls';
import type { StreamEvent } from '../../../shared/events';
import { newId } from '../../../shared/ids';
import { sha256 } from '../../engine/run/change-capture';
import { openDatabase, type SqliteDatabase } from '../database';

/** Something a contract suite runs against, and how to throw it away afterwards. */
export interface Harness<T> {
  subject: T;
  dispose(): void | Promise<void>;
}
/** Opens a fresh subject for each test: a port of a fresh set of stores (SQLite on a new file, in memory, or another adapter). */
export type HarnessFactory<T> = () => Harness<T> | Promise<Harness<T>>;

export function tempDir(prefix = 'agents-persistence-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A fresh database file in a fresh temp dir. */
export function tempDatabase(): { db: SqliteDatabase; dir: string; file: string; dispose(): void } {
  const dir = tempDir();
  const file = path.join(dir, 'agents.db');
  const db = openDatabase(file);
  return {
    db,
    dir,
    file,
    dispose: () => {
      if (db.isOpen) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A harness for a SQLite store on a real file. */
export function sqliteHarness<T>(create: (db: SqliteDatabase) => T): HarnessFactory<T> {
  return () => {
    const temp = tempDatabase();
    return { subject: create(temp.db), dispose: temp.dispose };
  };
}

export function inMemoryHarness<T>(create: () => T): HarnessFactory<T> {
  return () => ({ subject: create(), dispose: () => {} });
}

export function iso(offsetMs = 0): string {
  return new Date(Date.UTC(2024, 0, 1) + offsetMs).toISOString();
}

export function makePlan(overrides: Partial<Plan> = {}): Plan {
  return {
    id: newId(),
    name: 'add-license',
    description: 'Add a licence and mention it in the README',
    definitionOfDone: [
      { step: 'Create the licence file', tools: [{ tool: 'file.write', args: { path: 'LICENSE', content: 'MIT' } }] },
      'Review the result',
    ],
    invariants: ['Never touch tests/'],
    automationProfile: { ...BUILTIN_PROFILES.trusted, approvalRequired: [] },
    projectPath: '/tmp/demo-project',
    phase: 'strategize',
    processingState: 'queued',
    decisionRootId: null,
    changesetId: null,
    sandboxRefs: [],
    errorMessage: null,
    errorDetails: {},
    waitingFor: null,
    projectInvariants: null,
    createdAt: iso(),
    updatedAt: iso(),
    ...overrides,
  };
}

export function makeDecision(planId: string, overrides: Partial<StrategyDecision> = {}): StrategyDecision {
  return {
    id: newId(),
    planId,
    parentId: null,
    type: 'strategy_choice',
    order: 1,
    description: 'Create the licence file',
    rationale: 'Scripted: file.write',
    toolCalls: [{ tool: 'file.write', args: { path: 'LICENSE', content: 'MIT' } }],
    status: 'pending',
    createdAt: iso(),
    updatedAt: iso(),
    ...overrides,
  };
}

/** A text entry whose hashes match its texts, as toChangeEntry would make it. */
export function makeEntry(overrides: Partial<ChangeEntry> = {}): ChangeEntry {
  const beforeText = overrides.beforeText !== undefined ? overrides.beforeText : null;
  const afterText = overrides.afterText !== undefined ? overrides.afterText : 'hello\n';
  const operation = overrides.operation ?? (beforeText === null ? 'create' : afterText === null ? 'delete' : 'modify');
  return {
    id: newId(),
    path: 'README.md',
    oldPath: null,
    operation,
    beforeHash: beforeText === null ? null : sha256(beforeText),
    afterHash: afterText === null ? null : sha256(afterText),
    beforeText,
    afterText,
    binary: false,
    decisionId: null,
    invocationId: null,
    createdAt: iso(),
    ...overrides,
  };
}

export function makeInvocation(planId: string, overrides: Partial<ToolInvocation> = {}): ToolInvocation {
  return {
    id: newId(),
    planId,
    decisionId: null,
    tool: 'file.write',
    args: { path: 'LICENSE', content: 'MIT' },
    ok: true,
    result: { bytes: 3 },
    error: null,
    startedAt: iso(),
    durationMs: 1.25,
    ...overrides,
  };
}

export function makeErrorRecord(planId: string, overrides: Partial<ErrorRecord> = {}): ErrorRecord {
  return {
    id: newId(),
    planId,
    phase: 'execute',
    decisionId: null,
    attempt: 1,
    category: 'transient',
    retriable: true,
    recoveryAction: 'retry',
    message: 'shell.run exited with status 75',
    stack: 'Error: shell.run exited with status 75\n    at run (tools.ts:1:1)',
    hint: 'Retry the plan',
    next: { action: 'retry', args: {}, message: 'Retry the plan' },
    outcome: 'retried',
    createdAt: iso(),
    ...overrides,
  };
}

export function makeEvent(planId: string, seq: number, overrides: Partial<StreamEvent> = {}): StreamEvent {
  return { planId, seq, ts: iso(seq), type: 'execute_step', data: { decisionId: '01DECISION', index: seq, total: seq, description: `step ${seq} \u00e9\u{1F600}` }, ...overrides } as StreamEvent;
}
