import { useRef } from 'react';
import { useAppStore } from '../store/react';
import { CreatePlanDialog } from './CreatePlanDialog';

const MAX_PLAN_FILE_BYTES = 1_000_000;

/**
 * Picks a plan file (YAML or JSON): the system's file dialog in the desktop app (the host reads the
 * file), a file picker in the browser (its text goes to the host from the Create plan form).
 */
export function CreatePlanButton({ nativeFileDialog = false }: { nativeFileDialog?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  const setDraft = useAppStore((s) => s.setCreateDraft);
  const createFromDialog = useAppStore((s) => s.createPlanFromDialog);
  const creating = useAppStore((s) => s.createStatus.state === 'creating');
  const announce = useAppStore((s) => s.announce);

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_PLAN_FILE_BYTES) {
      announce(`${file.name} is too large for a plan file (over 1 MB)`);
      return;
    }
    // The form asks for the project folder before the plan is created.
    setDraft({ content: await file.text(), fileName: file.name });
  };

  return (
    <>
      <button type="button" className="button primary" aria-description="Create a plan from a plan file (YAML or JSON)" disabled={creating} onClick={() => (nativeFileDialog ? void createFromDialog() : input.current?.click())}>
        {creating ? 'Creating…' : 'Create plan'}
      </button>
      <input
        ref={input}
        type="file"
        className="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        accept=".yaml,.yml,.json,application/json,application/yaml,text/yaml"
        data-testid="create-plan-input"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          void onFile(file);
        }}
      />
      <CreatePlanDialog />
    </>
  );
}
