import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real servers and databases; keep them isolated per file.
    pool: 'forks',
    // Two files at a time, even on two cores (Vitest's default there is one): most of the
    // suite's time is spent waiting on child processes, schedules and servers, not computing.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
