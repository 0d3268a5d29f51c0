import { errorText } from '../lib/format';
import { reviewFileAt } from '../lib/review-fold';
import { baseFromHunks } from '../lib/sandbox-edit';
import type { PlanSession } from './plan-session';
import type { SliceCreator } from './types';
import type { OpenEditor, EditorSlice } from './state/editor';

export const initialEditorState = {
  editor: null as OpenEditor | null,
  editorNotice: null as { path: string; text: string } | null,
};

export const createEditorSlice: SliceCreator<EditorSlice> = (set, get) => {
  /** The base text: the current text with the plan's net change to the file undone. */
  const baseOf = async ({ bridge, planId }: PlanSession, path: string, content: string): Promise<string> => {
    const file = reviewFileAt(get().reviewFiles, path);
    if (!file) return content;
    if (file.operation === 'create') return '';
    const loaded = get().fileDiffs[path];
    const hunks = loaded?.status === 'loaded' ? loaded.data.hunks : (await bridge['plans.reviewDiff']({ planId, path })).hunks;
    return (hunks && baseFromHunks(content, hunks)) ?? content;
  };

  return {
    ...initialEditorState,
    opensFolders: false,

    async openEditor(requested) {
      const session = get().session;
      const path = requested.trim();
      if (!session || path === '') return;
      set({ tab: 'changes', editorNotice: null, editor: { path, status: 'loading', original: '', content: '', error: null } });
      try {
        const file = await session.bridge['plans.readFile']({ planId: session.planId, path });
        if (file.binary || file.content === null) throw new Error(`${file.path} is a binary file; it cannot be edited here`);
        const original = await baseOf(session, file.path, file.content);
        if (get().editor?.path !== path) return;
        set({ editor: { path: file.path, status: 'ready', original, content: file.content, error: null } });
      } catch (error) {
        if (get().editor?.path !== path) return;
        set({ editor: { path, status: 'failed', original: '', content: '', error: `Couldn't open ${path}: ${errorText(error)}` } });
      }
    },

    async saveEditor(text) {
      const { session, editor } = get();
      if (!session || !editor || editor.status !== 'ready') return false;
      const { path } = editor;
      set({ editor: { ...editor, status: 'saving', error: null } });
      try {
        const { entry } = await session.bridge['plans.saveFile']({ planId: session.planId, path, content: text });
        const notice = entry ? `Saved ${path} in the sandbox: the changes show it as edited by you.` : `${path} is unchanged: nothing to save.`;
        set({ editor: null, editorNotice: { path, text: notice } });
        get().announce(notice);
        // The change_recorded event folds the entry in; the host's review nets it with the plan's own changes.
        get().selectPath(path);
        get().refreshReview();
        return true;
      } catch (error) {
        const message = `Couldn't save ${path}: ${errorText(error)}`;
        if (get().editor?.path === path) set({ editor: { ...editor, status: 'ready', error: message } });
        get().announce(message);
        return false;
      }
    },

    keepEditorDraft(path, text) {
      const editor = get().editor;
      if (!editor || editor.path !== path || editor.status === 'loading' || editor.status === 'failed') return;
      if (text !== (editor.draft ?? editor.content)) set({ editor: { ...editor, draft: text === editor.content ? undefined : text } });
    },

    closeEditor() {
      set({ editor: null });
    },

    async openSandboxFolder() {
      const session = get().session;
      if (!session) return;
      try {
        await session.bridge['plans.openSandbox']({ planId: session.planId });
      } catch (error) {
        get().announce(`Couldn't open the sandbox folder: ${errorText(error)}`);
      }
    },
  };
};
