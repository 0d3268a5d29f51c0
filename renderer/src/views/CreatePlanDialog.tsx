import { type FormEvent, useEffect, useRef, useState } from 'react';
import type { RequestOf, ResponseOf } from '../../../shared/contract';
import { useDialogFocus } from '../components/use-dialog-focus';
import { errorText } from '../lib/format';
import { useAppStore } from '../store/react';

type Check = ResponseOf<'plans.checkProject'>;

/** A check per pause in typing, not per key. */
const CHECK_DELAY_MS = 300;

/**
 * The Create plan form for a plan file picked in the browser. The page has the file's text but not
 * its folder, so the host says where the plan's `project` is; the operator can name another folder,
 * checked on the host as it is typed.
 */
export function CreatePlanDialog() {
  const draft = useAppStore((s) => s.createDraft);
  return draft ? <CreatePlanForm draft={draft} /> : null;
}

function CreatePlanForm({ draft }: { draft: { content: string; fileName: string } }) {
  const setDraft = useAppStore((s) => s.setCreateDraft);
  const checkProject = useAppStore((s) => s.checkProject);
  const create = useAppStore((s) => s.createPlanFromFile);
  const status = useAppStore((s) => s.createStatus);
  const input = useRef<HTMLInputElement>(null);
  const [folder, setFolder] = useState('');
  const [check, setCheck] = useState<Check | null>(null);
  // Where a relative folder is looked for, as the host last said; kept while a new check runs.
  const [relativeTo, setRelativeTo] = useState<string[]>([]);
  // The folder a refusal was about: once the field changes, the refusal no longer applies to it.
  const [refusedFolder, setRefusedFolder] = useState<string | null>(null);
  // Create waits for the host's first answer: it fills the field and adds lines above the button,
  // which would move the button from under a press begun before it came.
  const [answered, setAnswered] = useState(false);
  // Only the latest question's answer is shown; an older one that arrives late is dropped.
  const latest = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useDialogFocus(true, input);

  const ask = (request: RequestOf<'plans.checkProject'>): Promise<Check | null> => {
    const asked = ++latest.current;
    return checkProject(request).then(
      (answer) => (asked === latest.current ? answer : null),
      (error: unknown) => (asked === latest.current ? { project: null, path: null, problem: errorText(error), relativeTo: [] } : null),
    );
  };

  // Filled from the plan's own `project`, where the host finds it.
  useEffect(() => {
    void ask({ content: draft.content }).then((answer) => {
      setAnswered(true);
      if (answer) setRelativeTo(answer.relativeTo);
      if (!answer?.project) return;
      setFolder(answer.problem ? answer.project : (answer.path ?? answer.project));
      setCheck(answer);
    });
    // Once per picked file; `ask` reads only refs and the store's stable action.
  }, [draft]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const onFolder = (value: string) => {
    setFolder(value);
    setCheck(null);
    clearTimeout(timer.current);
    latest.current++;
    const project = value.trim();
    // The plan's text goes along, so that a relative folder resolves beside the plan file where the host finds it.
    if (project) {
      timer.current = setTimeout(
        () =>
          void ask({ project, content: draft.content }).then((answer) => {
            if (!answer) return;
            setCheck(answer);
            if (answer.relativeTo.length > 0) setRelativeTo(answer.relativeTo);
          }),
        CHECK_DELAY_MS,
      );
    }
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    // A refused plan leaves the form open with the problems; the folder field gets the focus back.
    const sent = folder;
    void create({ content: draft.content, fileName: draft.fileName, project: folder.trim() || undefined }).then((id) => {
      if (id) return;
      setRefusedFolder(sent);
      input.current?.focus();
    });
  };
  const creating = status.state === 'creating';
  // While the host creates the plan the form stays, so a refusal still has a place to show.
  const close = () => {
    if (!creating) setDraft(null);
  };

  return (
    <div className="sheet-backdrop" onClick={close}>
      {/* Escape closes it through the console's keyboard map. */}
      <div className="sheet create-plan-sheet" role="dialog" aria-modal="true" aria-labelledby="create-plan-title" onClick={(e) => e.stopPropagation()}>
        <div className="sheet-head">
          <h2 id="create-plan-title">Create plan from {draft.fileName}</h2>
        </div>
        <form className="settings-form" onSubmit={onSubmit}>
          <label htmlFor="create-plan-project">Project folder</label>
          <input
            id="create-plan-project"
            ref={input}
            className="input"
            value={folder}
            placeholder="A folder inside a project root"
            spellCheck={false}
            aria-invalid={Boolean(check?.problem)}
            aria-describedby="create-plan-project-check"
            onChange={(e) => onFolder(e.currentTarget.value)}
          />
          <div id="create-plan-project-check" className="create-plan-check" aria-live="polite">
            {check?.problem && <p className="inline-error">{check.problem}</p>}
            {check && !check.problem && check.path && <p className="inline-ok">Found: {check.path}</p>}
            {!check && !folder.trim() && <p className="muted">Empty: the folder the plan file names, if any.</p>}
          </div>
          {/* In the field's column: as a grid cell of its own, it widened the label column past the dialog. */}
          {relativeTo.length > 0 && (
            <p className="muted settings-note" data-testid="create-plan-relative">
              A relative folder is looked for in {relativeTo.join(', then ')}.
            </p>
          )}
          <div className="settings-actions">
            <button type="submit" className="button primary" disabled={creating || !answered}>
              {creating ? 'Creating…' : 'Create'}
            </button>
            <button type="button" className="button" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
        {status.state === 'error' && refusedFolder === folder && (
          <p className="inline-error create-plan-error" role="alert" data-testid="create-plan-error">
            {status.message}
          </p>
        )}
      </div>
    </div>
  );
}
