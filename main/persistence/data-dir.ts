import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export const APP_FOLDER = 'cleveragents';

export interface DataDirOptions {
  /** Defaults to process.platform; tests pass another to check each branch. */
  platform?: NodeJS.Platform;
  /** Defaults to os.homedir(). */
  homedir?: string;
  /** Create the folder (mkdir -p); default true. */
  create?: boolean;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value : undefined;
}

/**
 * Where the database and the sandboxes live: `$AGENTS_HOME`, else the platform's user-data
 * folder (the same folder Electron's `userData` would be for an app named cleveragents).
 */
export function resolveDataDir(env: NodeJS.ProcessEnv = process.env, options: DataDirOptions = {}): string {
  const platform = options.platform ?? process.platform;
  // Join with the target platform's rules, so a Windows path stays a Windows path in tests on Linux.
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const home = options.homedir ?? homedir();
  let dir: string;
  const agentsHome = nonEmpty(env.AGENTS_HOME);
  if (agentsHome) {
    dir = path.resolve(agentsHome);
  } else if (platform === 'win32') {
    dir = paths.join(nonEmpty(env.APPDATA) ?? paths.join(home, 'AppData', 'Roaming'), APP_FOLDER);
  } else if (platform === 'darwin') {
    dir = paths.join(home, 'Library', 'Application Support', APP_FOLDER);
  } else {
    // The XDG spec says a relative XDG_CONFIG_HOME is invalid and must be ignored.
    const xdg = nonEmpty(env.XDG_CONFIG_HOME);
    dir = paths.join(xdg && paths.isAbsolute(xdg) ? xdg : paths.join(home, '.config'), APP_FOLDER);
  }
  if (options.create ?? true) mkdirSync(dir, { recursive: true });
  return dir;
}
