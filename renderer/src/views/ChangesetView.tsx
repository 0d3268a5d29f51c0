import { useCallback, useMemo, useRef } from 'react';
import { StatePanel } from '../components/StatePanel';
import { useDialogFocus } from '../components/use-dialog-focus';
import { VirtualList } from '../components/VirtualList';
import { plural, remainLine } from '../lib/format';
import { actionState } from '../store/plan-actions';
import { reviewFileAt, reviewSummary } from '../lib/review-fold';
import { acceptedCount, acceptedPlan, allDeclined } from '../store/changes-slice';
import { useAppStore } from '../store/react';
import { DiffViewer } from './DiffViewer';
import { FILE_ROW_HEIGHT, FileRow } from './FileRow';
import { OpenSandboxFile, SandboxEditor } from './SandboxEditor';

function ApplyBar() {
  const files = useAppStore((s) => s.reviewFiles);
  const excluded = useAppStore((s) => s.excludedPaths);
  const rejected = useAppStore((s) => s.rejectedHunks);
  const setAll = useAppStore((s) => s.setAllIncluded);
  const apply = useAppStore((s) => s.applySelected);
  const applyStatus = useAppStore((s) => s.applyStatus);
  const canApply = useAppStore((s) => (s.plan ? actionState(s, 'apply').allowed : false));
  const result = useAppStore((s) => s.applyResult);

  const { applied, left, insertions, deletions } = reviewSummary(files);
  const accepted = useMemo(() => acceptedCount(files, excluded, rejected), [files, excluded, rejected]);
  const allAccepted = accepted.files === left && accepted.whole;

  return (
    <div className="apply-bar">
      <div className="toolbar-row">
        {canApply && left > 0 && (
          <input
            type="checkbox"
            aria-label="Accept every file"
            checked={accepted.files === left}
            ref={(el) => {
              if (el) el.indeterminate = accepted.files > 0 && !allAccepted;
            }}
            onChange={(e) => setAll(e.currentTarget.checked)}
          />
        )}
        <span className="change-summary" role="status">
          {plural(files.length, 'file')} · <span className="ins">+{insertions}</span> <span className="del">−{deletions}</span>
          {applied > 0 && (
            <>
              {' '}
              · {applied} applied, {left} remaining
            </>
          )}
        </span>
        <span className="grow" />
        {canApply && left > 0 && (
          <button type="button" className="button primary" disabled={applyStatus !== 'idle' || accepted.files === 0} onClick={() => void apply()}>
            {applyStatus === 'applying' ? 'Applying…' : allAccepted && applied === 0 ? 'Apply all' : `Apply ${plural(accepted.files, 'file')}`}
          </button>
        )}
      </div>
      {result && (
        <p className={result.conflicts.length > 0 ? 'inline-error' : 'inline-ok'} role="status" data-conflicts={result.conflicts.length} data-applied={result.applied.length}>
          {result.conflicts.length > 0
            ? `Nothing applied: ${result.conflicts.length} file${result.conflicts.length === 1 ? ' was' : 's were'} changed in the project since the plan ran (marked below).`
            : `Applied ${plural(result.applied.length, 'file')}.${result.remaining.length > 0 ? ` ${remainLine(result.remaining.length)}: apply ${result.remaining.length === 1 ? 'it' : 'them'} later, or discard the rest.` : ''}`}
        </p>
      )}
    </div>
  );
}

/** Asks before anything is written into the project, with the files and their line counts. */
function ConfirmApply() {
  const status = useAppStore((s) => s.applyStatus);
  const files = useAppStore((s) => s.reviewFiles);
  const excluded = useAppStore((s) => s.excludedPaths);
  const rejected = useAppStore((s) => s.rejectedHunks);
  const project = useAppStore((s) => s.plan?.projectPath ?? '');
  const confirm = useAppStore((s) => s.confirmApply);
  const cancel = useAppStore((s) => s.cancelApply);
  const failedChecks = useAppStore((s) => s.applyFailedChecks);
  const failedNames = useAppStore((s) => s.plan?.checks?.failedChecks);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const open = status === 'confirming';
  // Listed only while the dialog is open: changes may stream in meanwhile.
  const accepted = useMemo(() => (open ? acceptedPlan(files, excluded, rejected) : []), [open, files, excluded, rejected]);

  useDialogFocus(open, confirmButton);
  if (!open) return null;
  if (failedChecks !== null) return <ConfirmFailedChecks reason={failedChecks} names={failedNames ?? []} files={accepted.length} onCancel={cancel} onConfirm={() => void confirm()} />;

  return (
    <div className="modal-backdrop">
      <div
        className="modal confirm-apply"
        role="dialog"
        aria-modal="true"
        aria-labelledby="confirm-apply-title"
        aria-describedby="confirm-apply-where"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            cancel();
          }
        }}
      >
        <h2 id="confirm-apply-title">Apply {plural(accepted.length, 'file')} to the project?</h2>
        <p id="confirm-apply-where" className="muted">
          These files will be written into <code>{project}</code>.
        </p>
        <ul className="confirm-files" aria-label="Files to write">
          {accepted.map((f) => {
            const hunks = reviewFileAt(files, f.path)?.hunks.length ?? 0;
            return (
              <li key={f.path}>
                <code>{f.path}</code> <span className="ins">+{f.insertions}</span> <span className="del">−{f.deletions}</span>
                {f.hunks && <span className="muted"> (hunks {f.hunks.join(', ')} of {hunks})</span>}
              </li>
            );
          })}
        </ul>
        <div className="toolbar-row">
          <span className="grow" />
          <button type="button" className="button" onClick={cancel}>
            Cancel
          </button>
          <button ref={confirmButton} type="button" className="button primary" onClick={() => void confirm()}>
            Write {plural(accepted.length, 'file')}
          </button>
        </div>
      </div>
    </div>
  );
}

