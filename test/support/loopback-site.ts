import { afterAll, beforeAll } from 'vitest';
import { createRobotsFetcher } from '../../src/fetch/robots-fetcher.js';
import { FixtureServer } from './fixture-server.js';

/**
 * A loopback site and a fetcher allowed to reach it, started before a file's tests and
 * stopped after them.
 */
export function useLoopbackSite() {
  const server = new FixtureServer();
  const fetcher = createRobotsFetcher({
    userAgent: 'robowatch-test',
    timeoutMs: 3_000,
    allowPrivateAddresses: 'loopback',
  });
  beforeAll(() => server.start());
  afterAll(async () => {
    await fetcher.close();
    await server.stop();
  });
  return { server, fetcher };
}
