import { memo } from 'react';
import { highlightLine, type Language } from '../lib/highlight';
import type { DiffRow, DiffSide, SplitRow } from '../lib/unified-diff';

export const DIFF_ROW_HEIGHT = 20;

const SIGNS = { add: '+', del: '-', context: ' ' } as const;

export const Code = memo(function Code({ text, language }: { text: string; language: Language }) {
  return (
    <code className="diff-code">
      {highlightLine(text, language).map((token, i) => (token.cls ? <span key={i} className={`tok-${token.cls}`}>{token.text}</span> : token.text))}
    </code>
  );
});

export function UnifiedRow({ row, language }: { row: DiffRow; language: Language }) {
  if (row.kind === 'hunk' || row.kind === 'note') {
    return (
      <div className={`diff-row diff-${row.kind}`} data-testid="diff-line" data-kind={row.kind}>
        <span className="diff-meta">{row.text}</span>
      </div>
    );
  }
  return (
    <div className={`diff-row diff-${row.kind}`} data-testid="diff-line" data-kind={row.kind}>
      <span className="ln">{row.oldLine ?? ''}</span>
      <span className="ln">{row.newLine ?? ''}</span>
      <span className="sign" aria-hidden="true">
        {SIGNS[row.kind]}
      </span>
      <Code text={row.text} language={language} />
    </div>
  );
}

function Side({ side, language }: { side: DiffSide | null; language: Language }) {
  if (!side) return <div className="split-side empty" />;
  return (
    <div className={`split-side diff-${side.kind}`}>
      <span className="ln">{side.line}</span>
      <span className="sign" aria-hidden="true">
        {SIGNS[side.kind]}
      </span>
      <Code text={side.text} language={language} />
    </div>
  );
}

export function SplitRowView({ row, language }: { row: SplitRow; language: Language }) {
  if (row.kind !== 'pair') {
    return (
      <div className={`diff-row diff-${row.kind}`} data-testid="diff-line" data-kind={row.kind}>
        <span className="diff-meta">{row.text}</span>
      </div>
    );
  }
  const kind = row.left?.kind === 'context' ? 'context' : 'change';
  return (
    <div className="diff-row split" data-testid="diff-line" data-kind={kind}>
      <Side side={row.left} language={language} />
      <Side side={row.right} language={language} />
    </div>
  );
}
