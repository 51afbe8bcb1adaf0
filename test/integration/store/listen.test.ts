/**
 * The catalogue's changes announced as they commit (PostgreSQL's LISTEN, migration 0024):
 * once per transaction, with the catalogue's new count; again after the listener's
 * connection was lost (and once on its own, for what it may have missed); and its
 * connection let go when it closes. A daemon takes a site another process adds or pauses
 * as it commits, with no upkeep round between. PostgreSQL only: the embedded database has
 * one process, which makes every change itself.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createSiteDirectory } from '../../../src/store/index.js';
import { CATALOG_CHANNEL, importManagedSites } from '../../../src/store/sites.js';
import type { Listening } from '../../../src/store/listen.js';
import { adminQuery, createTestDatabase, postgresUrl } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { daemonConfig, FakeClock, FakeCron, startInProcess } from '../../support/daemon-harness.js';
import type { InProcessDaemon } from '../../support/daemon-harness.js';
import { FixtureServer } from '../../support/fixture-server.js';

const waiting = { timeout: 30_000, interval: 20 };
const sites = [new FixtureServer(), new FixtureServer()];
beforeAll(async () => {
  for (const site of sites) {
    await site.start();
    site.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
  }
});
afterAll(async () => {
  for (const site of sites) await site.stop();
});

describe.runIf(postgresUrl() !== undefined)("the catalogue's changes, announced", () => {
  let database: TestDatabase;
  let listening: Listening | undefined;
  let daemon: InProcessDaemon | undefined;
  beforeEach(async () => {
    database = await createTestDatabase('postgres');
  });
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    await listening?.close();
    await database.close();
  });

  /** The listener's sessions on the test's database. */
  const listeners = async () => {
    const name = new URL(database.url!).pathname.slice(1);
    return adminQuery(
      `SELECT 1 FROM pg_stat_activity WHERE datname = '${name}' AND application_name = 'robowatch listen'`,
    );
  };

  /**
   * Listens on the catalogue's channel; what it hears. It hears an empty payload once on
   * its own as it starts listening: what came before was announced to nobody.
   */
  const listen = async () => {
    const heard: string[] = [];
    listening = database.handle.listen!(CATALOG_CHANNEL, (payload) => heard.push(payload));
    await listening.ready;
    await vi.waitFor(() => expect(heard).toEqual(['']), waiting);
    return heard;
  };

  it('says each change of the catalogue once, at its commit, with its new count', async () => {
    const directory = createSiteDirectory(database.handle.db);
    const heard = await listen();
    const before = (await directory.catalogVersion())!;

    const id = await directory.saveSite('https://added.example', { watch: ['/'] });
    // 4,500 sites in one transaction of three statements: one announcement.
    await importManagedSites(
      database.handle.db,
      Array.from({ length: 4_500 }, (_, i) => ({
        origin: `https://imported-${i}.example`,
        settings: {},
      })),
      () => undefined,
    );
    await directory.setPaused(id, new Date());
    await vi.waitFor(() => expect(heard).toHaveLength(4), waiting);
    expect(heard).toEqual(['', String(before + 1), String(before + 2), String(before + 3)]);
    expect(await directory.catalogVersion()).toBe(before + 3);
  });

  it('listens again when its connection is lost, and lets it go when closed', async () => {
    const directory = createSiteDirectory(database.handle.db);
    const heard = await listen();
    expect(await listeners()).toBe(1);

    // The server ends its session (a restart, a cut): it connects again, and says so once,
    // since what was committed meanwhile was announced to nobody.
    const name = new URL(database.url!).pathname.slice(1);
    await adminQuery(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND application_name = 'robowatch listen'`,
    );
    await vi.waitFor(() => expect(heard).toEqual(['', '']), waiting);
    await directory.saveSite('https://after-the-cut.example', { watch: ['/'] });
    const version = await directory.catalogVersion();
    await vi.waitFor(() => expect(heard).toEqual(['', '', String(version)]), waiting);

    await listening!.close();
    listening = undefined;
    await vi.waitFor(async () => expect(await listeners()).toBe(0), waiting);
  });

  it('brings a site another process adds or pauses to a daemon as it commits, with no upkeep round between', async () => {
    const [file, added] = sites as [FixtureServer, FixtureServer];
    const clock = new FakeClock(new Date('2026-03-02T00:00:00Z'));
    const config = daemonConfig(`agents: [Googlebot]
sites: [{url: '${file.origin}', watch: [/]}]
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
`);
    daemon = await startInProcess(database.handle, config, clock, new FakeCron());
    await daemon.daemon.listening;
    const checked = (origin: string) =>
      daemon!.heardOf('check:done').some((e) => e.outcome.site === origin);
    await vi.waitFor(() => expect(checked(file.origin)).toBe(true), waiting);
    // The clock stays: no upkeep round runs from here on, so only the announcement of the
    // change can bring it to the daemon.
    const directory = createSiteDirectory(database.handle.db);
    const id = await directory.saveSite(added.origin, { watch: ['/'] });
    await vi.waitFor(() => expect(checked(added.origin)).toBe(true), waiting);
    expect(daemon.heardOf('sites:changed')).toEqual([
      { sites: 2, added: [added.origin], removed: 0 },
    ]);
    await directory.setPaused(id, clock.now());
    await vi.waitFor(() => expect(daemon!.heardOf('sites:changed')).toHaveLength(2), waiting);
    expect(daemon.heardOf('sites:changed')[1]).toEqual({ sites: 1, added: [], removed: 1 });
  });
});
