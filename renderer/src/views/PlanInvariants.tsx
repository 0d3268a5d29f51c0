import type { Plan } from '../../../shared/domain';

function Globs({ label, globs }: { label: string; globs: readonly string[] }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <ul className="invariant-globs">
          {globs.map((glob) => (
            <li key={glob}>
              <code>{glob}</code>
            </li>
          ))}
        </ul>
      </dd>
    </div>
  );
}

function Notes({ label, notes }: { label: string; notes: readonly string[] }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <ul className="invariant-notes">
          {notes.map((note, i) => (
            <li key={i}>{note}</li>
          ))}
        </ul>
      </dd>
    </div>
  );
}

/**
 * The rules the plan runs under: its own invariants (records) and the project's
 * `.agents/invariants.yaml` (protect, denyCommands and allowCommands are enforced on every call).
 */
export function PlanInvariants({ plan }: { plan: Plan }) {
  const project = plan.projectInvariants;
  const hasProject = project !== null && (project.protect.length > 0 || project.denyCommands.length > 0 || project.allowCommands !== undefined || project.notes.length > 0);
  if (plan.invariants.length === 0 && !hasProject) return null;
  return (
    <section className="plan-invariants" aria-label="Invariants">
      {plan.invariants.length > 0 && (
        <dl aria-label="Plan invariants">
          <Notes label="Plan invariants" notes={plan.invariants} />
        </dl>
      )}
      {hasProject && (
        <dl aria-label="Project invariants">
          {project.protect.length > 0 && <Globs label="Protected paths" globs={project.protect} />}
          {project.denyCommands.length > 0 && <Globs label="Denied commands" globs={project.denyCommands} />}
          {project.allowCommands !== undefined && <Globs label="Allowed commands (no others)" globs={project.allowCommands} />}
          {project.notes.length > 0 && <Notes label="Project notes" notes={project.notes} />}
        </dl>
      )}
    </section>
  );
}
