import { hash } from 'node:crypto';
import { type ChangeEntry, type ChangeEntryMeta, ChangeEntryMetaSchema, ChangeEntrySchema, type ChangeSetSummary, ChangeSetSummarySchema } from '../../shared/changes';
import { parseOrThrow } from '../../shared/errors';

/** Marks blob keys whose content is JSON-quoted: a text with a lone surrogate, which UTF-8 cannot hold. */
export const JSON_BLOB = 'json:';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The blob key is the sha256 of the stored text, not the entry's beforeHash/afterHash (those hash
 * the raw file bytes and are whatever the caller says): equal text is then stored once, and a key
 * always names exactly one content. A string with a lone surrogate cannot survive UTF-8, so it is
 * stored JSON-quoted under its own key prefix. Both stores key their blobs so.
 */
export function toBlob(text: string): { hash: string; content: string } {
  const content = isWellFormed(text) ? text : JSON.stringify(text);
  const digest = hash('sha256', content, 'hex');
  return { hash: content === text ? digest : `${JSON_BLOB}${digest}`, content };
}

/** String.prototype.isWellFormed (ES2024, native in Node 20) where there is one: a regex scan costs 10x more. */
const isWellFormed: (text: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (text) => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
    : (text) => !LONE_SURROGATE.test(text);


/** A change entry's metadata row; `Flag` is how the database hands back a boolean (SQLite: 0/1). */
export interface MetaRow<Flag> {
  id: string;
  path: string;
  old_path: string | null;
  operation: string;
  before_hash: string | null;
  after_hash: string | null;
  binary: Flag;
  decision_id: string | null;
  invocation_id: string | null;
  origin: string;
  insertions: number;
  deletions: number;
  rewound_by: string | null;
}

/** A change entry's row with its texts; `Content` is how the database hands back a blob (SQLite: text, PostgreSQL: bytes). */
export interface EntryRow<Flag, Content> extends Omit<MetaRow<Flag>, 'insertions' | 'deletions'> {
  before_blob: string | null;
  after_blob: string | null;
  before_text: Content | null;
  after_text: Content | null;
  /** Permission bits after the change; NULL: not recorded. */
  mode: number | null;
  /** Permission bits before the change; NULL: not recorded. */
  before_mode: number | null;
  created_at: string;
}

/** How one database's values become JavaScript ones. */
export interface RowValues<Flag, Content> {
  flag(value: Flag): boolean;
  text(content: Content): string;
}

function fromBlob<Content>(key: string | null, content: Content | null, values: RowValues<unknown, Content>): string | null {
  if (key === null || content === null) return null;
  const text = values.text(content);
  return key.startsWith(JSON_BLOB) ? (JSON.parse(text) as string) : text;
}

/** The columns an entry and its metadata share, named as the schemas name them. */
function commonFields<Flag>(row: Omit<MetaRow<Flag>, 'insertions' | 'deletions'>, values: RowValues<Flag, unknown>) {
  return {
    id: row.id,
    path: row.path,
    oldPath: row.old_path,
    operation: row.operation,
    beforeHash: row.before_hash,
    afterHash: row.after_hash,
    binary: values.flag(row.binary),
    decisionId: row.decision_id,
    invocationId: row.invocation_id,
    // Left out for a tool's change, so entries read back equal the entries recorded.
    ...(row.origin === 'operator' ? { origin: 'operator' } : {}),
  };
}

export function readMeta<Flag>(row: MetaRow<Flag>, values: RowValues<Flag, unknown>): ChangeEntryMeta {
  const rewound = row.rewound_by ? { rewound: true } : {};
  return parseOrThrow(ChangeEntryMetaSchema, { ...commonFields(row, values), insertions: row.insertions, deletions: row.deletions, ...rewound }, `change_entries[${row.id}]`);
}

export function readEntry<Flag, Content>(row: EntryRow<Flag, Content>, values: RowValues<Flag, Content>): ChangeEntry {
  return parseOrThrow(
    ChangeEntrySchema,
    {
      ...commonFields(row, values),
      beforeText: fromBlob(row.before_blob, row.before_text, values),
      afterText: fromBlob(row.after_blob, row.after_text, values),
      ...(row.rewound_by ? { rewound: true } : {}),
      ...(row.mode === null ? {} : { mode: Number(row.mode) }),
      ...(row.before_mode === null || row.before_mode === undefined ? {} : { beforeMode: Number(row.before_mode) }),
      createdAt: row.created_at,
    },
    `change_entries[${row.id}]`,
  );
}

/** A changeset's aggregate row: counts over its entries that are not rewound. */
export interface SummaryRow {
  entryCount: number;
  files: number;
  creates: number;
  modifies: number;
  deletes: number;
  renames: number;
  insertions: number;
  deletions: number;
}

export function readSummary(changesetId: string, planId: string, s: SummaryRow): ChangeSetSummary {
  return parseOrThrow(ChangeSetSummarySchema, {
    changesetId,
    planId,
    entryCount: s.entryCount,
    files: s.files,
    operations: { create: s.creates, modify: s.modifies, delete: s.deletes, rename: s.renames },
    insertions: s.insertions,
    deletions: s.deletions,
  });
}
