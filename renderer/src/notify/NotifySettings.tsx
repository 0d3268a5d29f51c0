import { useState, type FormEvent } from 'react';
import { ATTENTION_KINDS, type AttentionKind } from '../../../shared/attention';
import type { NotifyView, SettingsPatch } from '../../../shared/agent';
import { useAppStore } from '../store/react';
import { BrowserNotifyToggle } from './BrowserNotifyToggle';

type NotifyPatch = NonNullable<SettingsPatch['notify']>;
type SwitchKey = Exclude<keyof NotifyView, 'webhook'>;

const KINDS = Object.entries(ATTENTION_KINDS) as [AttentionKind, string][];

/**
 * Settings' notifications: this browser's switch (the browser console only), which kinds are sent
 * anywhere, the desktop app's and the terminal's switches, and the webhook (shown with its secrets
 * hidden, as `agents config get notifyWebhook` shows it). Each switch is saved at its click.
 */
export function NotifySettings() {
  const notify = useAppStore((s) => s.settings?.notify ?? null);
  const save = useAppStore((s) => s.saveSettings);
  const [webhook, setWebhook] = useState('');
  const [saved, setSaved] = useState<string | null>(null);
  // A switch shows its click at once, and goes back if the host refuses it.
  const [clicked, setClicked] = useState<Partial<Record<SwitchKey, boolean>>>({});
  const inBrowser = typeof window !== 'undefined' && !window.agents;

  const change = async (patch: NotifyPatch, done: string) => {
    setSaved(null);
    const ok = await save({ notify: patch });
    if (ok) setSaved(done);
    return ok;
  };
  const onWebhook = async (event: FormEvent) => {
    event.preventDefault();
    await change({ webhook: webhook.trim() }, 'Webhook saved.');
    setWebhook('');
  };
  const toggle = (key: SwitchKey, label: string) => (
    <label key={key}>
      <input
        type="checkbox"
        checked={clicked[key] ?? notify?.[key] ?? true}
        disabled={!notify}
        onChange={(e) => {
          const on = e.currentTarget.checked;
          setClicked((was) => ({ ...was, [key]: on }));
          void change({ [key]: on }, `${label}: ${on ? 'on' : 'off'}.`).then(() =>
            setClicked(({ [key]: _done, ...rest }) => rest),
          );
        }}
      />{' '}
      {label}
    </label>
  );

  return (
    <section className="settings-notify" aria-labelledby="settings-notify-title">
      <h3 id="settings-notify-title">Notifications</h3>
      {inBrowser && <BrowserNotifyToggle />}
      <fieldset className="notify-kinds">
        <legend>Notify when a plan needs me for</legend>
        {KINDS.map(([kind, label]) => toggle(kind, label))}
      </fieldset>
      <fieldset className="notify-kinds">
        <legend>Where</legend>
        {toggle('desktop', 'System notifications from the desktop app')}
        {toggle('terminal', 'The terminal of agents plan run (bell and notification)')}
      </fieldset>
      <form className="settings-form" onSubmit={(e) => void onWebhook(e)}>
        <label htmlFor="settings-notify-webhook">Webhook URL</label>
        <input
          id="settings-notify-webhook"
          className="input"
          type="url"
          autoComplete="off"
          value={webhook}
          aria-describedby="settings-notify-webhook-note"
          placeholder={notify?.webhook ? 'Type a URL to replace it' : 'https://ntfy.sh/my-plans'}
          onChange={(e) => setWebhook(e.currentTarget.value)}
        />
        <p id="settings-notify-webhook-note" className="muted settings-note">
          {notify?.webhook ? `Set: ${notify.webhook}. ` : 'None. '}
          Each plan that needs you is posted as JSON with a Slack- and ntfy-compatible text.
        </p>
        <div className="settings-actions">
          <button type="submit" className="button" disabled={!webhook.trim()}>
            Save webhook
          </button>
          {notify?.webhook && (
            <button type="button" className="button" onClick={() => void change({ webhook: '' }, 'Webhook removed.')}>
              Remove the webhook
            </button>
          )}
        </div>
      </form>
      {saved && (
        <p role="status" className="muted">
          {saved}
        </p>
      )}
    </section>
  );
}
