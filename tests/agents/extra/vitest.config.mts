import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/** `npm run test:agents`: the larger coding agents (opencode, Codex), which `npm test` leaves out. */
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('../../..', import.meta.url)),
    include: ['tests/agents/extra/**/*.test.ts'],
    environment: 'node',
    testTimeout: 240_000,
  },
});
