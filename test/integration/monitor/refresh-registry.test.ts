/**
 * Refreshing the AI crawler registry from a URL: a real HTTP server serves the registry
 * (the 2026-02 snapshot, then the shipped 2026-08 one) and a site's robots.txt, the real
 * fetcher fetches them, the real store records the versions, each site's finding and its
 * alerts, on PGlite and (when configured) PostgreSQL.
 */
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withRegistry } from '../../../src/config/config.js';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { shippedRegistry, shippedRegistryContent } from '../../../src/config/registry.js';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import {
  adoptRegistry,
  refreshRegistry,
  registryFromStore,
} from '../../../src/monitor/registry/refresh.js';
import type { RegistryDeps } from '../../../src/monitor/registry/refresh.js';
import { queryRows } from '../../../src/store/db.js';
import { createCheckStore, createDaemonStore } from '../../../src/store/index.js';
import { loadRegistryFindings } from '../../../src/store/registry.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { fixturePath } from '../../support/fixtures.js';
import { useLoopbackSite } from '../../support/loopback-site.js';

const { server, fetcher } = useLoopbackSite();
const OLD = readFileSync(fixturePath('registry/ai-robots.2026-02.json'), 'utf8');
const NEW = Buffer.from(shippedRegistryContent()).toString('utf8');
const BLOCKS_BY_NAME =
  'User-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nUser-agent: Bytespider\nDisallow: /\n\nUser-agent: *\nDisallow: /admin/\n';

