import { hostname, userInfo } from 'node:os';
import type { SettingsStore } from './settings';

/** The OS user of this process; `fallback` where the system has none to give (a container without a passwd entry). */
export function osUser(fallback: string): string {
  try {
    return userInfo().username || fallback;
  } catch {
    return fallback;
  }
}

/** The machine an answer is given from, as decisions, events and approvals record it. */
export function answerHost(): string {
  return hostname();
}

/** The settings' operator name, or undefined (none set, or a settings file that does not parse: that is reported where settings are used). */
export function settingsOperator(settings: Pick<SettingsStore, 'read'>): string | undefined {
  try {
    return settings.read().operator?.trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who the console's answers are recorded under: the settings' operator name (Settings, "Operator
 * name", or `agents config set operator`); else, in team mode, the OS user that serves the
 * console, since several consoles answer the same plans there; else "console", as on one machine
 * with one operator. Read at each answer, so a name saved in Settings counts from the next one.
 */
export function consoleOperator(settings: Pick<SettingsStore, 'read'>, team: boolean): () => string {
  return () => settingsOperator(settings) ?? (team ? osUser('console') : 'console');
}

/** The CLI's operator name from the settings, read once the CLI has opened the app (one app per process). */
let cliName: string | undefined;

export function useCliOperatorName(name: string | undefined): void {
  cliName = name;
}

/** Who answers at the command line: the settings' operator name, else the OS user. */
export function cliOperator(): string {
  return cliName ?? osUser('cli');
}
