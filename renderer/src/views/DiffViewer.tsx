import { type CSSProperties, type ReactNode, useMemo, useState } from 'react';
import type { ReviewFile } from '../../../shared/contract';
import { StatePanel } from '../components/StatePanel';
import { VirtualList } from '../components/VirtualList';
import { languageFor } from '../lib/highlight';
import type { DiffHunk } from '../../../shared/changes';
import { rejectionOf } from '../../../shared/review-feedback';
import { actionState } from '../store/plan-actions';
import { reviewFileAt } from '../lib/review-fold';
import { canEditSandbox } from '../lib/sandbox-edit';
import { rowsFromHunks, toSplitRows } from '../lib/unified-diff';
import { useAppStore } from '../store/react';
import type { DiffMode } from '../store/state/ui';
import { DIFF_ROW_HEIGHT, SplitRowView, UnifiedRow } from './DiffLines';

/** Diffs longer than this start collapsed, so opening a file never stalls the window. */
const LARGE_DIFF_ROWS = 2000;

export function ModeSwitch() {
  const mode = useAppStore((s) => s.diffMode);
  const setMode = useAppStore((s) => s.setDiffMode);
  const option = (value: DiffMode, label: string) => (
    <button type="button" className={`button small ${mode === value ? 'pressed' : ''}`} aria-pressed={mode === value} onClick={() => setMode(value)}>
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

/** Accept or reject one hunk; an applied hunk says so instead. */
function HunkCheck({ file, index, canApply }: { file: ReviewFile; index: number; canApply: boolean }) {
  const rejected = useAppStore((s) => s.rejectedHunks[file.path]?.includes(index) ?? false);
  const fileExcluded = useAppStore((s) => Boolean(s.excludedPaths[file.path]));
  const toggle = useAppStore((s) => s.toggleHunk);
  const total = file.hunks.length;
  const applied = file.appliedHunks.includes(index);
  if (applied) return <span className="hunk-label tag good">Hunk {index} of {total}, applied</span>;
  // A file of one hunk has its box too: declining it is how its reason ("Why?") is given.
  if (!canApply) return <span className="hunk-label">Hunk {index} of {total}</span>;
  return (
    <>
      <label className="hunk-label">
        <input type="checkbox" checked={!rejected && !fileExcluded} disabled={fileExcluded} onChange={() => toggle(file.path, index)} /> Hunk {index} of {total}
      </label>
      {rejected && !fileExcluded && <HunkReason file={file} index={index} />}
    </>
  );
}

/** Why a declined hunk was declined: saved with the plan as the operator leaves the field, and told to the model. */
function HunkReason({ file, index }: { file: ReviewFile; index: number }) {
  const { path } = file;
  const stored = useAppStore((s) => rejectionOf(s.plan?.rejectedHunks ?? [], path, file.hunks, index)?.reason ?? '');
  const save = useAppStore((s) => s.setHunkReason);
  return (
    <input
      className="hunk-reason"
      type="text"
      maxLength={1000}
      defaultValue={stored}
      placeholder="Why? The agent is told"
      aria-label={`Why hunk ${index} is declined`}
      onBlur={(e) => void save(path, index, e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') e.currentTarget.blur();
      }}
    />
  );
}

/**
 * A file's hunks drawn as the review draws them (unified or side by side); `hunkControl` adds the
 * review's accept box to a hunk's header. The compare view draws its diffs with it too.
 */
/** A side's text length in columns, a tab counted as its width. */
const sideLength = (side: { text: string } | null) => (side ? side.text.length + (side.text.split('\t').length - 1) * (TAB_WIDTH - 1) : 0);
const TAB_WIDTH = 8;

export function DiffLinesView({ path, hunks, hunkControl }: { path: string; hunks: readonly DiffHunk[]; hunkControl?: (index: number) => ReactNode }) {
  const mode = useAppStore((s) => s.diffMode);
  const [openLarge, setOpenLarge] = useState<string | null>(null);
  const rows = useMemo(() => rowsFromHunks(hunks), [hunks]);
  const split = useMemo(() => (mode === 'split' ? toSplitRows(rows) : []), [rows, mode]);
  const language = useMemo(() => languageFor(path), [path]);
  // Side by side, each half is as wide as the longest line (or half the pane), and the list scrolls
  // sideways: a long line is never cut where it cannot be reached.
  const longest = useMemo(
    () => split.reduce((most, row) => (row.kind === 'pair' ? Math.max(most, sideLength(row.left), sideLength(row.right)) : most), 0),
    [split],
  );
  const shown = mode === 'split' ? split : rows;
  // Hunk n is the n-th hunk header row, in either layout.
  const hunkAt = useMemo(() => {
    const at: number[] = [];
    let n = 0;
    for (const row of shown) at.push(row.kind === 'hunk' ? ++n : 0);
    return at;
  }, [shown]);

  if (rows.length === 0) return <StatePanel kind="empty" title="No line changes." />;
  if (rows.length > LARGE_DIFF_ROWS && openLarge !== path) {
    return (
      <StatePanel kind="empty" title={`Large diff: ${rows.length.toLocaleString()} lines.`}>
        <button type="button" className="button" onClick={() => setOpenLarge(path)}>
          Show the diff
        </button>
      </StatePanel>
    );
  }
  return (
    <VirtualList
      count={shown.length}
      rowHeight={DIFF_ROW_HEIGHT}
      overscan={20}
      className={`diff-lines mode-${mode}`}
      renderRow={(i) => {
        const control = hunkAt[i] > 0 && hunkControl ? hunkControl(hunkAt[i]) : undefined;
        return mode === 'split' ? (
          <SplitRowView key={i} row={split[i]} language={language} hunkControl={control} />
        ) : (
          <UnifiedRow key={i} row={rows[i]} language={language} hunkControl={control} />
        );
      }}
      containerProps={{ 'data-count': shown.length, tabIndex: 0, 'aria-label': `Lines of ${path}`, style: { '--side-chars': longest } as CSSProperties }}
      windowProps={{ role: 'list', 'aria-label': `Diff of ${path}` }}
    />
  );
}

export function DiffViewer() {
  const path = useAppStore((s) => s.selectedPath);
  const file = useAppStore((s) => reviewFileAt(s.reviewFiles, s.selectedPath));
  const diffState = useAppStore((s) => (s.selectedPath ? s.fileDiffs[s.selectedPath] : undefined));
  const mode = useAppStore((s) => s.diffMode);
  const canEdit = useAppStore((s) => (s.plan ? canEditSandbox(s.plan) : false));
  const openEditor = useAppStore((s) => s.openEditor);
  const notice = useAppStore((s) => s.editorNotice);
  const canApply = useAppStore((s) => (s.plan ? actionState(s, 'apply').allowed : false));

  if (!path || !file) {
    return (
      <section className="diff-viewer" data-state="none" aria-label="Diff">
        <StatePanel kind="empty" title="Select a file to see its diff." />
      </section>
    );
  }

  let body;
  let state: string;
  if (file.binary) {
    state = 'binary';
    body = <StatePanel kind="empty" title="Binary file — its contents are not shown." />;
  } else if (!diffState || diffState.status === 'loading') {
    state = 'loading';
    body = <StatePanel kind="loading" title="Loading the diff…" />;
  } else if (diffState.status === 'error') {
    state = 'error';
    body = <StatePanel kind="error" title={`Couldn't load the diff: ${diffState.message}`} />;
  } else if (diffState.data.hunks === null || diffState.data.hunks.length === 0) {
    state = 'empty';
    const title = file.operation === 'rename' ? 'Renamed without content changes.' : diffState.data.hunks === null ? 'No textual diff.' : 'No line changes.';
    body = <StatePanel kind="empty" title={title} />;
  } else {
    state = 'loaded';
    body = <DiffLinesView path={file.path} hunks={diffState.data.hunks} hunkControl={(index) => <HunkCheck file={file} index={index} canApply={canApply} />} />;
  }

  const title = file.oldPath ? `${file.oldPath} → ${file.path}` : file.path;
  return (
    <section className="diff-viewer" data-state={state} data-mode={mode} data-path={file.path} aria-label={`Diff of ${title}`}>
      <div className="diff-head">
        <span className={`op op-${file.operation}`}>{file.operation}</span>
        <span className="file-path">{title}</span>
        {!file.binary && (
          <span className="counts">
            <span className="ins">+{file.insertions}</span> <span className="del">−{file.deletions}</span>
          </span>
        )}
        {file.editedByOperator && <span className="tag">Edited by you</span>}
        <span className="grow" />
        {canEdit && !file.binary && file.operation !== 'delete' && (
          <button type="button" className="button small" aria-label={`Edit ${file.path}`} onClick={() => void openEditor(file.path)}>
            Edit
          </button>
        )}
        <ModeSwitch />
      </div>
      {notice?.path === file.path && (
        <p className="inline-ok diff-notice" role="status">
          {notice.text}
        </p>
      )}
      {body}
    </section>
  );
}
