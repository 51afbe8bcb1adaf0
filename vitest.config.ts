import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Integration tests start real servers and databases: in child processes, not threads.
    pool: 'forks',
    // One process per worker for all its files, not one per file: a new process paid again
    // for loading the store and compiling PGlite's WebAssembly. The integration tests took
    // 147 s instead of 296 (169 s of CPU instead of 442), the whole suite 485 s instead of
    // 581 (2026-12-01). No test changes the process's global state (no module mocks,
    // stubbed timers or environment); each opens its own databases and servers.
    isolate: false,
    // Three files at a time on two cores (Vitest's default there is one): much of the
    // suite's time is spent waiting on child processes, schedules and servers, not
    // computing. With two, both cores were 131% busy of 200 (the rest waiting); with three,
    // 147%, and the suite took 484 and 456 s instead of 528 and 507 (2026-12-02, two runs
    // each, 1,404 tests passing; its slowest test 36 s against the 120 s budget below).
    maxWorkers: 3,
    // Budgets, not speed assertions: with three files at a time on two cores, a CLI test that
    // initialises several embedded databases can take a minute. A hung test still fails.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
