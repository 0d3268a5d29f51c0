/** The page's half of the IPC stand-in, as an init script's source: the real preload runs in it. */
export function pageScript(preloadSource: string, origin: string): string;
/** The main process's `electron` module for the desktop app on the stand-in. */
export function servingElectron(): Record<string, unknown>;
/** Tells the desktop app on the stand-in which file the operator picks in its next file dialog. */
export function pickInNativeDialog(pageUrl: string, filePath: string): Promise<void>;
/** Moves the focus away from the desktop app's window on the stand-in, as switching to another app does. */
export function blurNativeWindow(pageUrl: string): Promise<void>;
/** The system notifications the desktop app on the stand-in has shown, oldest first. */
export function nativeNotifications(pageUrl: string): Promise<{ title: string; body: string }[]>;
/** Clicks the desktop app's system notification number `index` (from 0), as the operator would. */
export function clickNativeNotification(pageUrl: string, index: number): Promise<void>;
/** Chooses an item of the desktop app's menu by its labels ("Plan", "Next failure"), as the operator would. */
export function chooseInNativeMenu(pageUrl: string, labels: string[]): Promise<void>;
