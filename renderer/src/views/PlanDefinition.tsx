import type { Plan } from '../../../shared/domain';

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
      <p className="muted">Not strategized yet — press Run or Step to build the decision tree from this definition.</p>
      <h4 id="definition-of-done">Definition of done</h4>
      <div aria-labelledby="definition-of-done" role="group">
        <DoneSteps definition={plan.definitionOfDone} />
      </div>
      <dl className="definition-facts">
        <div>
          <dt id="definition-invariants">Invariants</dt>
          <dd aria-labelledby="definition-invariants">
            {plan.invariants.length === 0 ? (
              <span className="muted">None</span>
            ) : (
              <ul>
                {plan.invariants.map((inv) => (
                  <li key={inv}>{inv}</li>
                ))}
              </ul>
            )}
          </dd>
        </div>
        <div>
          <dt id="definition-profile">Profile</dt>
          <dd aria-labelledby="definition-profile">{profileText}</dd>
        </div>
        <div>
          <dt id="definition-project">Project</dt>
          <dd aria-labelledby="definition-project">{plan.projectPath ? <code>{plan.projectPath}</code> : <span className="muted">None: the plan works in an empty sandbox</span>}</dd>
        </div>
      </dl>
    </section>
  );
}
