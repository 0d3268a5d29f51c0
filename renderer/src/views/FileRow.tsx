import { memo } from 'react';
import type { ChangeEntryMeta } from '../../../shared/contract';

export const FILE_ROW_HEIGHT = 32;

const OPERATION_LETTERS: Record<ChangeEntryMeta['operation'], string> = { create: 'A', modify: 'M', delete: 'D', rename: 'R' };

export function fileOptionId(entryId: string): string {
  return `change-${entryId}`;
}

interface FileRowProps {
  entry: ChangeEntryMeta;
  selected: boolean;
  included: boolean;
  canApply: boolean;
  conflict: boolean;
  applied: boolean;
  onSelect(id: string): void;
  onToggle(path: string): void;
}

export const FileRow = memo(function FileRow({ entry, selected, included, canApply, conflict, applied, onSelect, onToggle }: FileRowProps) {
  const classes = ['file-row', selected && 'selected', conflict && 'conflict'].filter(Boolean).join(' ');
  return (
    <div
      id={fileOptionId(entry.id)}
      role="option"
      aria-selected={selected}
      className={classes}
      data-testid="change-row"
      data-entry-id={entry.id}
      data-path={entry.path}
      data-operation={entry.operation}
      data-binary={entry.binary || undefined}
      data-conflict={conflict || undefined}
      data-applied={applied || undefined}
      onClick={() => onSelect(entry.id)}
    >
      {canApply && (
        <input
          type="checkbox"
          className="file-check"
          checked={included}
          data-testid="change-include"
          aria-label={`Include ${entry.path} when applying`}
          onClick={(e) => e.stopPropagation()}
          onChange={() => onToggle(entry.path)}
        />
      )}
      <span className={`op op-${entry.operation}`} title={entry.operation} aria-label={entry.operation}>
        {OPERATION_LETTERS[entry.operation]}
      </span>
      <span className="file-path" title={entry.oldPath ? `${entry.oldPath} → ${entry.path}` : entry.path}>
        {entry.oldPath ? `${entry.oldPath} → ${entry.path}` : entry.path}
      </span>
      {entry.binary ? (
        <span className="tag">binary</span>
      ) : (
        <span className="counts">
          <span className="ins">+{entry.insertions}</span> <span className="del">−{entry.deletions}</span>
        </span>
      )}
      {conflict && (
        <span className="tag bad" data-testid="change-conflict">
          conflict
        </span>
      )}
      {applied && <span className="tag good">applied</span>}
    </div>
  );
});
