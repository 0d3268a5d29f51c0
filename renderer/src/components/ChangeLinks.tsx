import type { ChangeEntryMeta } from '../../../shared/contract';
import { useAppStore } from '../store/react';

/** Changes as links that open the entry in the Changes tab, with their +/- counts. */
export function ChangeLinks({ entries }: { entries: readonly ChangeEntryMeta[] }) {
  const selectEntry = useAppStore((s) => s.selectEntry);
  const setTab = useAppStore((s) => s.setTab);
  return (
    <>
      {entries.map((entry) =>
        entry.rewound ? (
          // History: a rewind undid it, and the review no longer has it to open.
          <li key={entry.id} className="rewound-change muted">
            {entry.operation} {entry.path} +{entry.insertions} −{entry.deletions} <span className="rewound-tag">rewound</span>
          </li>
        ) : (
        <li key={entry.id}>
          <button
            type="button"
            className="link"
            onClick={() => {
              setTab('changes');
              selectEntry(entry.id);
            }}
          >
            {entry.operation} {entry.path}
          </button>{' '}
          <span className="ins">+{entry.insertions}</span> <span className="del">−{entry.deletions}</span>
        </li>
        ),
      )}
    </>
  );
}
