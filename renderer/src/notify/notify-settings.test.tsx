import { describe, expect, it } from 'vitest';
import { render } from '../test-support/render';
import { testRuntime } from '../test-support/runtime';
import { FakeBridge, NOTIFY_DEFAULTS } from '../test-support/fake-bridge';
import { NotifySettings } from './NotifySettings';

describe("Settings' notifications", () => {
  it('offers a switch for each kind and place, each as the host holds it, and the webhook with its secrets hidden', () => {
    const { store } = testRuntime();
    const view = render(store, <NotifySettings />);
    // Before the settings load, the switches wait for them.
    expect(view).toMatch(/<input type="checkbox" disabled="" checked=""\/> Failed/);
    store.setState({ settings: { ...new FakeBridge().settings, notify: { ...NOTIFY_DEFAULTS, ready: false, webhook: 'https://hooks.example/services/***' } } });
    const html = render(store, <NotifySettings />);
    for (const label of ['Approval needed', 'Failed', 'Checks failed', 'System notifications from the desktop app']) expect(html).toContain(`<input type="checkbox" checked=""/> ${label}`);
    expect(html).toContain('<input type="checkbox"/> Ready to apply');
    expect(html).toContain('Set: https://hooks.example/services/***.');
    expect(html).toContain('Remove the webhook');
  });
});
