import { useCallback, useEffect, useMemo } from 'react';
import { StatePanel } from '../components/StatePanel';
import { VirtualList } from '../components/VirtualList';
import { allowedActions } from '../lib/plan-actions';
import { useAppStore } from '../store/react';
import { DiffViewer } from './DiffViewer';
import { FILE_ROW_HEIGHT, FileRow, fileOptionId } from './FileRow';

function ApplyBar() {
  const entries = useAppStore((s) => s.changeEntries);
  const total = useAppStore((s) => s.changesTotal);
  const excluded = useAppStore((s) => s.excludedPaths);
  const setAll = useAppStore((s) => s.setAllIncluded);
  const apply = useAppStore((s) => s.applySelected);
  const applying = useAppStore((s) => s.applyStatus === 'applying');
  const canApply = useAppStore((s) => (s.plan ? allowedActions(s.plan).apply : false));
  const result = useAppStore((s) => s.applyResult);

  const paths = useMemo(() => new Set(entries.map((e) => e.path)), [entries]);
  const included = [...paths].filter((p) => !excluded[p]).length;
  const insertions = entries.reduce((n, e) => n + e.insertions, 0);
  const deletions = entries.reduce((n, e) => n + e.deletions, 0);

  return (
    <div className="apply-bar">
      <div className="toolbar-row">
        {canApply && (
          <input
            type="checkbox"
            aria-label="Include every file when applying"
            data-testid="change-include-all"
            checked={included === paths.size}
            ref={(el) => {
              if (el) el.indeterminate = included > 0 && included < paths.size;
            }}
            onChange={(e) => setAll(e.currentTarget.checked)}
          />
        )}
        <span data-testid="change-summary">
          {total} file{total === 1 ? '' : 's'} · <span className="ins">+{insertions}</span> <span className="del">−{deletions}</span>
          {entries.length < total && <span className="muted"> in the first {entries.length}</span>}
        </span>
        <span className="grow" />
        {canApply && (
          <button type="button" className="button primary" data-testid="apply-selected" disabled={applying || included === 0} onClick={() => void apply()}>
            {applying ? 'Applying…' : included === paths.size ? 'Apply all' : `Apply ${included} selected`}
          </button>
        )}
      </div>
      {result && (
        <p className={result.conflicts.length > 0 ? 'inline-error' : 'inline-ok'} role="status" data-testid="apply-result" data-conflicts={result.conflicts.length} data-applied={result.applied.length}>
          {result.conflicts.length > 0
            ? `Nothing applied: ${result.conflicts.length} file${result.conflicts.length === 1 ? ' was' : 's were'} changed in the project since the plan ran (marked below).`
            : `Applied ${result.applied.length} file${result.applied.length === 1 ? '' : 's'}${result.skipped.length ? `, skipped ${result.skipped.length}` : ''}.`}
        </p>
      )}
    </div>
  );
}

function FileList() {
  const entries = useAppStore((s) => s.changeEntries);
  const total = useAppStore((s) => s.changesTotal);
  const selectedId = useAppStore((s) => s.selectedEntryId);
  const excluded = useAppStore((s) => s.excludedPaths);
  const result = useAppStore((s) => s.applyResult);
  const canApply = useAppStore((s) => (s.plan ? allowedActions(s.plan).apply : false));
  const select = useAppStore((s) => s.selectEntry);
  const toggle = useAppStore((s) => s.togglePath);
  const loadMore = useAppStore((s) => s.loadMoreChanges);
  const setFocusRegion = useAppStore((s) => s.setFocusRegion);

  const conflicts = useMemo(() => new Set(result?.conflicts.map((c) => c.path)), [result]);
  const applied = useMemo(() => new Set(result?.conflicts.length ? [] : result?.applied), [result]);
  const onRange = useCallback(
    (_start: number, end: number) => {
      if (end >= entries.length - 20 && entries.length < total) void loadMore();
    },
    [entries.length, total, loadMore],
  );
  const selectedIndex = entries.findIndex((e) => e.id === selectedId);

  // Opening the changes shows the first file's diff rather than an empty pane.
  const first = entries[0]?.id;
  useEffect(() => {
    if (selectedId === null && first) select(first);
  }, [selectedId, first, select]);

  return (
    <VirtualList
      count={entries.length}
      rowHeight={FILE_ROW_HEIGHT}
      scrollToIndex={selectedIndex}
      onRangeChange={onRange}
      className="file-list"
      renderRow={(i) => {
        const entry = entries[i];
        return (
          <FileRow
            key={entry.id}
            entry={entry}
            selected={entry.id === selectedId}
            included={!excluded[entry.path]}
            canApply={canApply}
            conflict={conflicts.has(entry.path)}
            applied={applied.has(entry.path)}
            onSelect={select}
            onToggle={toggle}
          />
        );
      }}
      containerProps={{
        role: 'listbox',
        tabIndex: 0,
        'aria-label': 'Changed files',
        'aria-activedescendant': selectedIndex >= 0 ? fileOptionId(entries[selectedIndex].id) : undefined,
        'data-testid': 'change-list',
        'data-count': entries.length,
        'data-total': total,
        'data-region': 'files',
        onFocus: () => setFocusRegion('files'),
      }}
    />
  );
}

export function ChangesetView() {
  const status = useAppStore((s) => s.changesStatus);
  const error = useAppStore((s) => s.changesError);
  const total = useAppStore((s) => s.changesTotal);
  const phase = useAppStore((s) => s.plan?.phase);

  let list;
  if (total === 0 && (status === 'loading' || status === 'idle')) list = <StatePanel kind="loading" title="Loading changes…" />;
  else if (total === 0 && status === 'error') list = <StatePanel kind="error" title={`Couldn't load the changes: ${error ?? ''}`} />;
  else if (total === 0)
    list = <StatePanel kind="empty" testId="changes-empty" title={phase === 'strategize' ? 'No changes yet — they appear as the plan executes.' : 'No changes in this plan.'} />;
  else
    list = (
      <>
        <ApplyBar />
        <FileList />
      </>
    );

  return (
    <div className="changeset" data-testid="changeset">
      <div className="files-pane">{list}</div>
      <DiffViewer />
    </div>
  );
}
