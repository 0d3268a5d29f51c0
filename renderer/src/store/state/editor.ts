
/** A file of the plan's sandbox open in the console's editor. */
export interface OpenEditor {
  path: string;
  status: 'loading' | 'ready' | 'saving' | 'failed';
  /** The file at the sandbox's base, the side the edit is compared with ('' for a file the plan created). */
  original: string;
  /** The text the editor opened with: the file in the sandbox now. */
  content: string;
  /** The last failure to open or save, one line; what was typed stays in the editor. */
  error: string | null;
  /** What was typed and not saved when the editor left the screen (another tab), to open with again. */
  draft?: string;
}

export interface EditorSlice {
  editor: OpenEditor | null;
  /** The host shows a plan's sandbox in the system's file manager (the desktop app). */
  opensFolders: boolean;
  /** What the last save did, shown above the file's diff once the editor closes. */
  editorNotice: { path: string; text: string } | null;
  /** Opens a file of the sandbox in the editor, on the Changes tab, changed by the plan or not. */
  openEditor(path: string): Promise<void>;
  /** Writes the text into the sandbox as the operator's change; false (editor still open, with the error) when the host refused. */
  saveEditor(text: string): Promise<boolean>;
  /** Keeps the unsaved text of the file at `path` while the editor is off the screen. */
  keepEditorDraft(path: string, text: string): void;
  /** Closes the editor, dropping what was typed. */
  closeEditor(): void;
  /** Shows the open plan's sandbox in the file manager; a refusal is announced. */
  openSandboxFolder(): Promise<void>;
}
