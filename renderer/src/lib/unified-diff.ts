import type { DiffHunk } from '../../../shared/domain';

export type DiffLineKind = 'context' | 'add' | 'del';

export type DiffRow =
  | { kind: 'hunk'; text: string }
  | { kind: 'note'; text: string }
  | { kind: DiffLineKind; text: string; oldLine: number | null; newLine: number | null };

export interface DiffSide {
  kind: DiffLineKind;
  line: number;
  text: string;
}

export type SplitRow = { kind: 'hunk' | 'note'; text: string } | { kind: 'pair'; left: DiffSide | null; right: DiffSide | null };

/** The rows the diff view lists: each hunk's header, then its rows as the host sent them. No text is parsed. */
export function rowsFromHunks(hunks: readonly DiffHunk[]): DiffRow[] {
  const rows: DiffRow[] = [];
  for (const hunk of hunks) {
    rows.push({ kind: 'hunk', text: hunk.header });
    for (const row of hunk.rows) rows.push(row.kind === 'note' ? { kind: 'note', text: row.text } : (row as DiffRow));
  }
  return rows;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** Rows of a unified diff given as text (an approval's preview); file headers are dropped. */
export function parseUnifiedDiff(text: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    const hunk = HUNK.exec(line);
    if (hunk) {
      inHunk = true;
      oldLine = Number(hunk[1]);
      newLine = Number(hunk[2]);
      rows.push({ kind: 'hunk', text: line });
      continue;
    }
    if (!inHunk) continue;
    const marker = line[0];
    const body = line.slice(1);
    if (marker === '+') rows.push({ kind: 'add', text: body, oldLine: null, newLine: newLine++ });
    else if (marker === '-') rows.push({ kind: 'del', text: body, oldLine: oldLine++, newLine: null });
    else if (marker === ' ' || line === '') rows.push({ kind: 'context', text: body, oldLine: oldLine++, newLine: newLine++ });
    else if (marker === '\\') rows.push({ kind: 'note', text: line.slice(2) });
    else inHunk = false; // the next file's header in a multi-file patch
  }
  return rows;
}

/** Pairs removed lines with the added lines that replace them, for a side-by-side view. */
export function toSplitRows(rows: readonly DiffRow[]): SplitRow[] {
  const out: SplitRow[] = [];
  let dels: DiffSide[] = [];
  let adds: DiffSide[] = [];
  const flush = () => {
    const n = Math.max(dels.length, adds.length);
    for (let i = 0; i < n; i++) out.push({ kind: 'pair', left: dels[i] ?? null, right: adds[i] ?? null });
    dels = [];
    adds = [];
  };
  for (const row of rows) {
    if (row.kind === 'del') {
      if (adds.length > 0) flush();
      dels.push({ kind: 'del', line: row.oldLine ?? 0, text: row.text });
    } else if (row.kind === 'add') {
      adds.push({ kind: 'add', line: row.newLine ?? 0, text: row.text });
    } else {
      flush();
      if (row.kind === 'context') {
        out.push({ kind: 'pair', left: { kind: 'context', line: row.oldLine ?? 0, text: row.text }, right: { kind: 'context', line: row.newLine ?? 0, text: row.text } });
      } else out.push({ kind: row.kind, text: row.text });
    }
  }
  flush();
  return out;
}
