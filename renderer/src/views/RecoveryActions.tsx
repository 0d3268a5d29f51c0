import { useState } from 'react';
import { ANY_TOOL, type AutomationProfile, BUILTIN_PROFILES, type BuiltinProfileName, type Plan } from '../../../shared/domain';
import { allowedActions } from '../lib/plan-actions';
import { useAppStore } from '../store/react';

const PROFILE_NAMES = Object.keys(BUILTIN_PROFILES) as BuiltinProfileName[];

/** One line on what a profile changes, so the choice is made knowing what it allows. */
export function profileSummary(profile: AutomationProfile): string {
  const approve = profile.approvalRequired.includes(ANY_TOOL)
    ? 'approve every call'
    : profile.approvalRequired.length > 0
      ? `approve ${profile.approvalRequired.join(', ')}`
      : 'no approvals';
  return [approve, !profile.allowShell && 'no shell', profile.pauseBeforeEachDecision && 'pause before each step'].filter(Boolean).join('; ');
}

/** Fixes a failed plan in place: skip the failed step, or change the profile; Run then goes on. */
export function RecoveryActions({ plan }: { plan: Plan }) {
  // A step still marked running in an errored plan was cut off (category interrupted): the host skips it too.
  const hasFailedStep = useAppStore((s) => Object.values(s.decisions).some((d) => d.type === 'strategy_choice' && (d.status === 'failed' || d.status === 'running')));
  const recovering = useAppStore((s) => s.recovering);
  const error = useAppStore((s) => s.recoveryError);
  const skipStep = useAppStore((s) => s.skipStep);
  const changeProfile = useAppStore((s) => s.changeProfile);
  const current = plan.automationProfile.name;
  const [profile, setProfile] = useState<BuiltinProfileName | ''>('');

  // Fixing in place is allowed where a retry is: the plan stopped with an error before apply.
  if (!allowedActions(plan).retry) return null;
  const busy = recovering !== null;
  const chosen = profile !== '' && profile !== current ? profile : null;

  return (
    <div className="recovery-actions" role="group" aria-labelledby="recovery-title">
      <span id="recovery-title" className="recovery-title">
        Or fix it in place
      </span>
      {hasFailedStep && (
        <button
          type="button"
          className="button"
          disabled={busy}
          aria-busy={recovering === 'skip' || undefined}
          title="Mark the failed step skipped; Run then goes on with the next step"
          onClick={() => void skipStep()}
        >
          Skip step
        </button>
      )}
      <span className="recovery-profile">
        <label htmlFor="recovery-profile">Profile</label>
        <select id="recovery-profile" className="input" value={profile || current} disabled={busy} onChange={(e) => setProfile(e.currentTarget.value as BuiltinProfileName)}>
          {PROFILE_NAMES.map((name) => (
            <option key={name} value={name}>
              {name}
              {name === current ? ' (current)' : ''} — {profileSummary(BUILTIN_PROFILES[name])}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button"
          disabled={busy || chosen === null}
          aria-busy={recovering === 'change_profile' || undefined}
          title="Switch the plan to the chosen profile; Run then goes on from the failed step"
          onClick={() => chosen && void changeProfile(chosen)}
        >
          Change profile
        </button>
      </span>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