/** The second confirmation, after a check failed: names the failed checks before anything is written. */
function ConfirmFailedChecks({ reason, names, files, onCancel, onConfirm }: { reason: string; names: string[]; files: number; onCancel: () => void; onConfirm: () => void }) {
  const cancelButton = useRef<HTMLButtonElement>(null);
  // Focus goes to Cancel: applying over failed checks takes a deliberate choice.
  useDialogFocus(true, cancelButton);
  return (
    <div className="modal-backdrop">
      <div
        className="modal confirm-apply confirm-failed-checks"
        role="alertdialog"
        aria-modal="true"
        aria-labelledby="confirm-checks-title"
        aria-describedby="confirm-checks-reason"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onCancel();
          }
        }}
      >
        <h2 id="confirm-checks-title">The checks failed. Apply anyway?</h2>
        <p id="confirm-checks-reason">
          {names.length === 1 ? 'This check failed' : 'These checks failed'} in the sandbox: the result may not be right. Apply only if you accept that.
        </p>
        <ul className="failed-checks" aria-label="Failed checks">
          {names.map((name) => (
            <li key={name}>
              <code>{name}</code>
            </li>
          ))}
        </ul>
        {/* The host's own words, where the plan does not name the checks. */}
        {names.length === 0 && <p className="muted">{reason}</p>}
        <div className="toolbar-row">
          <span className="grow" />
          <button ref={cancelButton} type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="button danger" onClick={onConfirm}>
            Apply {plural(files, 'file')} anyway
          </button>
        </div>
      </div>
    </div>
  );
}

function FileList() {
  const files = useAppStore((s) => s.reviewFiles);
  const selectedPath = useAppStore((s) => s.selectedPath);
  const excluded = useAppStore((s) => s.excludedPaths);
  const rejected = useAppStore((s) => s.rejectedHunks);
  const result = useAppStore((s) => s.applyResult);
  const canApply = useAppStore((s) => (s.plan ? actionState(s, 'apply').allowed : false));
  const select = useAppStore((s) => s.selectPath);
  const toggle = useAppStore((s) => s.togglePath);
  const setFocusRegion = useAppStore((s) => s.setFocusRegion);

  const conflicts = useMemo(() => new Set(result?.conflicts.map((c) => c.path)), [result]);
  const onSelect = useCallback((path: string) => select(path), [select]);
  const selectedIndex = files.findIndex((f) => f.path === selectedPath);

  return (
    <VirtualList
      count={files.length}
      rowHeight={FILE_ROW_HEIGHT}
      scrollToIndex={selectedIndex}
      className="file-list"
      renderRow={(i) => {
        const file = files[i];
        return (
          <FileRow
            key={file.path}
            file={file}
            selected={file.path === selectedPath}
            included={!excluded[file.path] && !allDeclined(file, rejected[file.path] ?? [])}
            partlyIncluded={(rejected[file.path]?.length ?? 0) > 0}
            canApply={canApply}
            conflict={conflicts.has(file.path) || (file.oldPath !== null && conflicts.has(file.oldPath))}
            onSelect={onSelect}
            onToggle={toggle}
          />
        );
      }}
      containerProps={{
        'data-testid': 'change-list',
        'data-count': files.length,
        'data-region': 'files',
        onFocus: () => setFocusRegion('files'),
      }}
      windowProps={{ role: 'list', 'aria-label': 'Changed files' }}
    />
  );
}

export function ChangesetView() {
  const status = useAppStore((s) => s.changesStatus);
  const error = useAppStore((s) => s.changesError);
  const total = useAppStore((s) => s.reviewFiles.length);
  const phase = useAppStore((s) => s.plan?.phase);
  const editing = useAppStore((s) => s.editor !== null);
  const planId = useAppStore((s) => s.plan?.id);

  let list;
  if (total === 0 && (status === 'loading' || status === 'idle')) list = <StatePanel kind="loading" title="Loading changes…" />;
  else if (total === 0 && status === 'error') list = <StatePanel kind="error" title={`Couldn't load the changes: ${error ?? ''}`} />;
  else if (total === 0) list = <StatePanel kind="empty" title={phase === 'strategize' ? 'No changes yet — they appear as the plan executes.' : 'No changes in this plan.'} />;
  else
    list = (
      <>
        <ApplyBar />
        <FileList />
      </>
    );

  return (
    <div className="changeset">
      <section className="files-pane" aria-label="Files">
        {list}
        <OpenSandboxFile key={planId} />
      </section>
      {editing ? <SandboxEditor /> : <DiffViewer />}
      <ConfirmApply />
    </div>
  );
}
