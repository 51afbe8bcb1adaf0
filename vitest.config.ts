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
    // Budgets, not speed assertions: with two files at a time on two cores, a CLI test that
    // initialises several embedded databases can take a minute. A hung test still fails.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
