import type { MenuItemConstructorOptions } from 'electron';

/**
 * The application menu: the platform's usual Edit, View and Window shortcuts. Reload and the
 * developer tools only in development, where a reload is what one wants and not lost state.
 */
export function menuTemplate(options: { isDev: boolean; isMac: boolean }): MenuItemConstructorOptions[] {
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
    { role: 'windowMenu' },
  ];
}
