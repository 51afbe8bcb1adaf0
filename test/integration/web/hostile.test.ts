/**
 * The web app against hostile requests: the tester as an amplifier, sign-in redirects,
 * cross-site forms, ids and bytes the database refuses, and "Check now" many times at
 * once. Each answer is a 4xx or 5xx that says why in one line, and nothing is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/lib/metrics.js';
import { TesterThread } from '../../../src/monitor/threads/tester-thread.js';
import type { CheckDeps } from '../../../src/monitor/ports.js';
import type { createApp } from '../../../src/web/app.js';
import { createTestDatabase } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { HISTORY, buildHistory, historyApp, historyConfig } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();
const TOKEN = 'correct-horse-battery-staple';
const bearer = { authorization: `Bearer ${TOKEN}` };

let database: TestDatabase;
let deps: CheckDeps;
let clock: { now: Date };
let app: ReturnType<typeof createApp>;
let tester: TesterThread;

beforeAll(async () => {
  database = await createTestDatabase('pglite');
  const config = historyConfig(server.origin, `web: {token: '${TOKEN}'}`);
  ({ deps, clock } = await buildHistory(database.handle.db, server, fetcher, config));
  tester = new TesterThread({ timeoutMs: 2_000, maxWaiting: 1 });
  app = historyApp(database.handle.db, config, deps, clock, createMetrics(), { tester });
});
afterAll(async () => {
  await tester.close();
  server.routes.clear();
  await database.close();
});

const postTest = (body: unknown) =>
  app.request('/api/v1/test', {
    method: 'POST',
    headers: { ...bearer, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
/** Crawler tokens are letters, "-" and "_": BotA, BotB, …, BotAA, … */
const bots = (n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `Bot${i.toString(26).replace(/./g, (d) => String.fromCharCode(65 + parseInt(d, 26)))}`,
  );
