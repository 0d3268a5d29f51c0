import { useMemo, useState } from 'react';
import { StatePanel } from '../components/StatePanel';
import { VirtualList } from '../components/VirtualList';
import { languageFor } from '../lib/highlight';
import { rowsFromHunks, toSplitRows } from '../lib/unified-diff';
import type { DiffHunk } from '../../../shared/domain';
import { useAppStore } from '../store/react';
import type { DiffMode } from '../store/ui-slice';
import { DIFF_ROW_HEIGHT, SplitRowView, UnifiedRow } from './DiffLines';

/** Diffs longer than this start collapsed, so opening a file never stalls the window. */
const LARGE_DIFF_ROWS = 2000;

function ModeSwitch() {
  const mode = useAppStore((s) => s.diffMode);
  const setMode = useAppStore((s) => s.setDiffMode);
  const option = (value: DiffMode, label: string) => (
    <button type="button" className={`button small ${mode === value ? 'pressed' : ''}`} aria-pressed={mode === value} data-testid={`diff-mode-${value}`} onClick={() => setMode(value)}>
      {label}
    </button>
  );
  return (
    <div className="segmented" role="group" aria-label="Diff layout">
      {option('unified', 'Unified')}
      {option('split', 'Side by side')}
    </div>
  );
}

function DiffBody({ entryId, hunks, path }: { entryId: string; hunks: readonly DiffHunk[]; path: string }) {
  const mode = useAppStore((s) => s.diffMode);
  const [openLarge, setOpenLarge] = useState<string | null>(null);
  const rows = useMemo(() => rowsFromHunks(hunks), [hunks]);
  const split = useMemo(() => (mode === 'split' ? toSplitRows(rows) : []), [rows, mode]);
  const language = useMemo(() => languageFor(path), [path]);

  if (rows.length === 0) return <StatePanel kind="empty" testId="diff-empty" title="No line changes." />;
  if (rows.length > LARGE_DIFF_ROWS && openLarge !== entryId) {
    return (
      <StatePanel kind="empty" testId="diff-collapsed" title={`Large diff: ${rows.length.toLocaleString()} lines.`}>
        <button type="button" className="button" data-testid="diff-expand" onClick={() => setOpenLarge(entryId)}>
          Show the diff
        </button>
      </StatePanel>
    );
  }
  const count = mode === 'split' ? split.length : rows.length;
  return (
    <VirtualList
      count={count}
      rowHeight={DIFF_ROW_HEIGHT}
      overscan={20}
      className={`diff-lines mode-${mode}`}
      renderRow={(i) => (mode === 'split' ? <SplitRowView key={i} row={split[i]} language={language} /> : <UnifiedRow key={i} row={rows[i]} language={language} />)}
      containerProps={{ 'data-testid': 'diff-lines', 'data-count': count, tabIndex: 0, 'aria-label': `Diff of ${path}` }}
    />
  );
}

export function DiffViewer() {
  const entryId = useAppStore((s) => s.selectedEntryId);
  const entry = useAppStore((s) => s.changeEntries.find((e) => e.id === s.selectedEntryId));
  const diffState = useAppStore((s) => (s.selectedEntryId ? s.diffs[s.selectedEntryId] : undefined));
  const mode = useAppStore((s) => s.diffMode);

  if (!entryId || !entry) {
    return (
      <section className="diff-viewer" data-testid="diff-viewer" data-state="none" aria-label="Diff">
        <StatePanel kind="empty" title="Select a file to see its diff." />
      </section>
    );
  }

  let body;
  let state: string;
  if (entry.binary) {
    state = 'binary';
    body = <StatePanel kind="empty" testId="diff-binary" title="Binary file — its contents are not shown." />;
  } else if (!diffState || diffState.status === 'loading') {
    state = 'loading';
    body = <StatePanel kind="loading" title="Loading the diff…" />;
  } else if (diffState.status === 'error') {
    state = 'error';
    body = <StatePanel kind="error" title={`Couldn't load the diff: ${diffState.message}`} />;
  } else if (diffState.data.hunks === null || diffState.data.hunks.length === 0) {
    state = 'empty';
    const title = entry.operation === 'rename' ? 'Renamed without content changes.' : diffState.data.hunks === null ? 'No textual diff.' : 'No line changes.';
    body = <StatePanel kind="empty" testId="diff-empty" title={title} />;
  } else {
    state = 'loaded';
    body = <DiffBody entryId={entryId} hunks={diffState.data.hunks} path={entry.path} />;
  }

  return (
    <section className="diff-viewer" data-testid="diff-viewer" data-state={state} data-mode={mode} data-path={entry.path} aria-label={`Diff of ${entry.path}`}>
      <div className="diff-head">
        <span className={`op op-${entry.operation}`}>{entry.operation}</span>
        <span className="file-path">{entry.oldPath ? `${entry.oldPath} → ${entry.path}` : entry.path}</span>
        {!entry.binary && (
          <span className="counts">
            <span className="ins">+{entry.insertions}</span> <span className="del">−{entry.deletions}</span>
          </span>
        )}
        <span className="grow" />
        <ModeSwitch />
      </div>
      {body}
    </section>
  );
}
