import type { BenchResult } from '../bench-result';
import { startPostgresCluster } from '../../main/persistence/postgres/test-support/cluster';

/**
 * Runs `measure` against a PostgreSQL server: AGENTS_TEST_DATABASE_URL's, else a throwaway local
 * cluster stopped afterwards. Where none can start, the benchmark's one line says it was skipped and why.
 */
export async function withBenchDatabase(skipped: { name: string; budget: string }, measure: (serverUrl: string) => Promise<BenchResult[]>): Promise<BenchResult[]> {
  const own = process.env.AGENTS_TEST_DATABASE_URL;
  let cluster: Awaited<ReturnType<typeof startPostgresCluster>> | undefined;
  try {
    if (!own) cluster = await startPostgresCluster();
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0]!;
    return [{ ...skipped, figure: `skipped: ${reason}`, pass: true, details: { skipped: reason } }];
  }
  try {
    return await measure(own ?? cluster!.url);
  } finally {
    await cluster?.stop();
  }
}
