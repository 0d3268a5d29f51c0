import type { CallProgress } from '../store/tool-calls';

/** What a progress report says, as the bar's text: `3/6 (50%)`, or the count alone when the total is unknown. */
export function progressText({ progress, total }: Pick<CallProgress, 'progress' | 'total'>): string {
  return total ? `${progress}/${total} (${Math.round((100 * Math.min(progress, total)) / total)}%)` : String(progress);
}

/**
 * A running call's progress, as its server reports it (MCP notifications/progress): a bar when the
 * total is known, an indeterminate one otherwise, with the count and the server's message.
 */
export function CallProgressBar({ progress }: { progress: CallProgress }) {
  const text = progressText(progress);
  const label = `${progress.tool}: ${progress.total ? `${progress.progress} of ${progress.total}` : `${progress.progress} so far`}${progress.message ? `, ${progress.message}` : ''}`;
  return (
    <span className="progress call-progress" title={progress.message ? `${text}: ${progress.message}` : text}>
      {progress.total ? <progress max={progress.total} value={Math.min(progress.progress, progress.total)} aria-label={label} /> : <progress aria-label={label} />}
      <span className="progress-text">{text}</span>
    </span>
  );
}
