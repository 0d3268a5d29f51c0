import { useRef } from 'react';
import { useAppStore } from '../store/react';

const MAX_PLAN_FILE_BYTES = 1_000_000;

/**
 * Picks a plan file (YAML or JSON): the system's file dialog in the desktop app (the host reads the
 * file), a file picker in the browser (its text is sent to the host).
 */
export function CreatePlanButton({ nativeFileDialog = false }: { nativeFileDialog?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  const create = useAppStore((s) => s.createPlanFromFile);
  const createFromDialog = useAppStore((s) => s.createPlanFromDialog);
  const creating = useAppStore((s) => s.createStatus.state === 'creating');
  const announce = useAppStore((s) => s.announce);

  const onFile = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_PLAN_FILE_BYTES) {
      announce(`${file.name} is too large for a plan file (over 1 MB)`);
      return;
    }
    const content = await file.text();
    await create({ content, fileName: file.name });
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
    </>
  );
}
