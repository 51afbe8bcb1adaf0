/**
 * A person limited to some tags (an agency's client, a publisher's section) sees only the
 * sites with one of them: in the lists and counts, the site pages, snapshots, changes,
 * feeds, incidents, the alert log and the digests; a site they may not see is not there
 * (404), what counts or changes every site (metrics, presets) is refused, and an editor
 * cannot add or edit a site into a tag they would not see. On both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { Accounts } from '../../../src/monitor/accounts.js';
import type { Actor } from '../../../src/monitor/accounts.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import { createAccountStore } from '../../../src/store/accounts.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { FixtureServer } from '../../support/fixture-server.js';
import { START, checkDepsOn, historyApp } from '../../support/site-history.js';

const SETUP: Actor = { name: 'test setup', userId: null, via: 'cli', address: null };
const alpha = new FixtureServer();
const beta = new FixtureServer();
const fetcher = createRobotsFetcher({
  userAgent: 'robowatch-test',
  timeoutMs: 3_000,
  allowPrivateAddresses: 'loopback',
});
beforeAll(async () => {
  await Promise.all([alpha.start(), beta.start()]);
});
afterAll(async () => {
  await fetcher.close();
  await Promise.all([alpha.stop(), beta.stop()]);
});

const host = (server: FixtureServer) => new URL(server.origin).host;

describe.each(databaseKinds())('a person limited to tags on %s', (kind) => {
  let database: TestDatabase;
  let config: Config;
  let app: ReturnType<typeof historyApp>;
  let accounts: Accounts;
  const clock = { now: START };
  const key = { agency: '', editor: '', admin: '' };
  const ids = { alpha: 0, beta: 0 };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    config = parseConfig(
      `agents: [Googlebot]
sites:
  - {url: '${alpha.origin}', name: Alpha shop, tags: [client-a], watch: [/, /pricing]}
  - {url: '${beta.origin}', name: Beta shop, tags: [client-b], watch: [/, /pricing]}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  email: {smtp: 'smtp://127.0.0.1:9', from: robowatch@example.com, to: [seo@example.com]}`,
      { file: 'tags.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const deps = checkDepsOn(database.handle.db, fetcher, clock);
    // Both sites: a baseline, then a deploy that blocks /pricing (a change, an incident
    // and its alert each).
    for (const server of [alpha, beta]) server.serve('/robots.txt', 200, 'User-agent: *\n');
    await checkSites(deps, config.sites, { concurrency: 1 });
    clock.now = new Date(START.getTime() + 3_600_000);
    for (const server of [alpha, beta])
      server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /pricing\n');
    await checkSites(deps, config.sites, { concurrency: 1 });
    clock.now = new Date(START.getTime() + 2 * 3_600_000);
    accounts = new Accounts(createAccountStore(database.handle.db), () => clock.now);
    app = historyApp(database.handle.db, config, deps, clock, undefined, { accounts });
    const users = [
      ['agency', 'viewer', 'read', ['client-a']],
      ['editor', 'editor', 'write', ['client-a']],
      ['admin', 'admin', 'admin', []],
    ] as const;
    for (const [name, role, scope, tags] of users) {
      await accounts.addUser(SETUP, { name, role, tags, password: 'a long enough password' });
      key[name] = (await accounts.createKey(SETUP, { user: name, scope })).key;
    }
    const { sites } = await get<{ sites: { id: number; name: string }[] }>(
      '/api/v1/sites',
      key.admin,
    );
    ids.alpha = sites.find((s) => s.name === 'Alpha shop')!.id;
    ids.beta = sites.find((s) => s.name === 'Beta shop')!.id;
  });
  afterAll(async () => {
    await database.close();
  });

  const send = (method: string, path: string, as: string, body?: unknown) =>
    app.request(path, {
      method,
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  async function get<T>(path: string, as: string): Promise<T> {
    const response = await send('GET', path, as);
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  }
  const text = async (path: string, as: string) => {
    const response = await send('GET', path, as);
    expect(response.status, path).toBe(200);
    return response.text();
  };

  it('lists, counts and shows only the sites with their tags; the others are not there', async () => {
    const { sites } = await get<{ sites: { name: string }[] }>('/api/v1/sites', key.agency);
    expect(sites.map((s) => s.name)).toEqual(['Alpha shop']);
    const overview = await text('/', key.agency);
    expect(overview).toContain('Alpha shop');
    expect(overview).not.toContain('Beta shop');
    expect(overview).not.toContain(host(beta));
    // An admin sees both: the limit is the person's, not the page's.
    expect(await text('/', key.admin)).toContain('Beta shop');
    const { snapshots } = await get<{ snapshots: { id: number }[] }>(
      `/api/v1/sites/${ids.beta}/snapshots`,
      key.admin,
    );
    for (const path of [
      `/api/v1/sites/${ids.beta}`,
      `/sites/${ids.beta}`,
      `/api/v1/sites/${ids.beta}/snapshots`,
      `/api/v1/sites/${ids.beta}/diff`,
      `/api/v1/snapshots/${snapshots[0]!.id}`,
      `/api/v1/snapshots/${snapshots[0]!.id}/body`,
      `/sites/${ids.beta}/feed.atom`,
      `/tester?site=${ids.beta}`,
    ]) {
      const response = await send('GET', path, key.agency);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).toMatch(
        path.includes('/snapshots/')
          ? `there is no snapshot ${snapshots[0]!.id}`
          : `there is no site ${ids.beta}`,
      );
    }
    expect((await send('GET', `/sites/${ids.alpha}`, key.agency)).status).toBe(200);
    const crawler = await text('/crawlers/Googlebot', key.agency);
    expect(crawler).toContain('Alpha shop');
    expect(crawler).not.toContain('Beta shop');
  });

  it('shows only their sites’ changes, incidents and alerts, in the API, the pages and the feed', async () => {
    const { events } = await get<{ events: { siteId: number }[] }>('/api/v1/events', key.agency);
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events.map((e) => e.siteId))).toEqual(new Set([ids.alpha]));
    const { incidents } = await get<{ incidents: { id: number; site: number }[] }>(
      '/api/v1/incidents',
      key.agency,
    );
    expect(incidents.map((i) => i.site)).toEqual([ids.alpha]);
    const all = await get<{ incidents: { id: number; site: number }[] }>(
      '/api/v1/incidents',
      key.admin,
    );
    const betaIncident = all.incidents.find((i) => i.site === ids.beta)!;
    expect(betaIncident).toBeDefined();
    expect((await send('GET', `/api/v1/incidents/${betaIncident.id}`, key.agency)).status).toBe(
      404,
    );
    expect((await send('GET', `/incidents/${betaIncident.id}`, key.agency)).status).toBe(404);
    expect(await text('/incidents', key.agency)).not.toContain('Beta shop');
    // A site typed that names none offers only the sites they see as those it may mean.
    const typed = async (as: string) => (await send('GET', '/incidents?site=shop', as)).text();
    expect(await typed(key.agency)).toContain(
      `<li><a href="/incidents?site=${ids.alpha}">Alpha shop (`,
    );
    expect(await typed(key.agency)).not.toContain('Beta shop');
    expect(await typed(key.admin)).toContain(`<a href="/incidents?site=${ids.beta}">Beta shop (`);

    const { alerts } = await get<{ alerts: { id: number; site: number | null }[] }>(
      '/api/v1/alerts',
      key.agency,
    );
    expect(alerts.length).toBeGreaterThan(0);
    expect(new Set(alerts.map((a) => a.site))).toEqual(new Set([ids.alpha]));
    const everyAlert = await get<{ alerts: { id: number; site: number | null }[] }>(
      '/api/v1/alerts',
      key.admin,
    );
    const betaAlert = everyAlert.alerts.find((a) => a.site === ids.beta)!;
    expect((await send('GET', `/api/v1/alerts/${betaAlert.id}`, key.agency)).status).toBe(404);
    expect((await send('GET', `/alerts/${betaAlert.id}`, key.agency)).status).toBe(404);
    expect(await text('/alerts', key.agency)).not.toContain(host(beta));

    // A feed reader sends no header: the person's read key rides in the link.
    const feed = await app.request(`/feed.atom?key=${key.agency}`);
    expect(feed.status).toBe(200);
    const xml = await feed.text();
    expect(xml).toContain('Alpha shop');
    expect(xml).not.toContain('Beta shop');
    expect((await app.request(`/feed.atom?key=${key.agency}x`)).status).toBe(401);
    // The key opens the feeds, not the pages.
    expect((await app.request(`/api/v1/sites?key=${key.agency}`)).status).toBe(401);
  });

  it('previews the digest of their sites only, and keeps digests as sent (of every site) from them', async () => {
    const mine = await get<{ digests: { recipient: string; text: string }[] }>(
      '/api/v1/digests/preview?since=1d',
      key.agency,
    );
    expect(mine.digests).toHaveLength(1);
    expect(mine.digests[0]!.text).toContain('Alpha shop');
    expect(mine.digests[0]!.text).not.toContain('Beta shop');
    const every = await get<{ digests: { text: string }[] }>(
      '/api/v1/digests/preview?since=1d',
      key.admin,
    );
    expect(every.digests[0]!.text).toContain('Beta shop');
    const preview = await text('/digests/preview?since=1d', key.agency);
    expect(preview).not.toContain('Beta shop');

    const sent = await send('POST', '/api/v1/digests/send', key.admin, { since: '1d' });
    expect(sent.status).toBe(200);
    const { digests } = (await sent.json()) as { digests: { id: number }[] };
    const refused = await send('GET', `/digests/${digests[0]!.id}`, key.agency);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('covers sites you do not see');
    expect((await send('GET', `/digests/${digests[0]!.id}`, key.admin)).status).toBe(200);
    expect(await text('/digests', key.agency)).toContain('cover sites you do not see');
  });

  it('refuses what reaches every site, and shows health without the details', async () => {
    const metrics = await send('GET', '/metrics', key.agency);
    expect(metrics.status).toBe(403);
    expect(await metrics.text()).toContain('sees only the sites tagged client-a');
    expect((await send('GET', '/metrics', key.admin)).status).toBe(200);
    const preset = await send('PUT', '/api/v1/presets/@shop-bots', key.editor, {
      agents: ['Googlebot'],
    });
    expect(preset.status).toBe(403);
    expect((await send('GET', '/api/v1/presets', key.editor)).status).toBe(200);
    const health = (await (await send('GET', '/healthz', key.agency)).json()) as object;
    expect(Object.keys(health)).toEqual(['status']);
  });

  it('lets a limited editor change only their sites, and add sites only within their tags', async () => {
    // Not theirs: as if it were not there.
    for (const [method, path, body] of [
      ['PATCH', `/api/v1/sites/${ids.beta}`, { name: 'Mine now' }],
      ['POST', `/api/v1/sites/${ids.beta}/pause`, undefined],
      ['POST', `/api/v1/sites/${ids.beta}/check`, undefined],
      ['POST', '/api/v1/checks', { sites: [ids.alpha, ids.beta] }],
      ['PUT', `/api/v1/sites/${ids.beta}/intent`, []],
      ['DELETE', `/api/v1/sites/${ids.beta}/intent`, undefined],
      ['POST', `/api/v1/sites/${ids.beta}/intent/accept`, {}],
      ['POST', `/api/v1/sites/${ids.beta}/backfill`, undefined],
      ['DELETE', `/api/v1/sites/${ids.beta}`, undefined],
    ] as const) {
      const response = await send(method, path, key.editor, body);
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const incidents = await get<{ incidents: { id: number; site: number }[] }>(
      '/api/v1/incidents',
      key.admin,
    );
    const ack = (site: number) =>
      send(
        'POST',
        `/api/v1/incidents/${incidents.incidents.find((i) => i.site === site)!.id}/ack`,
        key.editor,
        { note: 'on it' },
      );
    expect((await ack(ids.beta)).status).toBe(404);
    // Every open one at once: only theirs; another tag's stays as it was.
    const all = await send('POST', '/api/v1/incidents/ack-open', key.editor, { note: 'on it' });
    expect(all.status).toBe(200);
    const done = (await all.json()) as { incidents: { site: number }[]; skipped: number };
    expect(done.incidents.map((i) => i.site)).toEqual([ids.alpha]);
    const after = await get<{ incidents: { site: number; note: string | null }[] }>(
      '/api/v1/incidents?state=open',
      key.admin,
    );
    expect(after.incidents.find((i) => i.site === ids.beta)?.note).toBeNull();
    expect((await ack(ids.alpha)).status).toBe(200);

    // A new site takes their one tag; another tag alone would hide it from them.
    const other = await send('POST', '/api/v1/sites', key.editor, {
      url: 'http://127.0.0.1:9/',
      watch: ['/'],
      tags: ['client-b'],
    });
    expect(other.status).toBe(400);
    expect(await other.text()).toContain('tags: must include one of yours (client-a)');
    const added = await send('POST', '/api/v1/sites', key.editor, {
      url: 'http://127.0.0.1:9/',
      watch: ['/'],
    });
    expect(added.status).toBe(201);
    const site = (await added.json()) as { id: number; tags: string[] };
    expect(site.tags).toEqual(['client-a']);
    const away = await send('PATCH', `/api/v1/sites/${site.id}`, key.editor, {
      tags: ['client-b'],
    });
    expect(away.status).toBe(400);
    expect((await send('GET', `/api/v1/sites/${site.id}`, key.agency)).status).toBe(200);
    const bulk = await app.request('/api/v1/sites/bulk', {
      method: 'POST',
      headers: { authorization: `Bearer ${key.editor}`, 'content-type': 'text/csv' },
      body: 'origin,name,tags\nhttp://127.0.0.2:9,Two,client-b\nhttp://127.0.0.3:9,Three,client-a\n',
    });
    const lines = ((await bulk.json()) as { lines: { outcome: string; message?: string }[] }).lines;
    expect(lines.map((l) => l.outcome)).toEqual(['refused', 'added']);
    expect(lines[0]!.message).toContain('must include one of yours');
  });

  it('limits viewers and editors, never admins, and says what a changed user now sees', async () => {
    await expect(
      accounts.addUser(SETUP, { name: 'boss', role: 'admin', tags: ['client-a'] }),
    ).rejects.toThrow('cannot be limited to tags');
    const refused = await send('POST', '/api/v1/users', key.admin, {
      name: 'boss',
      role: 'admin',
      tags: ['client-a'],
      password: 'a long enough password',
    });
    expect(refused.status).toBe(400);
    const bad = await send('POST', '/api/v1/users', key.admin, {
      name: 'odd',
      role: 'viewer',
      tags: ['no spaces'],
      password: 'a long enough password',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
      '"no spaces" is not a tag',
    );
    // Widened at once: the same key now sees every site.
    await accounts.updateUser(SETUP, 'agency', { tags: [] });
    const { sites } = await get<{ sites: unknown[] }>('/api/v1/sites', key.agency);
    expect(sites.length).toBeGreaterThan(1);
    await accounts.updateUser(SETUP, 'agency', { tags: ['client-a'] });
    const page = await app.request('/users', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.admin}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'name=section&role=editor&tags=client-b%2C+client-c&password=a+long+enough+password',
    });
    expect(page.status).toBe(200);
    expect((await accounts.listUsers()).find((u) => u.name === 'section')!.tags).toEqual([
      'client-b',
      'client-c',
    ]);
  });
});
