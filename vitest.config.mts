import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{shared,main,renderer,preload,tests}/**/*.test.{ts,tsx}'],
    environment: 'node',
    // The CLI journeys start several processes each (and, as root, the first shell.run walks the system folders).
    testTimeout: 60_000,
  },
});
