import { useMemo } from 'react';
import type { Plan } from '../../../shared/domain';
import { CopyButton } from '../components/CopyButton';
import { failedFilePath, sandboxOf } from '../lib/sandbox-edit';
import { useAppStore } from '../store/react';

/** Where to fix the cause: the plan's sandbox, and the file the failed call was about, to edit in the console. */
export function FailureSandbox({ plan, failedId }: { plan: Plan; failedId: string | null }) {
  const invocations = useAppStore((s) => s.invocations);
  const openEditor = useAppStore((s) => s.openEditor);
  const opensFolders = useAppStore((s) => s.opensFolders);
  const openFolder = useAppStore((s) => s.openSandboxFolder);
  const sandbox = sandboxOf(plan);
  const path = useMemo(() => failedFilePath(invocations, failedId, plan.errorDetails), [invocations, failedId, plan.errorDetails]);
  if (!sandbox) return null;
  return (
    <div className="failure-sandbox" data-testid="failure-sandbox">
      <dl>
        <div>
          <dt id="failure-sandbox-label">Sandbox</dt>
          <dd aria-labelledby="failure-sandbox-label">
            <code>{sandbox}</code>
          </dd>
        </div>
      </dl>
      <CopyButton text={sandbox} label="Copy the sandbox path" />
      {opensFolders && (
        <button type="button" className="button small" onClick={() => void openFolder()}>
          Open folder
        </button>
      )}
      {path && plan.processingState === 'errored' && (
        <button type="button" className="button small" onClick={() => void openEditor(path)}>
          Edit {path}
        </button>
      )}
    </div>
  );
}
