import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/store/db.js';
/**
 * Intent and incidents through the API and the pages, on both databases, against a
 * loopback site: the built-in intent flags a blocked page; "Accept as intended" makes the
 * site as intended at once (no fetch); a deploy that blocks /pricing opens one incident,
 * which is acknowledged, resolves with its duration, and reopens on a relapse within the
 * flap window; an intent the file gives is not editable here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import type { CheckDeps } from '../../../src/monitor/ports.js';
import { SiteCatalog } from '../../../src/monitor/sites/catalog.js';
import { createSiteDirectory } from '../../../src/store/index.js';
import type { Config } from '../../../src/config/config.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { FixtureServer } from '../../support/fixture-server.js';
import { DAY_MS, START, checkDepsOn, historyApp } from '../../support/site-history.js';

const TOKEN = 'intent-token-0123456789abcdef';
const bearer = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const ADMIN_BLOCKED = 'User-agent: *\nDisallow: /admin/\n';
const PRICING_BLOCKED = 'User-agent: *\nDisallow: /admin/\nDisallow: /pricing\n';

const shop = new FixtureServer();
const owned = new FixtureServer();
const fetcher = createRobotsFetcher({
  userAgent: 'robowatch-test',
  timeoutMs: 3_000,
  allowPrivateAddresses: 'loopback',
});
beforeAll(async () => {
  await Promise.all([shop.start(), owned.start()]);
});
afterAll(async () => {
  await fetcher.close();
  await Promise.all([shop.stop(), owned.stop()]);
});

interface IntentAnswer {
  from: string;
  editable: boolean;
  entries: { watch: string; agents: string[]; expect: string }[];
  state: {
    state: string | null;
    violations: { url: string; agent: string; expected: string }[];
    violationCount: number;
    reason: string | null;
    lead: string | null;
  };
}
interface IncidentAnswer {
  id: number;
  origin: string;
  name: string | null;
  state: string;
  duration: string;
  causes: string[];
  lead: string | null;
  reopened: number;
  acknowledgedBy: string | null;
  note: string | null;
  resolvedAt: string | null;
}

describe.each(databaseKinds())('intent and incidents on %s', (kind) => {
  let database: TestDatabase;
  let config: Config;
  let deps: CheckDeps;
  let app: ReturnType<typeof historyApp>;
  const clock = { now: START };
  let shopId = 0;
  let ownedId = 0;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await app.request(path, {
      method,
      headers: bearer,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** A form posted as the pages post it. */
  const form = (path: string, fields: Record<string, string>) =>
    app.request(path, {
      method: 'POST',
      headers: {
        authorization: bearer.authorization,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(fields).toString(),
    });
  const intent = async () =>
    (await call('GET', `/api/v1/sites/${shopId}/intent`)).body as unknown as IntentAnswer;
  const incidents = async (query = `site=${shopId}`) =>
    ((await call('GET', `/api/v1/incidents?${query}`)).body as { incidents: IncidentAnswer[] })
      .incidents;
  /** Checks the shop as the daemon would: with its settings as the catalog makes them. */
  const check = async (at: Date) => {
    clock.now = at;
    const catalog = new SiteCatalog(
      createSiteDirectory(database.handle.db),
      config,
      () => clock.now,
    );
    await catalog.load();
    await checkSites(deps, [catalog.get(shopId)!.site], { concurrency: 1 });
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    config = parseConfig(
      `agents: [Googlebot, GPTBot]
watch: [/, /pricing, /admin/]
sites:
  - {url: '${shop.origin}', name: Shop}
  - url: '${owned.origin}'
    name: Owned
    intent: [{watch: '/*', agents: [Googlebot], expect: allowed}]
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {token: '${TOKEN}'}`,
      { file: 'intent.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    shop.serve('/robots.txt', 200, ADMIN_BLOCKED);
    owned.serve('/robots.txt', 200, ADMIN_BLOCKED);
    deps = checkDepsOn(database.handle.db, fetcher, clock);
    await checkSites(deps, config.sites, { concurrency: 1 });
    app = historyApp(database.handle.db, config, deps, clock);
    const listed = (await call('GET', '/api/v1/sites')).body as {
      sites: { id: number; name: string }[];
    };
    shopId = listed.sites.find((s) => s.name === 'Shop')!.id;
    ownedId = listed.sites.find((s) => s.name === 'Owned')!.id;
  });
  afterAll(async () => {
    await database.close();
  });

  it('flags a page blocked for a search engine by default, and says so on the site', async () => {
    const answer = await intent();
    expect(answer.from).toBe('built-in');
    expect(answer.state.state).toBe('not-as-intended');
    expect(answer.state.lead).toBe('/admin/ is blocked for Googlebot');
    expect(answer.state.violations).toEqual([
      expect.objectContaining({
        url: `${shop.origin}/admin/`,
        agent: 'Googlebot',
        expected: 'allowed',
      }),
    ]);
    const site = (await call('GET', `/api/v1/sites/${shopId}`)).body as {
      intent: { state: string; violationCount: number };
    };
    expect(site.intent).toMatchObject({ state: 'not-as-intended', violationCount: 1 });
    const [open] = await incidents();
    // Named as its alerts and pages name the site.
    expect(open).toMatchObject({ origin: shop.origin, name: 'Shop', state: 'open', reopened: 0 });
    // In a phrase, as its alert's subject says it.
    expect(open!.lead).toBe('/admin/ is blocked for Googlebot');
    expect(open!.causes).toEqual(['Disallow: /admin/ (line 2) blocks pages meant to be crawled']);
    const html = await (
      await app.request(`/sites/${shopId}`, { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    expect(html).toContain('not as intended: 1 page × crawler pair');
    expect(html).toContain('class="differs"');
    // The overview and the sites' list say what crawlers do, not only how many pairs.
    const rows = (await call('GET', '/api/v1/sites')).body as {
      sites: { id: number; intent: { lead: string | null } | null }[];
    };
    expect(rows.sites.find((s) => s.id === shopId)?.intent?.lead).toBe(
      '/admin/ is blocked for Googlebot',
    );
    const overview = await (
      await app.request('/', { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    expect(overview).toContain('<div class="muted">/admin/ is blocked for Googlebot</div>');
    expect(overview).toContain(
      'title="Against its owner’s intent, /admin/ is blocked for Googlebot."',
    );
    // The judgement wrote the phrase; one judged before it did is said from its cells.
    const stored = await queryRows<{ lead: string | null }>(
      database.handle.db,
      sql`SELECT intent_report->>'lead' AS lead FROM sites WHERE id = ${shopId}`,
    );
    expect(stored[0]).toEqual({ lead: '/admin/ is blocked for Googlebot' });
    await database.handle.db.execute(
      sql`UPDATE sites SET intent_report = intent_report - 'lead' WHERE id = ${shopId}`,
    );
    const older = (await call('GET', '/api/v1/sites')).body as typeof rows;
    expect(older.sites.find((s) => s.id === shopId)?.intent?.lead).toBe(
      '/admin/ is blocked for Googlebot',
    );
  });

  it('accepts a cell as intended at once, without a fetch, and resolves the incident', async () => {
    const fetched = shop.requests.length;
    clock.now = new Date(START.getTime() + 10 * 60_000);
    const accepted = await call('POST', `/api/v1/sites/${shopId}/intent/accept`, {
      url: `${shop.origin}/admin/`,
      agent: 'Googlebot',
    });
    expect(accepted.status).toBe(200);
    const answer = accepted.body as unknown as IntentAnswer;
    expect(answer.from).toBe('web');
    expect(answer.state.state).toBe('as-intended');
    expect(answer.state.lead).toBeNull();
    expect(answer.entries).toContainEqual({
      watch: '/admin/',
      agents: ['Googlebot'],
      expect: 'disallowed',
    });
    expect(shop.requests.length).toBe(fetched);
    const [resolved] = await incidents();
    expect(resolved).toMatchObject({ state: 'resolved', duration: '10 min', lead: null });
  });

  it('opens one incident when a deploy blocks /pricing, takes an acknowledgment, and resolves it', async () => {
    shop.serve('/robots.txt', 200, PRICING_BLOCKED);
    await check(new Date(START.getTime() + DAY_MS));
    const [open, old] = await incidents();
    expect(old?.state).toBe('resolved');
    expect(open).toMatchObject({ state: 'open' });
    expect(open!.causes).toEqual(['Disallow: /pricing (line 3) blocks pages meant to be crawled']);
    // Seen again: still the one incident.
    await check(new Date(START.getTime() + DAY_MS + 60_000));
    expect((await incidents(`site=${shopId}&state=open`)).map((i) => i.id)).toEqual([open!.id]);
    // A page at a time: the next page's link reads on from the last one's id.
    const first = await call('GET', `/api/v1/incidents?site=${shopId}&limit=1`);
    expect(first.body).toMatchObject({
      incidents: [{ id: open!.id }],
      next: `/api/v1/incidents?site=${shopId}&limit=1&before=${open!.id}`,
    });
    const second = await call('GET', first.body['next'] as string);
    expect(second.body).toMatchObject({ incidents: [{ id: old!.id }], next: null });
    const badBefore = await call('GET', '/api/v1/incidents?before=soon');
    expect(badBefore.status).toBe(400);

    const acked = await call('POST', `/api/v1/incidents/${open!.id}/ack`, {
      note: 'Rolling back the deploy',
      by: 'Ana (SEO)',
    });
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({
      acknowledgedBy: 'Ana (SEO)',
      note: 'Rolling back the deploy',
    });
    const empty = await call('POST', `/api/v1/incidents/${open!.id}/ack`, { note: ' ' });
    expect(empty.status).toBe(400);
    expect((empty.body as { error: { message: string } }).error.message).toBe(
      'note: must say what is being done about it',
    );
    // Text the database cannot keep is refused by name, and the acknowledgment stands.
    for (const [body, message] of [
      [{ note: 'Rolling\u0000back' }, 'note: must not contain a NUL character (\\u0000)'],
      [
        { note: 'Rolling back', by: 'Ana \ud800' },
        'by: must be Unicode text: it has half of a surrogate pair (\\ud800) alone',
      ],
    ] as const) {
      const refused = await call('POST', `/api/v1/incidents/${open!.id}/ack`, body);
      expect([
        refused.status,
        (refused.body as { error: { message: string } }).error.message,
      ]).toEqual([400, message]);
    }
    const nul = await form(`/incidents/${open!.id}/ack`, { note: 'Rolling\u0000back' });
    expect(nul.status).toBe(400);
    expect(await nul.text()).toContain('note: must not contain a NUL character');
    expect((await incidents())[0]).toMatchObject({
      acknowledgedBy: 'Ana (SEO)',
      note: 'Rolling back the deploy',
    });

    shop.serve('/robots.txt', 200, ADMIN_BLOCKED);
    await check(new Date(START.getTime() + DAY_MS + 2 * 3_600_000));
    const [fixed] = await incidents();
    expect(fixed).toMatchObject({ id: open!.id, state: 'resolved', duration: '2 h' });

    // A relapse within the flap window (an hour) reopens the same incident.
    shop.serve('/robots.txt', 200, PRICING_BLOCKED);
    await check(new Date(START.getTime() + DAY_MS + 2 * 3_600_000 + 30 * 60_000));
    const [again] = await incidents();
    expect(again).toMatchObject({ id: open!.id, state: 'open', reopened: 1, resolvedAt: null });
    const page = await (
      await app.request('/incidents', { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    expect(page).toContain('Disallow: /pricing (line 3) blocks pages meant to be crawled');
    // The open incident says what crawlers do, as its alerts lead with it; then why.
    expect(page).toMatch(
      /<div class="lead">\/pricing is blocked for [^<]+<\/div><ul><li>Disallow: \/pricing \(line 3\)/,
    );
    expect(page).toContain('acknowledged by Ana (SEO)');
    // Each incident is listed under its site's name, as its alerts call the site.
    const shopHost = new URL(shop.origin).host;
    expect(page).toContain(`<a href="/sites/${shopId}#intent">Shop (${shopHost})</a>:`);
    // One site's incidents: the other site's are not listed.
    const ownedPage = await (
      await app.request(`/incidents?site=${ownedId}`, {
        headers: { ...bearer, accept: 'text/html' },
      })
    ).text();
    expect(ownedPage).not.toContain('acknowledged by Ana (SEO)');
    expect(ownedPage).not.toContain(`<a href="/sites/${shopId}#intent">Shop (${shopHost})</a>`);
    expect(ownedPage).toContain(
      `<a href="/sites/${ownedId}#intent">Owned (${new URL(owned.origin).host})</a>:`,
    );
  });

  it('refuses to change an intent the file gives, and a bad entry in one line', async () => {
    const refused = await call('PUT', `/api/v1/sites/${ownedId}/intent`, []);
    expect(refused.status).toBe(409);
    expect((refused.body as { error: { message: string } }).error.message).toBe(
      `the intent of ${owned.origin} is set in intent.yaml: edit it there`,
    );
    const bad = await call('PUT', `/api/v1/sites/${shopId}/intent`, [
      { watch: '/pricing', agents: ['@nope'], expect: 'allowed' },
    ]);
    expect(bad.status).toBe(400);
    expect((bad.body as { error: { message: string } }).error.message).toMatch(
      /^intent\[0\]\.agents\[0\]: unknown preset "@nope"/,
    );
    // The file's own intent judges only Googlebot: GPTBot kept out of /admin/ is fine.
    const owner = (await call('GET', `/api/v1/sites/${ownedId}/intent`))
      .body as unknown as IntentAnswer;
    expect(owner).toMatchObject({ from: 'site-file', editable: false });
    expect(owner.state.state).toBe('not-as-intended');
  });

  it('goes back to the built-in intent when the one set here is deleted', async () => {
    const reset = await call('DELETE', `/api/v1/sites/${shopId}/intent`);
    expect(reset.status).toBe(200);
    const answer = reset.body as unknown as IntentAnswer;
    expect(answer.from).toBe('built-in');
    expect(answer.state.violationCount).toBe(2);
  });

  it('changes the intent one entry at a time from the site page, judging the site at once', async () => {
    const page = async (query = '') =>
      (
        await app.request(`/sites/${shopId}${query}`, {
          headers: { ...bearer, accept: 'text/html' },
        })
      ).text();
    // The built-in intent: /admin/ and /pricing are blocked for Googlebot, meant to be crawled.
    expect((await intent()).from).toBe('built-in');
    expect(await page()).toContain('The intent’s 1 entry, to change here');
    const added = await form(`/sites/${shopId}/intent/entries`, {
      watch: '/admin/*',
      agents: 'Googlebot, GPTBot',
      expect: 'disallowed',
    });
    expect(added.status).toBe(303);
    expect(added.headers.get('location')).toBe(`/sites/${shopId}?done=intent-added#intent`);
    let answer = await intent();
    expect(answer.from).toBe('web');
    expect(answer.entries).toEqual([
      { watch: '/*', agents: ['@search'], expect: 'allowed' },
      { watch: '/admin/*', agents: ['Googlebot', 'GPTBot'], expect: 'disallowed' },
    ]);
    // Judged at once: only /pricing differs now.
    expect(answer.state.violations.map((v) => v.url)).toEqual([`${shop.origin}/pricing`]);
    const html = await page('?done=intent-added');
    expect(html).toContain('Entry added to the intent');
    expect(html).toContain('aria-label="Remove /admin/* for Googlebot, GPTBot"');

    // A bad entry: one line, nothing changed.
    const bad = await form(`/sites/${shopId}/intent/entries`, {
      watch: '/x',
      agents: '@nonsense',
      expect: 'allowed',
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('@nonsense');
    expect((await intent()).entries).toHaveLength(2);

    // Removing what the page showed; a stale page is refused.
    const stale = await form(`/sites/${shopId}/intent/entries/1/remove`, {
      entry: JSON.stringify({ watch: '/admin/', agents: ['Googlebot'], expect: 'disallowed' }),
    });
    expect(stale.status).toBe(409);
    const removed = await form(`/sites/${shopId}/intent/entries/1/remove`, {
      entry: JSON.stringify(answer.entries[1]),
    });
    expect(removed.status).toBe(303);
    answer = await intent();
    expect(answer.entries).toEqual([{ watch: '/*', agents: ['@search'], expect: 'allowed' }]);
    expect(answer.state.violationCount).toBe(2);

    // Back to the file's (here the built-in) intent.
    const reset = await form(`/sites/${shopId}/intent/reset`, {});
    expect(reset.status).toBe(303);
    expect((await intent()).from).toBe('built-in');
    // The file's own intent cannot be changed here.
    expect(
      await (
        await app.request(`/sites/${ownedId}`, { headers: { ...bearer, accept: 'text/html' } })
      ).text(),
    ).not.toContain('Add to the intent');
    const refused = await form(`/sites/${ownedId}/intent/entries`, {
      watch: '/x',
      agents: 'Googlebot',
      expect: 'allowed',
    });
    expect(refused.status).toBe(409);
  });

  it('lists incidents by site and state, and shows each on its own page', async () => {
    const html = async (path: string) => {
      const response = await app.request(path, { headers: { ...bearer, accept: 'text/html' } });
      return { status: response.status, text: await response.text() };
    };
    const [latest] = await incidents();
    const all = await html(`/incidents?site=${shopId}`);
    expect(all.text).toContain('<h2>Open</h2>');
    expect(all.text).toContain('<h2>Resolved</h2>');
    const resolved = await html(`/incidents?site=${shopId}&state=resolved`);
    expect(resolved.text).not.toContain('<h2>Open</h2>');
    expect(resolved.text).toContain('<h2>Resolved</h2>');
    // A resolved incident says how far off the site was, in the past; an open one how far
    // it is, its worst said only when it was worse than now.
    expect(resolved.text).toContain(
      'at worst 1 watched page × crawler pair differed from the intent',
    );
    expect(resolved.text).not.toMatch(/pairs? differs? from the intent/);
    expect(all.text).toContain('>2 watched page × crawler pairs differ from the intent<');
    const bad = await html('/incidents?state=lost');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('state must be open or resolved, not &quot;lost&quot;');
    const one = await html(`/incidents/${latest!.id}`);
    expect(one.status).toBe(200);
    expect(one.text).toContain(`<h1>Incident #${latest!.id}</h1>`);
    expect(one.text).toContain(`Shop (${new URL(shop.origin).host})</a>: <strong>`);
    expect(one.text).toContain(latest!.causes[0]!.replace(/`/g, '').slice(0, 20));
    expect((await html('/incidents/999999')).status).toBe(404);

    // A site with 120 resolved incidents: the newest 100, then a link to the older ones.
    const db = database.handle.db;
    await db.execute(sql`
      INSERT INTO incidents (site_id, state, opened_at, resolved_at, site_state, causes,
                             violations, violation_count, worst_count, updated_at)
      SELECT ${ownedId}, 'resolved', now() - g * interval '1 day', now() - g * interval '1 day' + interval '1 hour',
             'cannot-check', '["robots.txt answers 503"]'::jsonb, '[]'::jsonb, 0, 0, now()
      FROM generate_series(1, 120) AS g`);
    try {
      // Those listed under Resolved (the site's open ones are listed above them).
      const listed = (text: string) =>
        [...text.split('<h2>Resolved</h2>')[1]!.matchAll(/<li id="incident-(\d+)">/g)].length;
      const resolvedCount = (await incidents(`site=${ownedId}&state=resolved&limit=500`)).length;
      expect(resolvedCount).toBeGreaterThanOrEqual(120);
      const first = await html(`/incidents?site=${ownedId}`);
      expect(listed(first.text)).toBe(100);
      const older =
        /<a href="(\/incidents\?site=\d+&amp;state=resolved&amp;before=\d+)">Older/.exec(
          first.text,
        );
      expect(older).not.toBeNull();
      const second = await html(older![1]!.replace(/&amp;/g, '&'));
      expect(second.status).toBe(200);
      expect(listed(second.text)).toBe(resolvedCount - 100);
      expect(second.text).not.toContain('<h2>Open</h2>');
      expect(second.text).not.toContain('>Older');

      // Every open one no one has acknowledged, at once, from the page.
      await db.execute(sql`
        INSERT INTO incidents (site_id, state, opened_at, site_state, causes, violations,
                               violation_count, worst_count, updated_at)
        SELECT ${ownedId}, 'open', now() - g * interval '1 hour', 'cannot-check',
               '["robots.txt answers 503"]'::jsonb, '[]'::jsonb, 0, 0, now()
        FROM generate_series(1, 2) AS g`);
      const open = await incidents(`state=open&limit=500`);
      const waiting = open.filter((i) => i.acknowledgedBy === null);
      expect(waiting.length).toBeGreaterThanOrEqual(2);
      const page = await html('/incidents');
      expect(page.text).toContain(`>Acknowledge all ${waiting.length}</button>`);
      const blank = await form('/incidents/ack-open', { note: ' ' });
      expect(blank.status).toBe(400);
      const posted = await form('/incidents/ack-open', { note: 'CDN rule rolled back', by: 'Ana' });
      expect(posted.status).toBe(303);
      expect(posted.headers.get('location')).toBe(
        `/incidents?done=acknowledged-all&count=${waiting.length}`,
      );
      expect((await html(posted.headers.get('location')!)).text).toContain(
        `Acknowledged ${waiting.length} incidents: the note, and who wrote it, are on each.`,
      );
      const now = await incidents(`state=open&limit=500`);
      for (const incident of now)
        expect(
          waiting.some((w) => w.id === incident.id)
            ? [incident.acknowledgedBy, incident.note]
            : incident.note,
        ).toEqual(
          waiting.some((w) => w.id === incident.id)
            ? ['Ana', 'CDN rule rolled back']
            : open.find((o) => o.id === incident.id)!.note,
        );
      // Through the API: nothing left, every open one said acknowledged already.
      const again = await call('POST', '/api/v1/incidents/ack-open', { note: 'again' });
      expect(again.body).toEqual({ incidents: [], skipped: now.length });
    } finally {
      await db.execute(
        sql`DELETE FROM incidents WHERE site_id = ${ownedId} AND violation_count = 0 AND causes = '["robots.txt answers 503"]'::jsonb`,
      );
    }
  });
});
