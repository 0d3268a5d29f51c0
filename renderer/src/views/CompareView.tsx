import { useRef, useState } from 'react';
import type { Plan } from '../../../shared/domain';
import type { BothChanged, CompareSide, PlanCompare } from '../../../shared/plan-compare';
import { StatePanel } from '../components/StatePanel';
import { useDialogFocus } from '../components/use-dialog-focus';
import { formatDuration, plural } from '../lib/format';
import { useAppStore } from '../store/react';
import { DiffLinesView, ModeSwitch } from './DiffViewer';

const FACTS: { label: string; of: (s: CompareSide) => string }[] = [
  { label: 'Steps done', of: (s) => `${s.stepsDone} of ${s.steps}` },
  { label: 'Tool calls', of: (s) => s.toolCalls.toLocaleString('en') },
  { label: 'Tokens', of: (s) => `${(s.inputTokens + s.outputTokens).toLocaleString('en')} (${s.inputTokens.toLocaleString('en')} in, ${s.outputTokens.toLocaleString('en')} out)` },
  { label: 'Cost', of: (s) => (s.cost === null ? 'no price set' : `$${s.cost.toFixed(4)}`) },
  { label: 'Time running', of: (s) => formatDuration(s.durationMs) },
  { label: 'Files changed', of: (s) => String(s.files.length) },
];

function sideName(s: CompareSide) {
  return `${s.name} (${s.planId})`;
}

/** How the other plan stands to the open one: two runs of one plan file share its name, so the heading says which is which. */
function relation(plan: Plan | null, otherId: string): string {
  if (plan?.forkedFrom?.planId === otherId) return 'its origin';
  const fork = plan?.forks?.find((f) => f.planId === otherId);
  if (fork) return `its fork at step ${fork.atStep}`;
  return `plan ${otherId}`;
}

/** The two runs' numbers, one column each. */
function CompareFacts({ data, otherLabel }: { data: PlanCompare; otherLabel: string }) {
  return (
    <table className="compare-facts" aria-label="The two runs">
      <thead>
        <tr>
          <th scope="col">
            <span className="visually-hidden">Fact</span>
          </th>
          <th scope="col">
            This plan <span className="muted">{data.a.planId}</span>
          </th>
          <th scope="col">
            {otherLabel} <span className="muted">{data.b.planId}</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {FACTS.map((f) => (
          <tr key={f.label}>
            <th scope="row">{f.label}</th>
            <td>{f.of(data.a)}</td>
            <td>{f.of(data.b)}</td>
          </tr>
        ))}
        <tr>
          <th scope="row">Status</th>
          <td>{data.a.status}</td>
          <td>{data.b.status}</td>
        </tr>
      </tbody>
    </table>
  );
}

function OnlyList({ label, paths, side }: { label: string; paths: string[]; side: CompareSide }) {
  const ops = new Map(side.files.map((f) => [f.path, f.operation]));
  return (
    <section className="compare-only" aria-label={label}>
      <h3>
        {label} <span className="muted">({paths.length})</span>
      </h3>
      {paths.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul>
          {paths.map((p) => (
            <li key={p}>
              <span className={`op op-${ops.get(p) ?? 'modify'}`}>{ops.get(p) ?? 'modify'}</span> <code>{p}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A file both runs changed: the same result, or the diff from the first run's result to the second's, drawn as the review draws diffs. */
function BothDiff({ file }: { file: BothChanged }) {
  let body;
  if (file.same) body = <StatePanel kind="empty" title="Both runs ended with the same content." />;
  else if (file.binary || !file.hunks) body = <StatePanel kind="empty" title="Binary file — its contents are not shown." />;
  else body = <DiffLinesView path={file.path} hunks={file.hunks} />;
  return (
    <section className="diff-viewer compare-diff" aria-label={`Difference in ${file.path}`} data-path={file.path} data-same={file.same || undefined}>
      <div className="diff-head">
        <span className="file-path">{file.path}</span>
        {!file.same && !file.binary && (
          <span className="counts">
            <span className="ins">+{file.insertions}</span> <span className="del">−{file.deletions}</span>
          </span>
        )}
        <span className="grow" />
        <ModeSwitch />
      </div>
      {body}
    </section>
  );
}

function BothChangedFiles({ data, other }: { data: PlanCompare; other: string }) {
  const [selected, setSelected] = useState<string | null>(data.both.find((f) => !f.same)?.path ?? data.both[0]?.path ?? null);
  const file = data.both.find((f) => f.path === selected) ?? null;
  return (
    <section className="compare-both" aria-labelledby="compare-both-title">
      <h3 id="compare-both-title">
        Changed by both <span className="muted">({data.both.length})</span>
      </h3>
      {data.both.length === 0 ? (
        <p className="muted">No file was changed by both runs.</p>
      ) : (
        <>
          <p className="muted">
            The diff goes from this plan's result to {other}'s.
          </p>
          <div className="compare-both-files" role="group" aria-label="Files changed by both">
            {data.both.map((f) => (
              <button key={f.path} type="button" className={`button small ${f.path === selected ? 'pressed' : ''}`} aria-pressed={f.path === selected} onClick={() => setSelected(f.path)}>
                {f.path} · {f.same ? 'same result' : `differs +${f.insertions} −${f.deletions}`}
              </button>
            ))}
          </div>
          {file && <BothDiff file={file} />}
        </>
      )}
    </section>
  );
}

/** Two runs side by side (README.md, "Fork and compare"): what each took, the files each changed, and how their results differ. */
export function CompareView() {
  const view = useAppStore((s) => s.compareView);
  const plan = useAppStore((s) => s.plan);
  const close = useAppStore((s) => s.closeCompare);
  const closeButton = useRef<HTMLButtonElement>(null);
  useDialogFocus(view !== null, closeButton);
  if (!view) return null;
  const { data } = view;
  const other = relation(plan, view.with);
  const Other = other.charAt(0).toUpperCase() + other.slice(1);
  return (
    <div className="modal-backdrop">
      <div
        className="modal compare-view"
        role="dialog"
        aria-modal="true"
        aria-labelledby="compare-title"
        aria-busy={view.status === 'loading' || undefined}
        data-testid="compare-view"
        data-state={view.status}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            close();
          }
        }}
      >
        <div className="toolbar-row">
          <h2 id="compare-title" title={data ? `${sideName(data.a)} with ${sideName(data.b)}` : undefined}>
            Compare {plan?.name ?? 'this plan'} with {other}
          </h2>
          <span className="grow" />
          <button ref={closeButton} type="button" className="button" onClick={close}>
            Close
          </button>
        </div>
        {view.status === 'loading' && <StatePanel kind="loading" title="Comparing the two runs…" />}
        {view.status === 'error' && (
          <p className="inline-error" role="alert">
            Couldn't compare: {view.error}
          </p>
        )}
        {data && (
          <>
            <p className="muted">
              Both over <code>{data.projectPath ?? 'no project'}</code>: {plural(data.onlyA.length, 'file')} only this plan changed, {plural(data.onlyB.length, 'file')} only {other},{' '}
              {plural(data.both.length, 'file')} both.
            </p>
            <div className="compare-top">
              <CompareFacts data={data} otherLabel={Other} />
              <div className="compare-only-lists">
                <OnlyList label="Only this plan changed" paths={data.onlyA} side={data.a} />
                <OnlyList label={`Only ${other} changed`} paths={data.onlyB} side={data.b} />
              </div>
            </div>
            <BothChangedFiles data={data} other={other} />
          </>
        )}
      </div>
    </div>
  );
}
