import type { Plan } from '../../../shared/domain';
import { isRunnable } from '../../../shared/action-rules';
import { projectLabel } from '../../../shared/git-source';

/** The definition of done as the operator wrote it: a markdown list as one string, or steps. */
function DoneSteps({ definition }: { definition: Plan['definitionOfDone'] }) {
  if (typeof definition === 'string') return <pre className="definition-text">{definition}</pre>;
  return (
    <ol className="definition-steps">
      {definition.map((step, i) =>
        typeof step === 'string' ? (
          <li key={i}>{step}</li>
        ) : (
          <li key={i}>
            {step.step}
            {step.tools.length > 0 && (
              <span className="muted">
                {' '}
                — {step.tools.map((t) => t.tool).join(', ')}
              </span>
            )}
          </li>
        ),
      )}
    </ol>
  );
}

/** Where a plan that has no decision tree yet stands, and what can be done now (Run only where Run is enabled). */
function beforeRunText(plan: Plan): string {
  if (isRunnable(plan)) return 'Not strategized yet — press Run or Step to build the decision tree from this definition.';
  switch (plan.processingState) {
    case 'errored':
      return 'Strategize failed, so there is no decision tree yet. The failure above says why and how to recover.';
    case 'processing':
      return plan.agent ? 'Strategizing: the model is reading the project to propose the steps.' : 'Strategizing: the decision tree is being built.';
    case 'paused':
      return plan.waitingFor === 'approval' ? 'Waiting for your approval before the decision tree is built.' : 'Paused before the decision tree is built. Continue to go on.';
    case 'cancelled':
      return 'Discarded before it was strategized.';
    default:
      return 'No decision tree was built for this plan.';
  }
}

/** What a plan will do, shown before it is strategized: nothing has run yet, so this is all there is to read. */
export function PlanDefinition({ plan }: { plan: Plan }) {
  const profile = plan.automationProfile;
  const profileText = [
    profile.name,
    profile.autoRetryTransient > 0 ? `retries transient failures ${profile.autoRetryTransient} times` : 'no automatic retry',
    profile.allowShell ? 'shell allowed' : 'no shell',
    profile.pauseBeforeEachDecision ? 'pauses before each step' : null,
  ]
    .filter(Boolean)
    .join(' · ');
  return (
    <section className="plan-definition" aria-labelledby="plan-definition-title">
      <h3 id="plan-definition-title">Before Run</h3>
      <p className="muted" data-testid="definition-status">
        {beforeRunText(plan)}
      </p>
      <h4 id="definition-of-done">Definition of done</h4>
      <div aria-labelledby="definition-of-done" role="group">
        <DoneSteps definition={plan.definitionOfDone} />
      </div>
      <dl className="definition-facts">
        <div>
          <dt id="definition-profile">Profile</dt>
          <dd aria-labelledby="definition-profile">{profileText}</dd>
        </div>
        <div>
          <dt id="definition-project">Project</dt>
          <dd aria-labelledby="definition-project">{projectLabel(plan) ? <code>{projectLabel(plan)}</code> : <span className="muted">None: the plan works in an empty sandbox</span>}</dd>
        </div>
      </dl>
    </section>
  );
}
