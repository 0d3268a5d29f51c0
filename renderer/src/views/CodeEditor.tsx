import { useEffect, useRef, type RefObject } from 'react';
import { basicSetup, EditorView } from 'codemirror';
import { unifiedMergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';

/**
 * The console's colours for CodeMirror. Custom properties inherit into the shadow root, so the
 * editor follows the theme the rest of the console has.
 */
const consoleTheme = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--panel)', height: '100%', fontSize: '13px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-content': { caretColor: 'var(--text)' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '-2px' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)' },
  '.cm-gutters': { backgroundColor: 'var(--panel-2)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'var(--cursor)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--selected)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: 'var(--selected)' },
  '.cm-changedLine': { backgroundColor: 'var(--add-bg) !important' },
  '.cm-changedText': { background: 'var(--add-ln) !important' },
  '.cm-deletedChunk': { backgroundColor: 'var(--del-bg)' },
  '.cm-deletedChunk .cm-deletedText, .cm-deletedChunk del': { background: 'var(--del-ln)', textDecoration: 'none' },
  '.cm-changedLineGutter': { background: 'var(--good)' },
  '.cm-deletedLineGutter': { background: 'var(--bad)' },
  '.cm-panels': { backgroundColor: 'var(--panel-2)', color: 'var(--text)' },
});

export interface CodeEditorProps {
  /** Names the editable text for assistive technology. */
  label: string;
  /** The text the edit is compared with; deleted lines show inline. */
  original: string;
  /** The text the editor opens with. */
  content: string;
  /** Where the owner reads the text from when it saves. */
  viewRef: RefObject<EditorView | null>;
  /** Called with the text as the editor leaves the screen, so what was typed survives a switch of tabs. */
  onLeave?: (text: string) => void;
}

/**
 * CodeMirror 6 with the plan's changes marked against the base. It lives in a shadow root: there
 * CodeMirror's styles go into a constructed style sheet, which the console's CSP (style-src 'self',
 * no inline <style>) allows, where in the document itself they would be an inline <style> element.
 */
export default function CodeEditor({ label, original, content, viewRef, onLeave }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  // Read at teardown, so a new callback does not make a new editor.
  const leave = useRef(onLeave);
  leave.current = onLeave;

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const root = element.shadowRoot ?? element.attachShadow({ mode: 'open' });
    const view = new EditorView({
      root,
      parent: root,
      state: EditorState.create({
        doc: content,
        extensions: [
          basicSetup,
          consoleTheme,
          unifiedMergeView({ original, mergeControls: false, syntaxHighlightDeletions: false }),
          EditorView.contentAttributes.of({ 'aria-label': label }),
        ],
      }),
    });
    viewRef.current = view;
    view.focus();
    return () => {
      leave.current?.(view.state.doc.toString());
      view.destroy();
      if (viewRef.current === view) viewRef.current = null;
    };
  }, [label, original, content, viewRef]);

  return <div ref={host} className="code-editor" data-testid="code-editor" />;
}
