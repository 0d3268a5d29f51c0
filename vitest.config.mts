import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{shared,main,renderer,preload,tests}/**/*.test.{ts,tsx}'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
