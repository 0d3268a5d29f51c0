import { useEffect, useMemo } from 'react';
import type { Plan } from '../../../shared/domain';
import { failedFilePath, sandboxOf } from '../lib/sandbox-edit';
import { useAppStore } from '../store/react';

/** Beside the sandbox path: Open folder (the desktop app), and Edit for the file the failed call was about. */
export function FailureSandboxActions({ plan, failedId }: { plan: Plan; failedId: string | null }) {
  const calls = useAppStore((s) => (failedId ? s.decisionCalls[failedId]?.invocations : undefined));
  const loadCalls = useAppStore((s) => s.loadDecisionCalls);
  const openEditor = useAppStore((s) => s.openEditor);
  const opensFolders = useAppStore((s) => s.opensFolders);
  const openFolder = useAppStore((s) => s.openSandboxFolder);
  useEffect(() => {
    if (failedId) loadCalls(failedId);
  }, [failedId, loadCalls]);
  const path = useMemo(() => failedFilePath(calls ?? [], failedId, plan.errorDetails), [calls, failedId, plan.errorDetails]);
  if (!sandboxOf(plan)) return null;
  return (
    <>
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
    </>
  );
}
