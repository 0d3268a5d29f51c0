import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{shared,main,renderer,preload,tests}/**/*.test.{ts,tsx}'],
    // The larger coding agents run in `npm run test:agents` only (tests/agents/extra).
    exclude: [...configDefaults.exclude, 'tests/agents/extra/**'],
    environment: 'node',
    // One PostgreSQL cluster for the run, started only when a PostgreSQL test is in it.
    globalSetup: ['main/persistence/postgres/test-support/global-setup.ts'],
    // The CLI journeys start several processes each (and, as root, the first shell.run walks the system folders).
    testTimeout: 60_000,
  },
});
