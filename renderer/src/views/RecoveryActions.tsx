import { useState } from 'react';
import type { ActionId } from '../../../shared/action-ids';
import { describeProfile } from '../../../shared/describe';
import { BUILTIN_PROFILES, type BuiltinProfileName } from '../../../shared/profiles';
import type { Plan } from '../../../shared/domain';
import { ActionButton } from '../components/ActionButton';
import { useAppStore } from '../store/react';
import { actionState } from '../store/plan-actions';

const PROFILE_NAMES = Object.keys(BUILTIN_PROFILES) as BuiltinProfileName[];

/** Fixes a failed plan in place: skip the failed step, or change the profile; Run then goes on. */
/** `suggested`: the failure's first next step; its control here is the primary one. */
export function RecoveryActions({ plan, suggested }: { plan: Plan; suggested?: ActionId }) {
  const retryable = useAppStore((s) => actionState(s, 'retry').allowed);
  // A step failed, or was cut off while it ran: the step "Skip step" skips.
  const failedStep = useAppStore((s) => Object.values(s.decisions).some((d) => d.type === 'strategy_choice' && (d.status === 'failed' || d.status === 'running')));
  const recovering = useAppStore((s) => s.recovering);
  const error = useAppStore((s) => s.recoveryError);
  const skipStep = useAppStore((s) => s.skipStep);
  const changeProfile = useAppStore((s) => s.changeProfile);
  const current = plan.automationProfile.name;
  const [profile, setProfile] = useState<BuiltinProfileName | ''>('');

  // Fixing in place is offered where a retry is: the plan stopped with an error before apply.
  if (!retryable) return null;
  const busy = recovering !== null;
  const chosen = profile !== '' && profile !== current ? profile : null;

  return (
    <div className="recovery-actions" role="group" aria-labelledby="recovery-title">
      <span id="recovery-title" className="recovery-title">
        Or fix it in place
      </span>
      {/* "Skip step" skips the failed step; a step that did not fail is skipped by number at the command line. */}
      {failedStep && <ActionButton action="skip" primary={suggested === 'skip'} busy={recovering === 'skip'} disabled={busy} onClick={() => void skipStep()} />}
      <span className="recovery-profile">
        <label htmlFor="recovery-profile">Profile</label>
        <select id="recovery-profile" className="input" value={profile || current} disabled={busy} onChange={(e) => setProfile(e.currentTarget.value as BuiltinProfileName)}>
          {PROFILE_NAMES.map((name) => (
            <option key={name} value={name}>
              {name}
              {name === current ? ' (current)' : ''} — {describeProfile(BUILTIN_PROFILES[name])}
            </option>
          ))}
        </select>
        <ActionButton action="set_profile" primary={suggested === 'set_profile'} busy={recovering === 'change_profile'} disabled={busy || chosen === null} onClick={() => chosen && void changeProfile(chosen)} />
      </span>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
