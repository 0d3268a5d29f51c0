import type { DiffHunk } from '../../../shared/changes';

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
