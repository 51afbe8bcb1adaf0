/**
 * Managing sites through the API: add (with its baseline at once), edit, pause, resume,
 * remove; the file's sites stay the file's; every refusal is one line with its status.
 * On both databases, with the site's robots.txt served on loopback.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createApp } from '../../../src/web/app.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { buildHistory, historyApp, historyConfig } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();
const TOKEN = 'sites-api-token-0123456789';
const bearer = { authorization: `Bearer ${TOKEN}` };

interface SiteDoc {
  id: number;
  origin: string;
  name: string | null;
  tags: string[];
  managedBy: 'file' | 'api' | null;
  configured: boolean;
  paused: boolean;
  watches: string[];
  agents: { token: string; profile: string }[];
  schedule: string | null;
  check?: { kind: string; verdicts: { watched: number; disallowed: number } } | { error: string };
}

describe.each(databaseKinds())('sites managed through the API on %s', (kind) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let readOnly: ReturnType<typeof createApp>;
  let fileSite: number;
  // The same loopback server under another name: another origin, a site of its own.
  let other: string;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    other = server.origin.replace('127.0.0.1', 'localhost');
    const config = historyConfig(server.origin, `web: {token: '${TOKEN}'}`);
    const { deps, clock } = await buildHistory(database.handle.db, server, fetcher, config);
    app = historyApp(database.handle.db, config, deps, clock);
    readOnly = historyApp(database.handle.db, historyConfig(server.origin), deps, clock);
    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
    fileSite = (
      (await (await app.request('/api/v1/sites', { headers: bearer })).json()) as {
        sites: SiteDoc[];
      }
    ).sites[0]!.id;
  });
  afterAll(async () => {
    server.routes.clear();
    await database.close();
  });

  const send = async (method: string, path: string, body?: unknown, headers = bearer) => {
    const response = await app.request(path, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  const errorOf = (body: unknown) => (body as { error: { message: string } }).error.message;
  const listed = async () =>
    ((await send('GET', '/api/v1/sites?limit=500')).body as { sites: SiteDoc[] }).sites;

  it('is read-only without a token, and says how to allow editing', async () => {
    const response = await readOnly.request('/api/v1/sites', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: other }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'the web UI and API are read-only: set web.token in the configuration, or add a user (robowatch users add), to allow checking and editing sites',
    );
    const anonymous = await send('POST', '/api/v1/sites', { url: other }, { authorization: '' });
    expect(anonymous.status).toBe(401);
  });

  it('shows the add and edit forms only to who may edit, and refuses the file’s sites there', async () => {
    const html = { accept: 'text/html' };
    const overview = await (await readOnly.request('/', { headers: html })).text();
    expect(overview).not.toContain('href="/sites/new"');
    expect(overview).toContain(
      'Read-only: adding and editing sites from the web need the access token',
    );
    const form = await readOnly.request('/sites/new', { headers: html });
    expect(form.status).toBe(403);
    expect(await form.text()).toContain('set web.token in the configuration');
    expect(await (await app.request('/', { headers: { ...bearer, ...html } })).text()).toContain(
      'href="/sites/new"',
    );
    const fileEdit = await app.request(`/sites/${fileSite}/edit`, {
      headers: { ...bearer, ...html },
    });
    expect(fileEdit.status).toBe(409);
    expect(await fileEdit.text()).toContain('is listed in web-test.yaml: edit it there');
    // A form with an error answers 400, says it in the form's words, keeps what was typed.
    const refused = await app.request('/sites/new', {
      method: 'POST',
      headers: { ...bearer, ...html, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        url: 'https://form.example',
        watch: '/\nnope',
        tags: 'a b!',
      }).toString(),
    });
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain('Tags: must be a tag of letters, digits');
    expect(page).toContain('value="https://form.example"');
    expect((await listed()).map((s) => s.origin)).toEqual([server.origin]);
  });

  it('adds a site, checks it at once and lists it with its name and tags', async () => {
    const added = await send('POST', '/api/v1/sites', {
      url: other,
      name: '  Shop (staging) ',
      tags: ['shop', 'eu'],
      watch: ['/', '/private/a', '/private/a'],
      agents: ['Googlebot'],
    });
    expect(added.status).toBe(201);
    const site = added.body as SiteDoc;
    expect(site).toMatchObject({
      origin: other,
      name: 'Shop (staging)',
      tags: ['shop', 'eu'],
      managedBy: 'api',
      configured: true,
      paused: false,
      watches: [`${other}/`, `${other}/private/a`],
      agents: [{ token: 'Googlebot', profile: 'google' }],
      schedule: '0 3 * * *',
      check: { kind: 'baseline', verdicts: { watched: 2, disallowed: 1 } },
    });
    const sites = await listed();
    expect(sites.map((s) => [s.origin, s.managedBy, s.name])).toEqual([
      [server.origin, 'file', null],
      [other, 'api', 'Shop (staging)'],
    ]);
    // Found by its name and its tags, on the overview and in the API.
    const tagged = await (
      await app.request('/?tag=eu', { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    expect(tagged).toContain(`href="/sites/${site.id}"`);
    expect(tagged).not.toContain(`href="/sites/${fileSite}"`);
    const named = (await send('GET', '/api/v1/sites?q=STAGING')).body as { sites: SiteDoc[] };
    expect(named.sites.map((s) => s.id)).toEqual([site.id]);
    const byTag = (await send('GET', '/api/v1/sites?tag=shop')).body as { sites: SiteDoc[] };
    expect(byTag.sites.map((s) => s.id)).toEqual([site.id]);
    // Its page shows its baseline.
    const page = await app.request(`/sites/${site.id}`, {
      headers: { ...bearer, accept: 'text/html' },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('/private/a');
  });

  it('refuses bad settings with the configuration file’s one-line errors', async () => {
    const added = (await listed()).find((s) => s.origin === other)!;
    const cases: [unknown, number, string][] = [
      [{ url: 'ftp://example.com' }, 400, 'url: must be http or https, not ftp'],
      [{ url: 'file:///etc/passwd' }, 400, 'url: must be http or https, not file'],
      // A host no DNS can hold: the site could never be fetched.
      [
        { url: 'https://{', watch: ['/'] },
        400,
        'url: "{" is not a host name: letters, digits, "-" and "_" between dots (no "-" first or last), at most 63 between two, 253 in all',
      ],
      [
        { url: `https://${'a'.repeat(64)}.example`, watch: ['/'] },
        400,
        `url: "${'a'.repeat(64)}.example" is not a host name: letters, digits, "-" and "_" between dots (no "-" first or last), at most 63 between two, 253 in all`,
      ],
      [
        { url: `https://${'abc.'.repeat(70)}example`, watch: ['/'] },
        400,
        `url: "${'abc.'.repeat(50)}…" is not a host name: letters, digits, "-" and "_" between dots (no "-" first or last), at most 63 between two, 253 in all`,
      ],
      // A part that starts or ends with "-" is a slip no registry hands out.
      [
        { url: '-6', watch: ['/'] },
        400,
        'url: "-6" is not a host name: letters, digits, "-" and "_" between dots (no "-" first or last), at most 63 between two, 253 in all',
      ],
      [
        { url: 'https://shop-.example.com', watch: ['/'] },
        400,
        'url: "shop-.example.com" is not a host name: letters, digits, "-" and "_" between dots (no "-" first or last), at most 63 between two, 253 in all',
      ],
      // An address not written as four decimal numbers is read as another: said, not taken.
      [
        { url: 'https://0x7f.1', watch: ['/'] },
        400,
        'url: "0x7f.1" is read as the address 127.0.0.1: write 127.0.0.1 if that is the site',
      ],
      [
        { url: 'http://010.0.0.1:8080', watch: ['/'] },
        400,
        'url: "010.0.0.1" is read as the address 8.0.0.1: write 8.0.0.1 if that is the site',
      ],
      [
        { url: '1.5', watch: ['/'] },
        400,
        'url: "1.5" is read as the address 1.0.0.5: write 1.0.0.5 if that is the site',
      ],
      [
        { url: 'https://a.example', watch: ['nope'] },
        400,
        'watch[0]: "nope" must be a path starting with "/" or an absolute URL',
      ],
      [
        { url: 'https://a.example', wacth: ['/'] },
        400,
        'unknown key "wacth" (did you mean "watch"?)',
      ],
      [
        { url: 'https://a.example', watch: ['/'], tags: ['no spaces'] },
        400,
        'tags[0]: must be a tag of letters, digits, "-", "_" or "." (at most 40)',
      ],
      [
        { url: 'https://a.example', watch: ['/'], schedule: 'daily' },
        400,
        'schedule: is not a valid cron expression ([second] minute hour day-of-month month day-of-week)',
      ],
      [
        { url: 'https://a.example' },
        400,
        'watch: is required (or list the paths every site watches in a top-level watch)',
      ],
      [{ watch: ['/'] }, 400, 'url: is required (the site, e.g. https://example.com)'],
      [
        { url: server.origin, watch: ['/'] },
        409,
        `${server.origin} is listed in web-test.yaml: edit it there`,
      ],
      [{ url: other, watch: ['/'] }, 409, `${other} is watched already (site ${added.id})`],
      [
        '{"url": ',
        400,
        'the body must be JSON: {url, name?, tags?, watch?, agents?, profile?, schedule?, notify?}',
      ],
    ];
    for (const [body, status, message] of cases) {
      const refused = await send('POST', '/api/v1/sites', body);
      expect([refused.status, errorOf(refused.body)], JSON.stringify(body)).toEqual([
        status,
        message,
      ]);
    }
    expect((await listed()).length).toBe(2);
  });

  it('edits a site: each key given replaces, null falls back to the default', async () => {
    const [, site] = await listed();
    const edited = await send('PATCH', `/api/v1/sites/${site!.id}`, {
      name: 'Shop',
      tags: ['shop'],
      watch: ['/private/b'],
      agents: null,
      schedule: '0 */6 * * *',
      sitemaps: ['/sitemap_index.xml'],
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      name: 'Shop',
      tags: ['shop'],
      watches: [`${other}/private/b`],
      agents: [
        { token: 'Googlebot', profile: 'google' },
        { token: 'GPTBot', profile: 'google' },
      ],
      schedule: '0 */6 * * *',
      // A path is the site's own.
      sitemaps: [`${other}/sitemap_index.xml`],
    });
    // The edit form shows it, and saving it as "off" turns the site's sitemaps off.
    const form = await (
      await app.request(`/sites/${site!.id}/edit`, {
        headers: { ...bearer, accept: 'text/html' },
      })
    ).text();
    expect(form).toMatch(/<textarea name="sitemaps"[^>]*>\/sitemap_index.xml<\/textarea>/);
    expect(form).toContain(
      'Empty: the configuration&#39;s setting (auto: robots.txt&#39;s Sitemap: lines, else /sitemap.xml).',
    );
    const saved = await app.request(`/sites/${site!.id}/edit`, {
      method: 'POST',
      headers: {
        ...bearer,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        name: 'Shop',
        tags: 'shop',
        watch: '/private/b',
        schedule: '0 */6 * * *',
        sitemaps: 'off',
      }).toString(),
    });
    expect(saved.status).toBe(303);
    expect((await send('GET', `/api/v1/sites/${site!.id}`)).body).toMatchObject({
      sitemaps: 'off',
      schedule: '0 */6 * * *',
    });
    // watch: auto through the API, and the form shows it.
    const auto = await send('PATCH', `/api/v1/sites/${site!.id}`, { watch: 'auto' });
    expect(auto.body).toMatchObject({ watches: [`${other}/`], watchAuto: true });
    const autoForm = await (
      await app.request(`/sites/${site!.id}/edit`, { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    expect(autoForm).toMatch(/<textarea name="watch"[^>]*>auto<\/textarea>/);
    await send('PATCH', `/api/v1/sites/${site!.id}`, { watch: ['/private/b'] });
    const refusals: [string, unknown, number, string][] = [
      [
        `/api/v1/sites/${site!.id}`,
        { watch: 'sometimes' },
        400,
        'watch: must be auto or a list of paths or URLs',
      ],
      [
        `/api/v1/sites/${site!.id}`,
        { sitemaps: ['ftp://x.example/s.xml'] },
        400,
        'sitemaps[0]: must be http or https, not ftp',
      ],
      [
        `/api/v1/sites/${site!.id}`,
        { watch: null },
        400,
        'watch: is required (or list the paths every site watches in a top-level watch)',
      ],
      [
        `/api/v1/sites/${site!.id}`,
        { url: 'https://elsewhere.example' },
        400,
        'url: cannot change (a history belongs to one origin): add the new origin as a site',
      ],
      [
        `/api/v1/sites/${site!.id}`,
        { profile: 'bing' },
        400,
        'profile: must be one of google, rfc9309, legacy',
      ],
      [
        `/api/v1/sites/${fileSite}`,
        { name: 'x' },
        409,
        `${server.origin} is listed in web-test.yaml: edit it there`,
      ],
      ['/api/v1/sites/999', { name: 'x' }, 404, 'there is no site 999'],
    ];
    for (const [path, body, status, message] of refusals) {
      const refused = await send('PATCH', path, body);
      expect([refused.status, errorOf(refused.body)], JSON.stringify(body)).toEqual([
        status,
        message,
      ]);
    }
    // A refused edit changed nothing.
    expect((await send('GET', `/api/v1/sites/${site!.id}`)).body).toMatchObject({ name: 'Shop' });
  });

  it('pauses and resumes any site, the file’s too', async () => {
    const paused = await send('POST', `/api/v1/sites/${fileSite}/pause`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ paused: true, managedBy: 'file' });
    expect((await listed()).find((s) => s.id === fileSite)?.paused).toBe(true);
    const resumed = await send('POST', `/api/v1/sites/${fileSite}/resume`);
    expect(resumed.body).toMatchObject({ paused: false });
    expect((await send('POST', '/api/v1/sites/999/pause')).status).toBe(404);
  });

  it('removes a site it added, keeps its history, and takes it back with its history', async () => {
    const [, site] = await listed();
    expect((await send('DELETE', `/api/v1/sites/${fileSite}`)).status).toBe(409);
    const removed = await send('DELETE', `/api/v1/sites/${site!.id}`);
    expect(removed.status).toBe(204);
    expect((await listed()).map((s) => s.origin)).toEqual([server.origin]);
    // Its history stays browsable.
    const kept = await send('GET', `/api/v1/sites/${site!.id}`);
    expect(kept.body).toMatchObject({ origin: other, configured: false, managedBy: null });
    expect((await send('GET', `/api/v1/sites/${site!.id}/snapshots`)).status).toBe(200);
    expect(errorOf((await send('DELETE', `/api/v1/sites/${site!.id}`)).body)).toBe(
      `${other} is not watched (site ${site!.id})`,
    );
    // Added again: the same site, its history carries on (no new baseline).
    const again = await send('POST', '/api/v1/sites', { url: other, watch: ['/'] });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: site!.id, check: { kind: 'unchanged' } });
  });

  it('adds a list of sites, line by line, through the API and the page', async () => {
    const list = [
      'origin,name,tags,watches',
      'https://bulk-a.example,Bulk A,shop eu,/ /cart',
      'bulk-b.example,,,/',
      'bulk-e.example',
      '# a comment',
      'ftp://bulk-c.example',
      'https://bulk-a.example',
      `${server.origin},File site`,
    ].join('\n');
    const response = await app.request('/api/v1/sites/bulk', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'text/csv' },
      body: list,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      added: number;
      refused: number;
      lines: { line: number; origin: string; outcome: string; message?: string }[];
    };
    expect(body.added, JSON.stringify(body.lines)).toBe(3);
    expect(body.lines.map((l) => [l.line, l.origin, l.outcome, l.message])).toEqual([
      [2, 'https://bulk-a.example', 'added', undefined],
      [3, 'https://bulk-b.example', 'added', undefined],
      // This configuration has no top-level watch list: a line naming none watches the home page.
      [4, 'https://bulk-e.example', 'added', undefined],
      [6, 'ftp://bulk-c.example', 'refused', 'url: must be http or https, not ftp'],
      [
        7,
        'https://bulk-a.example',
        'refused',
        expect.stringMatching(/^https:\/\/bulk-a\.example is watched already \(site \d+\)$/),
      ],
      [8, server.origin, 'refused', `${server.origin} is listed in web-test.yaml: edit it there`],
    ]);
    const a = (await listed()).find((s) => s.origin === 'https://bulk-a.example')!;
    expect(a).toMatchObject({ name: 'Bulk A', tags: ['shop', 'eu'], managedBy: 'api' });
    expect((await send('GET', `/api/v1/sites/${a.id}`)).body).toMatchObject({
      watches: ['https://bulk-a.example/', 'https://bulk-a.example/cart'],
    });
    const e = (await listed()).find((s) => s.origin === 'https://bulk-e.example')!;
    expect((await send('GET', `/api/v1/sites/${e.id}`)).body).toMatchObject({
      watches: ['https://bulk-e.example/'],
    });
    // The form says what such a line watches.
    const empty = await (
      await app.request('/sites/bulk', { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    expect(empty).toContain('a line that names no watched pages watches <code>/</code>.');
    // The page: an uploaded file, and what was refused kept in the box to fix.
    const form = new FormData();
    form.set('sites', '');
    form.set('file', new File(['https://bulk-d.example,,,/\nnot a site at all\n'], 'sites.txt'));
    const page = await app.request('/sites/bulk', { method: 'POST', headers: bearer, body: form });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('1 site added (the daemon checks each within a minute); 1 line refused');
    expect(html).toMatch(/<textarea[^>]*>not a site at all<\/textarea>/);
    // A list that is no UTF-8 text is said to be what it is, and nothing is added.
    const before = (await listed()).length;
    const latin1 = new Uint8Array(Buffer.from('https://caf\u00e9.example,Caf\u00e9\n', 'latin1'));
    const refusedFile = new FormData();
    refusedFile.set('sites', '');
    refusedFile.set('file', new File([latin1], 'sites.csv'));
    const refusedPage = await app.request('/sites/bulk', {
      method: 'POST',
      headers: bearer,
      body: refusedFile,
    });
    expect(await refusedPage.text()).toContain(
      'the file is not UTF-8 text (line 1 is not): save it as UTF-8',
    );
    const zipped = await app.request('/api/v1/sites/bulk', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'text/csv' },
      body: new Uint8Array(gzipSync('https://gz.example\n')),
    });
    expect([zipped.status, errorOf(await zipped.json())]).toEqual([
      400,
      'the list is compressed (gzip): gunzip it first',
    ]);
    expect((await listed()).length).toBe(before);
    const tooMany = await app.request('/api/v1/sites/bulk', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'text/plain' },
      body: Array.from({ length: 1001 }, (_, i) => `https://s${i}.example`).join('\n'),
    });
    expect(tooMany.status).toBe(400);
    expect(errorOf(await tooMany.json())).toBe(
      'the list has 1,001 sites; add at most 1,000 at a time',
    );
  });

  it('gives feed readers a read-only key that opens the feeds and nothing else', async () => {
    const overview = await (
      await app.request('/', { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    const key = /href="\/feed\.atom\?key=([0-9a-f]{32})"/.exec(overview)?.[1];
    expect(key).toBeDefined();
    const status = async (path: string) => (await app.request(path)).status;
    expect(await status('/feed.atom')).toBe(401);
    expect(await status('/feed.atom?key=0123456789abcdef0123456789abcdef')).toBe(401);
    expect(await status(`/feed.atom?key=${key}`)).toBe(200);
    expect(await status(`/sites/${fileSite}/feed.atom?key=${key}`)).toBe(200);
    // Not a token: the API and the pages stay closed to it.
    expect(await status(`/api/v1/sites?key=${key}`)).toBe(401);
    expect(await status(`/sites/${fileSite}?key=${key}`)).toBe(401);
    expect(key).not.toContain(TOKEN);
  });

  it('says where a site’s archived history stands, and that loading it needs the daemon', async () => {
    const archive = await send('GET', `/api/v1/sites/${fileSite}/archive`);
    expect(archive.status).toBe(200);
    expect(archive.body).toEqual({
      captures: 0,
      skipped: 0,
      snapshots: 0,
      first: null,
      last: null,
      loading: null,
    });
    // A body that is not what it should be is refused first, by what is wrong with it.
    const shape = '{"since"?, "until"?, "every"?}';
    for (const [body, message] of [
      ['null', `body: must be an object: ${shape}`],
      ['["2019"]', `body: must be an object: ${shape}`],
      ['{"since": ', `the body must be JSON: ${shape}`],
      [{ since: 2019 }, 'since: must be a day as text (YYYY-MM-DD)'],
      [{ snice: '2019' }, 'body: Unrecognized key: "snice"'],
      [{ since: '2019-02-30' }, 'since: "2019-02-30" is not a day (YYYY-MM-DD, from 1996)'],
      [{ every: 'hour' }, 'every: "hour" is not one of change, day, week, month'],
    ] as const) {
      const refused = await send('POST', `/api/v1/sites/${fileSite}/backfill`, body);
      expect([refused.status, errorOf(refused.body)]).toEqual([400, message]);
    }
    // This app runs no daemon (robowatch serve): the API says what to do instead, whether
    // the body names the captures, is empty or is left out.
    for (const body of [{ since: '2019', every: 'month' }, {}, undefined]) {
      const queued = await send('POST', `/api/v1/sites/${fileSite}/backfill`, body);
      expect(queued.status).toBe(503);
      expect(errorOf(queued.body)).toBe(
        `loading history needs the daemon (robowatch start); or run robowatch backfill ${server.origin}`,
      );
    }
    const page = await (
      await app.request(`/sites/${fileSite}`, { headers: { ...bearer, accept: 'text/html' } })
    ).text();
    expect(page).toContain('no history from the Internet Archive yet');
    expect(page).toContain(`robowatch backfill ${server.origin}</code> loads it`);
    expect(page).not.toContain('Load history');
  });
});
