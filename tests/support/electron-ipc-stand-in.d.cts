/** The page's half of the IPC stand-in, as an init script's source: the real preload runs in it. */
export function pageScript(preloadSource: string, origin: string): string;
/** The main process's `electron` module for the desktop app on the stand-in. */
export function servingElectron(): Record<string, unknown>;
/** Tells the desktop app on the stand-in which file the operator picks in its next file dialog. */
export function pickInNativeDialog(pageUrl: string, filePath: string): Promise<void>;
