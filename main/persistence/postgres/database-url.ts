import { DatabaseError } from './errors';

export interface DatabaseUrlSources {
  /** `--database URL` on the command line. */
  flag?: string;
  env?: NodeJS.ProcessEnv;
  /** The settings file's `database`, where the settings hold one. */
  settings?: string;
}

/**
 * The team database's URL: `--database`, else AGENTS_DATABASE_URL, else the settings; undefined
 * when none names one (the embedded SQLite database is used then). A URL that is not a
 * postgres:// or postgresql:// URL is refused in one line.
 */
export function resolveDatabaseUrl(sources: DatabaseUrlSources): string | undefined {
  const env = sources.env ?? process.env;
  const given = [sources.flag, env.AGENTS_DATABASE_URL, sources.settings].map((v) => v?.trim()).find((v) => v !== undefined && v !== '');
  if (given === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new DatabaseError(`"${given.replace(/:[^:@/]*@/, ':***@')}" is not a URL (expected postgresql://user:password@host:5432/database)`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new DatabaseError(`${url.protocol}// is not a PostgreSQL URL (expected postgresql://user:password@host:5432/database)`);
  }
  return given;
}
