import { memo } from 'react';
import type { ReviewFile } from '../../../shared/contract';

export const FILE_ROW_HEIGHT = 46;

const OPERATION_WORDS: Record<ReviewFile['operation'], string> = { create: 'added', modify: 'modified', delete: 'deleted', rename: 'renamed' };
const OPERATION_LETTERS: Record<ReviewFile['operation'], string> = { create: 'A', modify: 'M', delete: 'D', rename: 'R' };

interface FileRowProps {
  file: ReviewFile;
  selected: boolean;
  included: boolean;
  /** Some hunks of the file are left out of the next apply. */
  partlyIncluded: boolean;
  canApply: boolean;
  conflict: boolean;
  onSelect(path: string): void;
  onToggle(path: string): void;
}

/**
 * One file of the changeset: a checkbox to accept it, and a button that shows its diff, named by
 * its path. The steps that touched it are listed under it.
 */
export const FileRow = memo(function FileRow({ file, selected, included, partlyIncluded, canApply, conflict, onSelect, onToggle }: FileRowProps) {
  const classes = ['file-row', selected && 'selected', conflict && 'conflict', `review-${file.state}`].filter(Boolean).join(' ');
  const shownPath = file.oldPath ? `${file.oldPath} → ${file.path}` : file.path;
  const steps = file.steps.map((s) => s.description).join(' · ');
  return (
    <li className={classes} data-path={file.path} data-operation={file.operation} data-state={file.state} data-conflict={conflict || undefined}>
      <div className="file-row-line">
        {canApply && file.state !== 'applied' && (
          <input
            type="checkbox"
            className="file-check"
            checked={included}
            ref={(el) => {
              if (el) el.indeterminate = included && partlyIncluded;
            }}
            aria-label={`Accept ${file.path}`}
            onChange={() => onToggle(file.path)}
          />
        )}
        <span className={`op op-${file.operation}`} title={OPERATION_WORDS[file.operation]} aria-hidden="true">
          {OPERATION_LETTERS[file.operation]}
        </span>
        <button
          type="button"
          className="file-path link-plain"
          title={shownPath}
          aria-current={selected || undefined}
          aria-description={`${OPERATION_WORDS[file.operation]}${file.oldPath ? ` from ${file.oldPath}` : ''}${file.binary ? ', binary' : `, ${file.insertions} lines added, ${file.deletions} removed`}`}
          onClick={() => onSelect(file.path)}
        >
          {shownPath}
        </button>
        {file.binary ? (
          <span className="tag">binary</span>
        ) : (
          <span className="counts" aria-hidden="true">
            <span className="ins">+{file.insertions}</span> <span className="del">−{file.deletions}</span>
          </span>
        )}
      </div>
      {/* The tags sit beside the steps, so the path on the first line keeps the row's width. */}
      <div className="file-steps muted">
        {file.editedByOperator && <span className="tag">Edited by you</span>}
        {conflict && <span className="tag bad">conflict</span>}
        {file.state === 'applied' && <span className="tag good">applied</span>}
        {file.state === 'partial' && <span className="tag warn">partly applied</span>}
        <span className="file-steps-text" title={steps}>
          {file.steps.length === 0 ? 'No step recorded' : `${file.steps.length === 1 ? 'Step' : 'Steps'}: ${steps}`}
        </span>
      </div>
    </li>
  );
});
