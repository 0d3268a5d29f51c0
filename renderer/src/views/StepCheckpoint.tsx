import { useMemo } from 'react';
import type { CheckpointSummary } from '../../../shared/checkpoints';
import { stepsInOrder } from '../../../shared/decision-tree';
import type { StrategyDecision } from '../../../shared/domain';
import { ActionButton } from '../components/ActionButton';
import { formatTime, plural } from '../lib/format';
import { useAppStore } from '../store/react';

const tokens = (c: CheckpointSummary) => c.inputTokens + c.outputTokens;

/** "2 files changed · 1,240 tokens": what a checkpoint holds, as the tree and the details word it. */
function checkpointFacts(c: CheckpointSummary): string {
  const used = tokens(c);
  // A scripted plan uses no tokens: "0 tokens" on every step would say nothing.
  return `${plural(c.filesChanged, 'file')} changed${used > 0 ? ` · ${used.toLocaleString('en')} tokens` : ''}`;
}

/** A step's checkpoint in its tree row: when it was taken, the files changed since the one before, the tokens by then. */
export function CheckpointMark({ checkpoint }: { checkpoint: CheckpointSummary }) {
  const time = formatTime(checkpoint.createdAt);
  const facts = checkpointFacts(checkpoint);
  return (
    <span
      className="tree-checkpoint"
      data-testid="tree-checkpoint"
      data-step={checkpoint.step}
      title={`Checkpoint before step ${checkpoint.step}, taken at ${time}: ${plural(checkpoint.filesChanged, 'file')} changed since the previous checkpoint, ${tokens(checkpoint).toLocaleString('en')} tokens used by then`}
    >
      <span aria-hidden="true">⟲</span>
      <span className="visually-hidden">Checkpoint at</span> {time} · {facts}
    </span>
  );
}

/** The step's number as `agents plan` counts them (from 1, in tree order). */
function useStepNumber(decisionId: string): number {
  const decisions = useAppStore((s) => s.decisions);
  return useMemo(() => stepsInOrder(Object.values(decisions)).findIndex((d) => d.id === decisionId) + 1, [decisions, decisionId]);
}

/**
 * A step's checkpoint in the details, and what the operator can do from it: Rewind to before this
 * step, or Fork from here.
 */
export function StepCheckpoint({ decision }: { decision: StrategyDecision }) {
  const step = useStepNumber(decision.id);
  const checkpoint = useAppStore((s) => s.checkpoints.find((c) => c.decisionId === decision.id));
  const first = useAppStore((s) => s.checkpoints[0]?.id === checkpoint?.id);
  const runAction = useAppStore((s) => s.runAction);
  const asking = useAppStore((s) => s.rewindDialog !== null);
  const forking = useAppStore((s) => s.forkDialog !== null);
  if (step === 0) return null;
  return (
    <section className="step-checkpoint" aria-labelledby="step-checkpoint-title" data-testid="step-checkpoint" data-step={step}>
      <h4 id="step-checkpoint-title">Checkpoint before step {step}</h4>
      {checkpoint ? (
        <dl className="checkpoint-facts">
          <dt>Taken</dt>
          <dd>
            <time dateTime={checkpoint.createdAt}>{formatTime(checkpoint.createdAt)}</time>
          </dd>
          <dt>Files changed</dt>
          <dd>{first ? `${plural(checkpoint.filesChanged, 'file')} in the sandbox (the first checkpoint)` : `${plural(checkpoint.filesChanged, 'file')} since the previous checkpoint`}</dd>
          <dt>Tokens by then</dt>
          <dd>
            {tokens(checkpoint).toLocaleString('en')}
            {tokens(checkpoint) > 0 && ` (${checkpoint.inputTokens.toLocaleString('en')} in, ${checkpoint.outputTokens.toLocaleString('en')} out)`}
          </dd>
        </dl>
      ) : (
        <p className="muted">No checkpoint yet: one is recorded as the step starts.</p>
      )}
      <div className="step-actions" role="group" aria-label={`Step ${step} actions`}>
        <ActionButton
          action="rewind"
         
          testId="rewind-step"
          busy={asking}
          disabled={!checkpoint}
          reason={`step ${step} has not started yet: there is no checkpoint to rewind to`}
          onClick={() => void runAction('rewind', { toStep: step })}
        />
        <ActionButton
          action="fork"
         
          testId="fork-step"
          busy={forking}
          disabled={!checkpoint}
          reason={`step ${step} has not started yet: there is no checkpoint to fork from`}
          onClick={() => void runAction('fork', { atStep: step })}
        />
      </div>
    </section>
  );
}