describe.each(databaseKinds())('refreshing the AI crawler registry on %s', (kind) => {
  let database: TestDatabase;
  let now: Date;
  let deps: RegistryDeps;
  const registryUrl = () => `${server.origin}/registry/robots.json`;
  const config = (extra = ''): Config =>
    parseConfig(
      `
agents: ['@ai-training', '*']
watch: [/, /admin/x]
registry: {url: ${registryUrl()}}
notify: {events: [newly_disallowed, registry_changed], webhooks: [{url: https://hooks.example/x}]}
sites:
  - url: ${server.origin}
${extra}`,
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
  const findings = () =>
    loadRegistryFindings(
      database.handle.db,
      [1],
      new Date('2026-01-01T00:00:00Z'),
      new Date('2027-01-01T00:00:00Z'),
    );

  beforeEach(async () => {
    database = await createTestDatabase(kind);
    now = new Date('2026-09-01T04:00:00Z');
    const store = createDaemonStore(database.handle.db);
    deps = {
      fetchDocument: (r) => fetcher.fetchDocument(r),
      store: store.registry,
      now: () => now,
    };
    server.serve('/robots.txt', 200, BLOCKS_BY_NAME);
    server.serve('/registry/robots.json', 200, OLD, { 'content-type': 'application/json' });
  });
  afterEach(() => database.close());

  it('records the first registry as a baseline, then what an update means for each site', async () => {
    const first = await refreshRegistry(deps, config());
    expect(first).toMatchObject({ kind: 'updated', previous: null, sites: 0 });
    if (first.kind !== 'updated') throw new Error('not recorded');
    expect(first.active.version).toMatchObject({
      source: registryUrl(),
      date: now.toISOString(),
      agents: first.active.registry.agents.length,
    });
    // The site is checked with the registry's training crawlers, and the verdicts say which
    // registry made them.
    const site = withRegistry(config(), first.active).sites[0]!;
    expect(site.agents.map((a) => a.token)).toContain('GPTBot');
    const check = await checkSites(
      {
        fetchRobots: (o) => fetcher.fetchRobots(o),
        store: createCheckStore(database.handle.db),
        now: () => now,
        sleep: () => Promise.resolve(),
        confirmRetries: 0,
        confirmDelayMs: 0,
      },
      [site],
      { concurrency: 1 },
    );
    expect(check.failures).toEqual([]);
    const [set] = await queryRows<{ registry_sha256: string }>(
      database.handle.db,
      sql`SELECT registry_sha256 FROM verdict_sets`,
    );
    expect(set!.registry_sha256).toBe(first.active.version.sha256);

    // The same registry again: nothing new.
    now = new Date('2026-09-02T04:00:00Z');
    expect(await refreshRegistry(deps, config())).toMatchObject({ kind: 'unchanged' });

    // The registry gains 36 crawlers: the site keeps four training crawlers out by name,
    // and the new training crawlers may crawl it through *.
    server.serve('/registry/robots.json', 200, NEW, { 'content-type': 'application/json' });
    now = new Date('2026-09-03T04:00:00Z');
    const update = await refreshRegistry(deps, config());
    expect(update).toMatchObject({ kind: 'updated', sites: 1, alerting: 1 });
    const [finding] = await findings();
    expect(finding!.cause).toMatchObject({ type: 'registry', added: 36, removed: ['IbouBot'] });
    expect(finding!.cause.purposes.find((p) => p.purpose === 'training')).toMatchObject({
      blockedByName: 4,
      contradicts: true,
    });
    // Its alert is queued for the webhook (registry_changed is one of the site's topics).
    const outbox = await queryRows<{
      destination: string;
      payload: { causes: { type: string }[] };
    }>(database.handle.db, sql`SELECT destination, payload FROM outbox`);
    expect(outbox.map((o) => [o.destination, o.payload.causes.map((c) => c.type)])).toEqual([
      ['https://hooks.example/x', ['registry']],
    ]);
    // And the process would now use it (another process finds it in the store).
    const stored = await deps.store.latestRegistry();
    expect(registryFromStore(stored, config(), shippedRegistry())!.version.sha256).toBe(
      update.kind === 'updated' ? update.active.version.sha256 : '',
    );
  });

  it('keeps the registry in use when the URL fails, and says why in one line', async () => {
    server.serve('/registry/robots.json', 503, 'busy');
    expect(await refreshRegistry(deps, config())).toEqual({
      kind: 'failed',
      url: registryUrl(),
      error: `${registryUrl()} answered 503`,
    });
    server.serve('/registry/robots.json', 200, '<html>not json</html>');
    const notJson = await refreshRegistry(deps, config());
    expect(notJson.kind === 'failed' && notJson.error).toMatch(/^the registry is not JSON: /);
    server.serve('/registry/robots.json', 200, '["GPTBot"]');
    expect(await refreshRegistry(deps, config())).toEqual({
      kind: 'failed',
      url: registryUrl(),
      error: 'the registry is not an object keyed by user-agent token',
    });
    expect(await deps.store.latestRegistry()).toBeNull();
  });

  it('refuses a registry URL on a private address unless the configuration allows them', async () => {
    const guarded = createRobotsFetcher({
      userAgent: 'robowatch-test',
      timeoutMs: 3_000,
      allowPrivateAddresses: false,
    });
    try {
      const outcome = await refreshRegistry(
        { ...deps, fetchDocument: (r) => guarded.fetchDocument(r) },
        config(),
      );
      expect(outcome.kind).toBe('failed');
      expect(outcome.kind === 'failed' && outcome.error).toContain(
        '127.0.0.1 is a private or reserved address',
      );
    } finally {
      await guarded.close();
    }
  });

  it('uses the shipped registry again when registry.url is dropped, and says what that changes', async () => {
    await refreshRegistry(deps, config());
    const withoutUrl = parseConfig(
      `agents: ['@ai-training', '*']\nwatch: [/]\nnotify: {events: [registry_changed]}\nsites:\n  - url: ${server.origin}\n`,
      { file: 'test.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const stored = await deps.store.latestRegistry();
    const wanted = registryFromStore(stored, withoutUrl, shippedRegistry())!;
    expect(wanted.version.source).toBe('shipped');
    now = new Date('2026-09-05T04:00:00Z');
    // The site has no state yet: nothing to say for it, but the shipped one is in use.
    expect(await adoptRegistry(deps, withoutUrl, wanted, shippedRegistryContent())).toMatchObject({
      kind: 'updated',
      sites: 0,
    });
    expect((await deps.store.latestRegistry())!.version.source).toBe('shipped');
    // Back to the URL's (recorded before): in use again, recorded once.
    now = new Date('2026-09-06T04:00:00Z');
    expect(await refreshRegistry(deps, config())).toMatchObject({ kind: 'updated' });
    expect((await deps.store.latestRegistry())!.version.source).toBe(registryUrl());
    expect(await refreshRegistry(deps, config())).toMatchObject({ kind: 'unchanged' });
    const [count] = await queryRows<{ n: number }>(
      database.handle.db,
      sql`SELECT count(*)::int AS n FROM registry_versions`,
    );
    expect(count!.n).toBe(2);
  });
});
