import { statusLabel } from '../../shared/vocabulary';
import type { App } from '../app/open-app';

/** The exit status of a run the operator stopped with Ctrl-C, as a shell reports a SIGINT. */
export const EXIT_INTERRUPTED = 130;

/** How long a run may take to reach the end of its step before Ctrl-C stops it inside the step. */
const SETTLE_MS = 3_000;

/**
 * While a run is in the foreground: the first Ctrl-C asks it to stop before its next step (never
 * inside a tool call when the step ends in time); a second one, or SETTLE_MS later, stops it where it is.
 * `stopped` resolves then; a run that ends on its own meanwhile never resolves it.
 */
export function watchCtrlC(app: App, planId: string, say: (line: string) => void): { stopped: Promise<void>; dispose(): void } {
  let resolveStopped: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });
  let timer: NodeJS.Timeout | undefined;
  let asked = false;
  const onSigint = () => {
    const service = app.service;
    // Nothing runs (the command waits for the operator's answer): the plan already stands where it can be resumed.
    if (!service.isRunning(planId)) {
      void service.get(planId).then(
        // In team mode a worker runs it: the command stops following, the run goes on.
        (plan) => say(app.team ? `stopped following; the plan is ${statusLabel(plan)} and runs on in the team's workers` : `stopped; the plan is ${statusLabel(plan)}`),
        () => undefined,
      ).finally(() => process.exit(EXIT_INTERRUPTED));
      return;
    }
    if (asked) return resolveStopped();
    asked = true;
    say('stopping before the next step (Ctrl-C again to stop now)…');
    if (service.isRunning(planId)) service.controller(planId).pause();
    const deadline = Date.now() + SETTLE_MS;
    timer = setInterval(() => {
      if (!service.isRunning(planId)) return clearInterval(timer);
      if (service.controller(planId).isPaused || Date.now() >= deadline) resolveStopped();
    }, 25);
  };
  process.on('SIGINT', onSigint);
  return {
    stopped,
    dispose() {
      process.off('SIGINT', onSigint);
      clearInterval(timer);
    },
  };
}
