import { lazy, Suspense, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { EditorView } from 'codemirror';
import { StatePanel } from '../components/StatePanel';
import { sandboxOf } from '../lib/sandbox-edit';
import { useAppStore } from '../store/react';

// CodeMirror loads with the first file opened, not with the console.
const CodeEditor = lazy(() => import('./CodeEditor'));

/** The open file of the sandbox: edit it, then Save (Ctrl/Cmd+S) or Cancel (Escape). */
export function SandboxEditor() {
  const editor = useAppStore((s) => s.editor);
  const save = useAppStore((s) => s.saveEditor);
  const close = useAppStore((s) => s.closeEditor);
  const keepDraft = useAppStore((s) => s.keepEditorDraft);
  const viewRef = useRef<EditorView | null>(null);
  if (!editor) return null;

  const onSave = () => {
    const view = viewRef.current;
    if (view && editor.status === 'ready') void save(view.state.doc.toString());
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
      event.preventDefault();
      onSave();
    } else if (event.key === 'Escape' && !event.nativeEvent.defaultPrevented) {
      // The editor's own Escape (closing its search, dropping a selection) comes first.
      event.preventDefault();
      close();
    }
  };

  let body;
  if (editor.status === 'failed') body = <StatePanel kind="error" title={editor.error ?? `Couldn't open ${editor.path}.`} />;
  else if (editor.status === 'loading') body = <StatePanel kind="loading" title={`Opening ${editor.path}…`} />;
  else
    body = (
      <Suspense fallback={<StatePanel kind="loading" title="Loading the editor…" />}>
        <CodeEditor
          label={`Text of ${editor.path}`}
          original={editor.original}
          content={editor.draft ?? editor.content}
          viewRef={viewRef}
          onLeave={(text) => keepDraft(editor.path, text)}
        />
      </Suspense>
    );

  return (
    <section className="diff-viewer sandbox-editor" data-state={editor.status} data-path={editor.path} aria-label={`Editing ${editor.path}`} onKeyDown={onKeyDown}>
      <div className="diff-head">
        <span className="tag">Editing</span>
        <span className="file-path">{editor.path}</span>
        <span className="grow" />
        {editor.status !== 'failed' && (
          <button type="button" className="button small primary" disabled={editor.status !== 'ready'} aria-keyshortcuts="Control+S Meta+S" onClick={onSave}>
            {editor.status === 'saving' ? 'Saving…' : 'Save'}
          </button>
        )}
        <button type="button" className="button small" aria-keyshortcuts="Escape" onClick={close}>
          {editor.status === 'failed' ? 'Close' : 'Cancel'}
        </button>
      </div>
      {editor.error && editor.status !== 'failed' && (
        <p className="inline-error" role="alert">
          {editor.error}
        </p>
      )}
      {body}
    </section>
  );
}

/** "Open a file of the sandbox…": any file, changed by the plan or not, by its path. */
export function OpenSandboxFile() {
  const sandbox = useAppStore((s) => (s.plan ? sandboxOf(s.plan) : null));
  const open = useAppStore((s) => s.openEditor);
  const [shown, setShown] = useState(false);
  const [path, setPath] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const inputId = useId();
  if (!sandbox) return null;
  if (!shown) {
    return (
      <div className="open-sandbox-file">
        <button type="button" className="button small" onClick={() => setShown(true)}>
          Open a file of the sandbox…
        </button>
      </div>
    );
  }
  return (
    <form
      className="open-sandbox-file"
      onSubmit={(event) => {
        event.preventDefault();
        if (path.trim() === '') {
          setProblem('Type the path of a file in the sandbox, such as README.md.');
          return;
        }
        setProblem(null);
        void open(path);
      }}
    >
      <label htmlFor={inputId}>Path in the sandbox</label>
      <div className="toolbar-row">
        <input
          id={inputId}
          type="text"
          className="input"
          value={path}
          placeholder="README.md"
          autoFocus
          spellCheck={false}
          aria-invalid={problem !== null}
          aria-describedby={problem ? `${inputId}-problem` : undefined}
          onChange={(e) => setPath(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              setShown(false);
            }
          }}
        />
        <button type="submit" className="button small primary">
          Open
        </button>
      </div>
      {problem && (
        <p id={`${inputId}-problem`} className="inline-error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}
