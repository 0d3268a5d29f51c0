/**
 * vitest globalSetup: one PostgreSQL cluster for the whole run, started only when the run includes a
 * PostgreSQL test (a path with a `postgres` or `team` folder in it), so other runs do not pay its few seconds.
 * AGENTS_TEST_DATABASE_URL points the tests at a server of one's own instead.
 */
import type { TestProject } from 'vitest/node';
import { type PostgresCluster, startPostgresCluster } from './cluster';

export interface TestPostgres {
  url?: string;
  /** Why there is no URL, for the skipped tests' names. */
  reason?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestPostgres;
  }
}

async function runIncludesPostgresTests(project: TestProject): Promise<boolean> {
  // filenamePattern is vitest's own record of the command line's file filters (internal, hence optional).
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const specs = await project.vitest.getRelevantTestSpecifications(filters);
  return specs.some((spec) => spec.moduleId.split(/[\\/]/).some((folder) => folder === 'postgres' || folder === 'team'));
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const own = process.env.AGENTS_TEST_DATABASE_URL;
  if (own) {
    project.provide('postgres', { url: own });
    return undefined;
  }
  if (!(await runIncludesPostgresTests(project))) {
    project.provide('postgres', { reason: 'no PostgreSQL test in this run' });
    return undefined;
  }
  let cluster: PostgresCluster;
  try {
    cluster = await startPostgresCluster();
  } catch (error) {
    project.provide('postgres', { reason: `no PostgreSQL could be started: ${(error as Error).message.split('\n')[0]}` });
    return undefined;
  }
  project.provide('postgres', { url: cluster.url });
  return () => cluster.stop();
}
