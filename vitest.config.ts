import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real servers and databases; keep them isolated per file.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