/** Resolves once `condition` holds, checking every 10 ms for up to a minute. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not hold within a minute');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { message: string } }).error.message;

describe('the tester', () => {
  it('refuses a file larger than Google reads with 413', async () => {
    const response = await postTest({
      robotstxt: `User-agent: *\n${'Disallow: /x\n'.repeat(50_000)}`,
      agents: ['Googlebot'],
      urls: ['https://e.com/'],
    });
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toBe(
      'the robots.txt is 650,014 bytes; Google reads only the first 512,000, so test at most that',
    );
  });

  it('refuses more verdicts than a table holds with 422', async () => {
    const response = await postTest({
      robotstxt: 'User-agent: *\nDisallow: /\n',
      agents: bots(50),
      urls: Array.from({ length: 1000 }, (_, i) => `https://e.com/${i}`),
    });
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toBe(
      '1000 URLs × 50 crawlers is 50,000 verdicts; test at most 10,000 at a time',
    );
  });

  it('refuses an overlong URL with 422, naming its line', async () => {
    const response = await postTest({
      robotstxt: 'User-agent: *\nDisallow: /\n',
      agents: ['Googlebot'],
      urls: ['https://e.com/', `https://e.com/${'a'.repeat(3000)}`],
    });
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toBe(
      'urls, line 2: a URL of 3014 characters is too long (at most 2048)',
    );
  });

  it('refuses a result too large to send with 422, instead of amplifying the request', async () => {
    // 1.3 MB asked for 100 MB before: long URLs, each row repeating them.
    const response = await postTest({
      robotstxt: 'User-agent: *\nDisallow: /a\n',
      agents: bots(10),
      urls: Array.from({ length: 1000 }, (_, i) => `https://e.com/a${'x'.repeat(2000)}${i}`),
    });
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toMatch(
      /^the result would be at least 20\.\d MB \(at most 8 MB\): test fewer or shorter URLs, or fewer crawlers$/,
    );
  });

  it('stops a file made to be slow at its deadline, keeps answering meanwhile, and works after', async () => {
    const slow = postTest({
      robotstxt:
        // Every rule needs a scan of each whole path: its piece is not in the path,
        // though every pair of characters of it is (so no shortcut rules it out).
        `User-agent: *\n${Array.from({ length: 20_000 }, (_, i) => `Disallow: /*aaaaaaaaaa*${i}$`).join('\n')}`.slice(
          0,
          500_000,
        ),
      agents: ['*', 'Googlebot', 'Bingbot', 'GPTBot', 'CCBot'],
      urls: Array.from({ length: 1000 }, (_, i) => `https://e.com/${'aabb'.repeat(375)}${i}`),
    });
    await until(() => tester.pending === 1);
    // While it runs on its own thread, the app answers (the event loop is free).
    const health = await app.request('/healthz', { headers: bearer });
    expect(health.status).toBe(200);
    // One more may wait its turn; the next is told to come back.
    const small = { robotstxt: 'User-agent: *\n', agents: ['Googlebot'], urls: ['https://e.com/'] };
    const waiting = postTest(small);
    await until(() => tester.pending === 2);
    const busy = await postTest(small);
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('60');
    expect(await errorOf(busy)).toBe('the tester is busy with other tests; try again in a minute');

    const response = await slow;
    expect(response.status).toBe(422);
    expect(await errorOf(response)).toBe(
      'evaluating took over 2 s and was stopped: test fewer URLs or crawlers, or a file with fewer wildcard rules',
    );
    expect((await waiting).status).toBe(200);
  });

  it('cuts a huge rule in each row to 300 characters', async () => {
    const pattern = `/${'*'.repeat(5000)}a`;
    const response = await postTest({
      robotstxt: `User-agent: *\nDisallow: ${pattern}\n`,
      agents: ['Googlebot'],
      urls: ['https://e.com/a'],
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as {
      rows: { proposed: { allowed: boolean; cause: { pattern: string; line: number } } }[];
    };
    expect(result.rows[0]!.proposed).toMatchObject({ allowed: false, cause: { line: 2 } });
    expect(result.rows[0]!.proposed.cause.pattern).toBe(`${pattern.slice(0, 300)}…`);
  });

  it('says why on the form page too, keeping what was typed', async () => {
    const response = await app.request('/tester', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        site: '',
        robots: 'User-agent: *\n',
        agents: 'Googlebot',
        urls: `https://e.com/${'a'.repeat(3000)}`,
      }),
    });
    expect(response.status).toBe(422);
    expect(await response.text()).toContain('urls, line 1: a URL of 3014 characters is too long');
  });
});

describe('signing in', () => {
  it.each([
    ['/\t/evil.example', '/'],
    ['/\n/evil.example', '/'],
    ['/sites/1\r\nSet-Cookie: x=1', '/'],
    ['//evil.example', '/'],
    ['/\\evil.example', '/'],
    ['https://evil.example/', '/'],
    ['/sites/1?kind=rules#changes', '/sites/1?kind=rules#changes'],
  ])('goes to %j as %j after signing in', async (next, location) => {
    const response = await app.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
      body: new URLSearchParams({ token: TOKEN, next }),
    });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(location);
  });

  it('never lets an Authorization header that is not a Bearer token skip the cross-site check', async () => {
    const signIn = await app.request('/login', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost' },
      body: new URLSearchParams({ token: TOKEN, next: '/' }),
    });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const forged = await app.request('/sites/1/check', {
      method: 'POST',
      headers: {
        cookie,
        authorization: 'Basic Zm9vOmJhcg==',
        origin: 'https://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
      },
    });
    expect(forged.status).toBe(403);
    // And such a header does not sign in by the cookie either.
    const api = await app.request('/api/v1/sites', {
      headers: { cookie, authorization: 'Basic Zm9vOmJhcg==' },
    });
    expect(api.status).toBe(401);
  });
});

describe('what the database cannot take', () => {
  it.each([
    [
      '/api/v1/sites/2147483648',
      'site must be a whole number from 1 to 2147483647, not 2147483648',
    ],
    [
      '/api/v1/sites/9999999999999999/snapshots',
      'site must be a whole number from 1 to 2147483647, not 9999999999999999',
    ],
    [
      '/api/v1/snapshots/4294967296',
      'snapshot must be a whole number from 1 to 2147483647, not 4294967296',
    ],
    [
      '/api/v1/sites/1/changes?before=2147483648',
      'before must be a whole number from 1 to 2147483647, not 2147483648',
    ],
    [
      '/api/v1/sites/1/verdicts/history?url=%00&agent=Googlebot',
      'the address contains a NUL byte (%00)',
    ],
    [
      '/api/v1/sites/1/verdicts/history?url=https://e.com/&agent=Google%00bot',
      'the address contains a NUL byte (%00)',
    ],
    ['/api/v1/sites?q=%00', 'the address contains a NUL byte (%00)'],
  ])('answers %s with 400', async (path, message) => {
    const response = await app.request(path, { headers: bearer });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toBe(message);
  });

  it('answers pages with ids past 2^31 with 400 too', async () => {
    for (const path of [
      '/sites/2147483648',
      '/sites/1/snapshots/2147483648',
      '/digests/2147483648',
    ]) {
      const response = await app.request(path, { headers: bearer });
      expect(response.status, path).toBe(400);
    }
  });
});

describe('a form that is not one', () => {
  it.each([
    '/sites/new',
    '/sites/bulk',
    '/sites/1/intent/accept',
    '/tester',
    '/notifications/defaults',
    '/crawlers/presets',
  ])('answers a broken multipart body posted to %s with 400, and changes nothing', async (path) => {
    const sites = await app.request('/api/v1/sites?limit=500', { headers: bearer });
    for (const contentType of ['multipart/form-data; boundary=zz', 'multipart/form-data']) {
      const response = await app.request(path, {
        method: 'POST',
        headers: { ...bearer, 'content-type': contentType },
        body: 'url=https%3A%2F%2Fexample.com%2F',
      });
      expect(response.status, contentType).toBe(400);
      expect(await response.text()).toContain(
        'the form could not be read: its body is not the multipart/form-data its Content-Type names',
      );
    }
    const after = await app.request('/api/v1/sites?limit=500', { headers: bearer });
    expect(await after.json()).toEqual(await sites.json());
  });
});

describe('text the database cannot store, and lists past their limits', () => {
  const other = () => server.origin.replace('127.0.0.1', 'localhost');
  const json = (method: string, path: string, body: unknown) =>
    app.request(path, {
      method,
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const siteCount = async () =>
    (
      (await (await app.request('/api/v1/sites?limit=500', { headers: bearer })).json()) as {
        sites: unknown[];
      }
    ).sites.length;
  const NUL = 'must not contain a NUL character (\\u0000)';
  const LONE = 'must be Unicode text: it has half of a surrogate pair (\\ud800) alone';

  it.each([
    [{ watch: ['/a\u0000b'] }, `watch[0]: ${NUL}`],
    [{ watch: ['/'], name: 'Shop \ud800' }, `name: ${LONE}`],
    [
      { watch: ['/'], notify: { webhooks: [{ url: 'https://hooks.example/\u0000' }] } },
      `notify.webhooks[0].url: ${NUL}`,
    ],
    [
      {
        watch: ['/'],
        notify: { webhooks: [{ url: 'https://hooks.example/', secret: 'k\u0000' }] },
      },
      `notify.webhooks[0].secret: ${NUL}`,
    ],
    [{ watch: ['/'], notify: { email: ['seo\ud800@example.com'] } }, `notify.email[0]: ${LONE}`],
    [{ watch: ['/'], 'na\u0000me': 'x' }, `(top level): a key ${NUL}`],
  ])(
    'refuses %j when a site is added, naming the field, and writes nothing',
    async (settings, message) => {
      const before = await siteCount();
      const response = await json('POST', '/api/v1/sites', { url: other(), ...settings });
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toBe(message);
      expect(await siteCount()).toBe(before);
    },
  );

  it('refuses such text in an origin, an edit, a list and the default recipients', async () => {
    const added = await json('POST', '/api/v1/sites', { url: other(), watch: ['/'] });
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as { id: number };
    const before = await siteCount();

    const origin = await json('POST', '/api/v1/sites', { url: 'https://exa\u0000mple.com' });
    expect([origin.status, await errorOf(origin)]).toEqual([400, `url: ${NUL}`]);

    const edit = await json('PATCH', `/api/v1/sites/${id}`, { watch: ['/', '/x\ud800'] });
    expect([edit.status, await errorOf(edit)]).toEqual([400, `watch[1]: ${LONE}`]);

    const bulk = await app.request('/api/v1/sites/bulk', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'text/plain' },
      body: `https://bulk-one.example,Shop\u0000,,/\n`,
    });
    expect(bulk.status).toBe(200);
    expect(await bulk.json()).toMatchObject({
      added: 0,
      refused: 1,
      lines: [{ line: 1, outcome: 'refused', message: `name: ${NUL}` }],
    });

    const defaults = await json('PUT', '/api/v1/notifications/defaults', {
      webhooks: [{ url: 'https://hooks.example/x', secret: '\ud800' }],
    });
    expect([defaults.status, await errorOf(defaults)]).toEqual([
      400,
      `webhooks[0].secret: ${LONE}`,
    ]);
    expect(
      await (await app.request('/api/v1/notifications/defaults', { headers: bearer })).json(),
    ).toMatchObject({ added: { email: [], webhooks: [] } });

    const preset = await json('PUT', '/api/v1/presets/@shop', { agents: ['Googlebot\u0000'] });
    expect([preset.status, await errorOf(preset)]).toEqual([400, `agents[0]: ${NUL}`]);

    // The form: what was typed stays, with the refusal, and nothing is added.
    const form = await app.request('/sites/new', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
      body: `url=${encodeURIComponent(other().replace('localhost', 'localhost.'))}&name=Shop%00&watch=%2F`,
    });
    expect(form.status).toBe(400);
    expect(await form.text()).toContain(NUL);
    expect(await siteCount()).toBe(before);
  });

  it('refuses such text in the body of every API route and every form that keeps what it is sent', async () => {
    const before = await siteCount();
    const document = (await (
      await app.request('/api/v1/openapi.json', { headers: bearer })
    ).json()) as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
    const routes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => operation.requestBody !== undefined)
        .map(([method, operation]) => ({ method, path, operation })),
    );
    expect(routes.length).toBeGreaterThan(10);
    for (const { method, path } of routes) {
      if (path === '/api/v1/test') continue; // kept nowhere: below
      const at = path.replace(/\{id\}/, '1').replace(/\{name\}/, 'shop-bots');
      const sent = [
        [{ note: 'a\u0000b' }, `note: ${NUL}`],
        [['\ud800'], `[0]: ${LONE}`],
      ] as const;
      for (const [body, message] of sent) {
        const response = await json(method.toUpperCase(), at, body);
        expect([method, at, response.status]).toEqual([method, at, 400]);
        expect(await errorOf(response)).toBe(message);
      }
    }
    for (const path of ['/sites/new', '/sites/1/intent/accept', '/notifications/defaults']) {
      const response = await app.request(path, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ url: 'https://example.com', name: 'Sh\u0000op' }),
      });
      expect([path, response.status]).toEqual([path, 400]);
      expect(await response.text()).toContain(`name: ${NUL}`);
    }
    expect(await siteCount()).toBe(before);

    // The tester keeps nothing: a file with a NUL is tested like any other.
    const file = 'User-agent: *\nDisallow: /a\u0000\nDisallow: /private\n';
    const tested = await postTest({
      robotstxt: file,
      agents: ['Googlebot'],
      urls: ['https://example.com/private'],
    });
    expect(tested.status).toBe(200);
    expect(JSON.stringify(await tested.json())).toContain('"allowed":false');
    const page = await app.request('/tester', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        site: '',
        robots: file,
        agents: 'Googlebot',
        urls: 'https://example.com/private',
      }),
    });
    expect(page.status).toBe(200);
  });

  it('caps the recipients of a site and of the defaults at 100 each', async () => {
    const hooks = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ url: `https://hooks.example/${i}` }));
    const site = await json('POST', '/api/v1/sites', {
      url: 'https://many-hooks.example',
      watch: ['/'],
      notify: { webhooks: hooks(20_000) },
    });
    expect([site.status, await errorOf(site)]).toEqual([
      400,
      'notify.webhooks: must list at most 100 webhooks',
    ]);
    const email = await json('PUT', '/api/v1/notifications/defaults', {
      email: Array.from({ length: 101 }, (_, i) => `seo${i}@example.com`),
    });
    expect([email.status, await errorOf(email)]).toEqual([
      400,
      'email: must list at most 100 addresses (send to a mailing list for more)',
    ]);
    const defaults = await json('PUT', '/api/v1/notifications/defaults', {
      webhooks: hooks(20_000),
    });
    expect([defaults.status, await errorOf(defaults)]).toEqual([
      400,
      'webhooks: must list at most 100 webhooks',
    ]);
    expect(
      (await json('PUT', '/api/v1/notifications/defaults', { webhooks: hooks(100) })).status,
    ).toBe(200);
    expect((await json('PUT', '/api/v1/notifications/defaults', { webhooks: [] })).status).toBe(
      200,
    );
  });

  it('says the limit when a site lists too many watches', async () => {
    const response = await json('POST', '/api/v1/sites', {
      url: 'https://many-watches.example',
      watch: Array.from({ length: 2_001 }, (_, i) => `/${i}`),
    });
    expect([response.status, await errorOf(response)]).toEqual([
      400,
      'watch: must list at most 1,000 URLs',
    ]);
  });

  it('refuses a schedule of less than 5 minutes between checks from the API', async () => {
    const fast = await json('POST', '/api/v1/sites', {
      url: 'https://every-second.example',
      watch: ['/'],
      schedule: '* * * * * *',
    });
    expect([fast.status, await errorOf(fast)]).toEqual([
      400,
      'schedule: must leave at least 5 minutes between checks ("* * * * * *" checks again after 1 s); a faster schedule belongs in the configuration file',
    ]);
    const everyMinute = await json('POST', '/api/v1/sites', {
      url: 'https://every-minute.example',
      watch: ['/'],
      schedule: '*/1 3 * * *',
    });
    expect(await errorOf(everyMinute)).toContain('checks again after 1 min');
    const hourly = await json('POST', '/api/v1/sites', {
      url: 'https://hourly.example',
      watch: ['/'],
      schedule: '0 * * * *',
    });
    expect(hourly.status).toBe(201);
    const { id } = (await hourly.json()) as { id: number };
    const faster = await json('PATCH', `/api/v1/sites/${id}`, { schedule: '*/2 * * * *' });
    expect(faster.status).toBe(400);
    expect((await json('PATCH', `/api/v1/sites/${id}`, { schedule: '*/5 * * * *' })).status).toBe(
      200,
    );
  });
});

describe('Check now, twenty times at once on a changed file', () => {
  it('records the change once and answers every request', async () => {
    server.serve('/robots.txt', 200, `${HISTORY.v1}Disallow: /concurrent\n`);
    clock.now = new Date(clock.now.getTime() + 60_000);
    const responses = await Promise.all(
      Array.from({ length: 20 }, async () =>
        app.request('/api/v1/sites/1/check', { method: 'POST', headers: bearer }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array<number>(20).fill(200));
    const kinds = await Promise.all(
      responses.map(async (r) => ((await r.json()) as { kind: string }).kind),
    );
    expect(kinds.filter((k) => k === 'changed')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'unchanged')).toHaveLength(19);
    const changes = (await (
      await app.request('/api/v1/sites/1/changes?limit=50', { headers: bearer })
    ).json()) as { changes: { snapshotId: number }[] };
    const snapshots = new Set(changes.changes.map((c) => c.snapshotId));
    expect(snapshots.size).toBe(changes.changes.length);
  });
});
