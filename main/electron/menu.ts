import type { MenuItemConstructorOptions } from 'electron';
import { ACTION_IDS, ACTIONS } from '../../shared/actions';

/** "A" for the key a, "Shift+A" for A: the accelerator Electron shows beside an item. */
export function acceleratorOf(key: string): string {
  return key !== key.toLowerCase() ? `Shift+${key}` : key.toUpperCase();
}

/**
 * The console's keys as menu items: choosing one presses the key in the page (the console's one
 * dispatcher, renderer/src/store/keyboard.ts, decides what it does there). The accelerator is shown,
 * not registered: a registered letter would be taken from every text field.
 */
function keyItem(label: string, key: string, press: (key: string) => void): MenuItemConstructorOptions {
  return { label, accelerator: acceleratorOf(key), registerAccelerator: false, click: () => press(key) };
}

/** The operator's actions of the open plan, from the action table, with their keys. */
function planMenu(press: (key: string) => void): MenuItemConstructorOptions[] {
  const actions = ACTION_IDS.flatMap((id) => {
    const { label, keys } = ACTIONS[id];
    return keys.map((binding) => keyItem(keys.length === 1 ? label : binding.help, binding.key, press));
  });
  return [...actions, { type: 'separator' }, keyItem('Next failure', 'n', press)];
}

/**
 * The application menu: the console's actions and their keys (Plan), the platform's usual Edit,
 * View and Window shortcuts, and the keyboard help. Reload and the developer tools only in
 * development, where a reload is what one wants and not lost state.
 */
export function menuTemplate(options: { isDev: boolean; isMac: boolean; press: (key: string) => void }): MenuItemConstructorOptions[] {
  const view: MenuItemConstructorOptions[] = [
    ...(options.isDev ? ([{ role: 'reload' }, { role: 'forceReload' }, { role: 'toggleDevTools' }, { type: 'separator' }] as const) : []),
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  return [
    ...(options.isMac ? [{ role: 'appMenu' } as const] : []),
    { label: 'File', submenu: [options.isMac ? { role: 'close' } : { role: 'quit' }] },
    { role: 'editMenu' },
    { label: 'View', submenu: view },
    { label: 'Plan', submenu: planMenu(options.press) },
    { role: 'windowMenu' },
    { role: 'help', submenu: [keyItem('Keyboard shortcuts', '?', options.press)] },
  ];
}
