import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { planYaml, tempApp, type TempApp, waitFor } from '../app/test-support';
import { EventHub } from '../host/event-hub';
import { startDesktopNotifications } from './notifications';
import type { AttentionKind } from '../../shared/attention';

/** Electron's Notification and app as the stand-in module records them: the real ones cannot load here. */
function standIn() {
  const shown: { body: string; click(): void }[] = [];
  class Notification {
    private clicked: () => void = () => undefined;
    constructor(readonly options: { title?: string; body?: string }) {}
    static isSupported = () => true;
    on(_event: 'click', listener: () => void) {
      this.clicked = listener;
      return this;
    }
    show() {
      shown.push({ body: this.options.body ?? '', click: () => this.clicked() });
    }
  }
  const app = { setBadgeCount: vi.fn((_count: number) => true) };
  const window = {
    focused: false,
    isFocused: vi.fn(() => window.focused),
    isMinimized: () => false,
    restore: vi.fn(),
    show: vi.fn(),
    focus: vi.fn(),
    webContents: { send: vi.fn() },
  };
  return { shown, electron: { Notification, app }, window };
}

describe('the desktop notifications', () => {
  let temp: TempApp;
  let hub: EventHub;
  beforeEach(async () => {
    temp = await tempApp();
    hub = new EventHub(temp.app.service, { pollMs: 20 });
  });
  afterEach(async () => {
    hub.dispose();
    await temp.dispose();
  });

  async function runPlan(name: string, options: { failAt?: number } = {}) {
    const file = path.join(temp.root, `${name}.yaml`);
    writeFileSync(file, planYaml(temp.project, { name, ...options }));
    const plan = await temp.app.service.createFromFile(file);
    await temp.app.service.run(plan.id);
    await temp.app.service.idle();
  }

  async function start(s: ReturnType<typeof standIn>, enabled: boolean | ((kind: AttentionKind) => boolean) = true) {
    const on = typeof enabled === 'boolean' ? () => enabled : enabled;
    return startDesktopNotifications({ electron: s.electron, hub, plans: temp.app.service, window: () => s.window, enabled: on, log: () => undefined });
  }

  it('shows a system notification while the window is not focused, counts the plans that need the operator on the badge, and a click brings the window back on that plan', async () => {
    const s = standIn();
    const notifications = await start(s);
    expect(s.electron.app.setBadgeCount).toHaveBeenLastCalledWith(0);
    await runPlan('ready-one');
    await runPlan('broken', { failAt: 1 });
    await waitFor(() => s.shown.length >= 2);
    expect(s.shown.map((n) => n.body)).toEqual(['ready-one is ready to apply', 'broken failed']);
    await waitFor(() => s.electron.app.setBadgeCount.mock.calls.at(-1)?.[0] === 2);
    s.shown[1]!.click();
    expect(s.window.show).toHaveBeenCalled();
    expect(s.window.focus).toHaveBeenCalled();
    const broken = (await temp.app.service.list()).find((plan) => plan.name === 'broken')!;
    expect(s.window.webContents.send).toHaveBeenCalledExactlyOnceWith('agents:open-plan', broken.id);
    notifications.dispose();
  });

  it('shows nothing while the window is focused, or once notifyDesktop is off, and still counts on the badge', async () => {
    const focused = standIn();
    focused.window.focused = true;
    const off = standIn();
    const a = await start(focused);
    const b = await start(off, false);
    await runPlan('quiet');
    await waitFor(() => focused.electron.app.setBadgeCount.mock.calls.at(-1)?.[0] === 1 && off.electron.app.setBadgeCount.mock.calls.at(-1)?.[0] === 1);
    expect(focused.shown).toEqual([]);
    expect(off.shown).toEqual([]);
    a.dispose();
    b.dispose();
  });

  it('shows only the kinds left on', async () => {
    const s = standIn();
    const notifications = await start(s, (kind) => kind !== 'ready');
    await runPlan('ready-quiet');
    await runPlan('broken', { failAt: 1 });
    await waitFor(() => s.shown.length >= 1 && s.electron.app.setBadgeCount.mock.calls.at(-1)?.[0] === 2);
    expect(s.shown.map((n) => n.body)).toEqual(['broken failed']);
    notifications.dispose();
  });
});
