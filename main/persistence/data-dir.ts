import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { DATABASE_FILE } from './database';

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
  if (options.create ?? true) mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  return dir;
}

export const SANDBOXES_FOLDER = 'sandboxes';
/** A coding agent's own HOME per plan (its settings, sessions and caches), beside the plans' sandboxes. */
export const AGENT_HOMES_FOLDER = 'agent-homes';
/** Checkpoints' file contents by hash (main/engine/checkpoints/object-store.ts). */
export const OBJECTS_FOLDER = 'objects';
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/**
 * Makes the data directory private to its user: the folder and the sandboxes folder 0700, the
 * database and its WAL and shared-memory files 0600. It holds every plan, diff and copy of a
 * project, so other local users must not read it. Folders made by an older version are tightened
 * here too. The database file is made before SQLite opens it, because SQLite gives the WAL and
 * shared-memory files the mode of the database file.
 */
export function secureDataDir(dir: string, platform: NodeJS.Platform = process.platform): void {
  const sandboxes = path.join(dir, SANDBOXES_FOLDER);
  mkdirSync(sandboxes, { recursive: true, mode: PRIVATE_DIR });
  // Windows has no POSIX modes; its ACLs already keep a user's profile folder private.
  if (platform === 'win32') return;
  chmodSync(dir, PRIVATE_DIR);
  chmodSync(sandboxes, PRIVATE_DIR);
  const database = path.join(dir, DATABASE_FILE);
  if (!existsSync(database)) closeSync(openSync(database, 'a', PRIVATE_FILE));
  for (const file of [database, `${database}-wal`, `${database}-shm`, `${database}-journal`]) {
    if (existsSync(file)) chmodSync(file, PRIVATE_FILE);
  }
}
