import { memo, type ReactNode } from 'react';
import { highlightLine, type Language } from '../lib/highlight';
import type { DiffRow, DiffSide, SplitRow } from '../lib/unified-diff';

export const DIFF_ROW_HEIGHT = 20;

const SIGNS = { add: '+', del: '-', context: ' ' } as const;

/** What a screen reader says before a line's text: sign and colour are not read. */
export function spokenLine(kind: 'add' | 'del' | 'context', oldLine: number | null, newLine: number | null): string {
  if (kind === 'add') return `added, line ${newLine}: `;
  if (kind === 'del') return `removed, line ${oldLine}: `;
  return `unchanged, line ${newLine}: `;
}

export const Code = memo(function Code({ text, language }: { text: string; language: Language }) {
  return (
    <code className="diff-code">
      {highlightLine(text, language).map((token, i) => (token.cls ? <span key={i} className={`tok-${token.cls}`}>{token.text}</span> : token.text))}
    </code>
  );
});

/** A hunk's header row; `control` is its accept checkbox when the file can still be applied by hunk. */
function HunkRow({ text, control }: { text: string; control: ReactNode }) {
  return (
    <div className="diff-row diff-hunk" role="listitem" data-kind="hunk">
      {control}
      <span className="diff-meta">{text}</span>
    </div>
  );
}

export function UnifiedRow({ row, language, hunkControl }: { row: DiffRow; language: Language; hunkControl?: ReactNode }) {
  if (row.kind === 'hunk') return <HunkRow text={row.text} control={hunkControl} />;
  if (row.kind === 'note') {
    return (
      <div className="diff-row diff-note" role="listitem" data-kind="note">
        <span className="diff-meta">{row.text}</span>
      </div>
    );
  }
  return (
    <div className={`diff-row diff-${row.kind}`} role="listitem" data-kind={row.kind}>
      <span className="visually-hidden">{spokenLine(row.kind, row.oldLine, row.newLine)}</span>
      <span className="ln" aria-hidden="true">
        {row.oldLine ?? ''}
      </span>
      <span className="ln" aria-hidden="true">
        {row.newLine ?? ''}
      </span>
      <span className="sign" aria-hidden="true">
        {SIGNS[row.kind]}
      </span>
      <Code text={row.text} language={language} />
    </div>
  );
}

function Side({ side, language, label, silent = false }: { side: DiffSide | null; language: Language; label: string; silent?: boolean }) {
  if (!side) return <div className="split-side empty" />;
  return (
    <div className={`split-side diff-${side.kind}`} aria-hidden={silent || undefined}>
      <span className="visually-hidden">
        {label} {spokenLine(side.kind, side.line, side.line)}
      </span>
      <span className="ln" aria-hidden="true">
        {side.line}
      </span>
      <span className="sign" aria-hidden="true">
        {SIGNS[side.kind]}
      </span>
      <Code text={side.text} language={language} />
    </div>
  );
}

export function SplitRowView({ row, language, hunkControl }: { row: SplitRow; language: Language; hunkControl?: ReactNode }) {
  if (row.kind !== 'pair') {
    if (row.kind === 'hunk') return <HunkRow text={row.text} control={hunkControl} />;
    return (
      <div className="diff-row diff-note" role="listitem" data-kind="note">
        <span className="diff-meta">{row.text}</span>
      </div>
    );
  }
  const kind = row.left?.kind === 'context' ? 'context' : 'change';
  // A context line is the same on both sides: say it once.
  return (
    <div className="diff-row split" role="listitem" data-kind={kind}>
      <Side side={row.left} language={language} label={kind === 'context' ? '' : 'Before:'} />
      <Side side={row.right} language={language} label="After:" silent={kind === 'context'} />
    </div>
  );
}
