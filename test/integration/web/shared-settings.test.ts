/**
 * What applies across sites, managed in the UI and API: crawler presets (made, changed,
 * deleted; the sites naming one follow it) and the default recipients and webhooks
 * (added to the file's, reaching the file's sites too). The file's stay the file's; every
 * refusal is one line with its status. On both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createApp } from '../../../src/web/app.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { buildHistory, historyApp, historyConfig } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();
const TOKEN = 'shared-settings-token-0123456789';
const bearer = { authorization: `Bearer ${TOKEN}` };
const form = {
  ...bearer,
  accept: 'text/html',
  'content-type': 'application/x-www-form-urlencoded',
};

interface Preset {
  name: string;
  agents: string[];
  source: string;
  overridden: boolean;
  usedBy: number[];
}
interface SiteDoc {
  id: number;
  agents: { token: string }[];
  notify: { email: string[]; webhooks: { url: string; signed: boolean }[] };
}

describe.each(databaseKinds())('presets and default recipients from the web on %s', (kind) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let readOnly: ReturnType<typeof createApp>;
  let fileSite: number;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = historyConfig(
      server.origin,
      `web: {token: '${TOKEN}'}\npresets: {"@file-bots": [Googlebot, Applebot]}`,
    );
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
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
  };
  const errorOf = (body: unknown) => (body as { error: { message: string } }).error.message;
  const presets = async () =>
    ((await send('GET', '/api/v1/presets')).body as { presets: Preset[] }).presets;
  const site = async (id: number) => (await send('GET', `/api/v1/sites/${id}`)).body as SiteDoc;

  it('lists the built-in presets and the file’s, and refuses changing them', async () => {
    expect((await presets()).map((p) => [p.name, p.source])).toEqual([
      ['@search', 'built-in'],
      ['@ai', 'built-in'],
      ['@ai-major', 'built-in'],
      ['@ai-training', 'built-in'],
      ['@ai-search', 'built-in'],
      ['@ai-user', 'built-in'],
      ['@ai-agent', 'built-in'],
      ['@file-bots', 'file'],
    ]);
    for (const name of ['@ai', '@ai-training']) {
      const builtIn = await send('PUT', `/api/v1/presets/${name}`, { agents: ['GPTBot'] });
      expect(builtIn.status).toBe(400);
      expect(errorOf(builtIn.body)).toBe(`name: ${name} is built in: choose another name`);
    }
    const fileOwn = await send('PUT', '/api/v1/presets/file-bots', { agents: ['GPTBot'] });
    expect(fileOwn.status).toBe(409);
    expect(errorOf(fileOwn.body)).toBe('@file-bots is defined in web-test.yaml: edit it there');
    const fileDelete = await send('DELETE', '/api/v1/presets/@file-bots');
    expect(fileDelete.status).toBe(409);
    expect(errorOf(fileDelete.body)).toBe(
      '@file-bots is defined in web-test.yaml: delete it there',
    );
    expect((await send('DELETE', '/api/v1/presets/@nothing')).status).toBe(404);
  });

  it('refuses bad presets with one line naming what is wrong', async () => {
    const cases: [string, unknown, string][] = [
      ['Shop', { agents: ['Googlebot'] }, 'name: "@Shop" must be a preset name'],
      ['@shop', { agents: ['Google bot'] }, 'agents[0]: must be a crawler product token'],
      ['@shop', { agents: [] }, 'agents: must name at least one crawler'],
      ['@shop', { agents: 'Googlebot' }, 'agents: must be a list of crawler product tokens'],
      ['@shop', { agents: ['*'] }, 'agents[0]: must be a crawler product token'],
      ['@shop', { agents: ['Googlebot'], extra: 1 }, 'unknown key "extra"'],
    ];
    for (const [name, body, message] of cases) {
      const answer = await send('PUT', `/api/v1/presets/${name}`, body);
      expect(answer.status, name).toBe(400);
      expect(errorOf(answer.body)).toContain(message);
    }
    const unknown = await send('POST', '/api/v1/sites', {
      url: 'https://unknown-preset.example',
      watch: ['/'],
      agents: ['@shop'],
    });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown.body)).toBe(
      'agents[0]: unknown preset "@shop" (expected @search, @ai, @ai-major, @ai-training, @ai-search, @ai-user, @ai-agent, @file-bots, or @operator:<name> of the AI crawler registry)',
    );
    const anonymous = await readOnly.request('/api/v1/presets/@shop', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agents: ['Googlebot'] }),
    });
    expect(anonymous.status).toBe(403);
    expect(await presets()).toHaveLength(8);
  });

  it('makes a preset that sites added here use, and changes their crawlers with it', async () => {
    const made = await send('PUT', '/api/v1/presets/@shop-bots', {
      agents: ['Bingbot', 'PetalBot', 'bingbot'],
    });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ name: '@shop-bots', agents: ['Bingbot', 'PetalBot'] });
    const added = await send('POST', '/api/v1/sites', {
      url: 'https://shop.example',
      watch: ['/'],
      agents: ['@shop-bots', '*'],
    });
    expect(added.status).toBe(201);
    const id = (added.body as SiteDoc).id;
    expect((await site(id)).agents.map((a) => a.token)).toEqual(['Bingbot', 'PetalBot', '*']);
    // The file's preset can be named by a site added here too.
    const fileNamed = await send('POST', '/api/v1/sites', {
      url: 'https://apple.example',
      watch: ['/'],
      agents: ['@file-bots'],
    });
    expect((fileNamed.body as SiteDoc).agents.map((a) => a.token)).toEqual([
      'Googlebot',
      'Applebot',
    ]);

    await send('PUT', '/api/v1/presets/shop-bots', { agents: ['Bingbot', 'YandexBot'] });
    expect((await site(id)).agents.map((a) => a.token)).toEqual(['Bingbot', 'YandexBot', '*']);
    expect((await presets()).find((p) => p.name === '@shop-bots')).toMatchObject({
      source: 'api',
      usedBy: [id],
    });

    const inUse = await send('DELETE', '/api/v1/presets/@shop-bots');
    expect(inUse.status).toBe(409);
    expect(errorOf(inUse.body)).toBe(
      '@shop-bots is used by 1 site (https://shop.example): change their crawlers first',
    );
    await send('PATCH', `/api/v1/sites/${id}`, { agents: ['Bingbot'] });
    expect((await send('DELETE', '/api/v1/presets/@shop-bots')).status).toBe(204);
    expect((await presets()).map((p) => p.name)).not.toContain('@shop-bots');
  });

  it('makes, edits and refuses presets through the crawlers page, in the form’s words', async () => {
    const page = await (
      await readOnly.request('/crawlers', { headers: { accept: 'text/html' } })
    ).text();
    expect(page).toContain('Read-only: making presets from the web needs the access token');
    expect(page).not.toContain('New preset');
    const post = (body: Record<string, string>) =>
      app.request('/crawlers/presets', {
        method: 'POST',
        headers: form,
        body: new URLSearchParams(body).toString(),
      });
    const refused = await post({ mode: 'new', name: '@news', agents: 'Googlebot\nGoogle.bot' });
    expect(refused.status).toBe(400);
    const refusedPage = await refused.text();
    expect(refusedPage).toContain(
      'Crawlers (Google.bot): must be a crawler product token (letters, &quot;-&quot;, &quot;_&quot;)',
    );
    expect(refusedPage).toContain('value="@news"'); // what was typed stays
    const saved = await post({ mode: 'new', name: '@news', agents: 'Googlebot, Googlebot-News' });
    expect(saved.status).toBe(303);
    const shown = await (
      await app.request(saved.headers.get('location')!, { headers: form })
    ).text();
    expect(shown).toContain('@news saved: 2 crawlers.');
    expect(shown).toContain('Edit @news');
    const again = await post({ mode: 'new', name: '@news', agents: 'Bingbot' });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('Name: @news exists already: edit it in the list');
    const deleted = await app.request('/crawlers/presets/news/delete', {
      method: 'POST',
      headers: form,
    });
    expect(deleted.status).toBe(303);
    expect((await presets()).map((p) => p.name)).not.toContain('@news');
  });

  it('adds default webhooks that every site without its own alerts, the file’s sites too', async () => {
    const before = await site(fileSite);
    expect(before.notify.webhooks).toEqual([]);
    const noSmtp = await send('PUT', '/api/v1/notifications/defaults', {
      email: ['seo@example.com'],
    });
    expect(noSmtp.status).toBe(400);
    expect(errorOf(noSmtp.body)).toBe(
      'email: needs an SMTP server to send from: set notify.email in the configuration file',
    );
    const badUrl = await send('PUT', '/api/v1/notifications/defaults', {
      webhooks: [{ url: 'ftp://hooks.example/x' }],
    });
    expect(badUrl.status).toBe(400);
    expect(errorOf(badUrl.body)).toBe('webhooks[0].url: must be http or https');

    const saved = await send('PUT', '/api/v1/notifications/defaults', {
      webhooks: [
        { url: 'https://hooks.example/T0/secret-path', secret: 'sign-me', format: 'slack' },
      ],
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      file: { email: [], webhooks: [] },
      added: {
        email: [],
        webhooks: [{ url: 'https://hooks.example/…', format: 'slack', signed: true }],
      },
    });
    // The file's site now alerts it; a site with webhooks of its own keeps only its own.
    expect((await site(fileSite)).notify.webhooks).toEqual([
      { url: 'https://hooks.example/…', format: 'slack', signed: true },
    ]);
    const own = await send('POST', '/api/v1/sites', {
      url: 'https://own-hooks.example',
      watch: ['/'],
      notify: { webhooks: [{ url: 'https://own.example/hook' }] },
    });
    expect((own.body as SiteDoc).notify.webhooks.map((w) => w.url)).toEqual([
      'https://own.example/…',
    ]);
    const channels = (
      (await send('GET', '/api/v1/notifications')).body as {
        channels: { id: string; to: string }[];
      }
    ).channels;
    expect(channels.find((c) => c.id === 'webhook:0')?.to).toBe('https://hooks.example/…');

    // The page's form keeps a webhook's secret when its URL stays.
    const posted = await app.request('/notifications/defaults', {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({
        email: '',
        webhooks: 'https://hooks.example/T0/secret-path slack\nhttps://second.example/hook',
      }).toString(),
    });
    expect(posted.status).toBe(303);
    const defaults = (await send('GET', '/api/v1/notifications/defaults')).body as {
      added: { webhooks: { url: string; signed: boolean }[] };
    };
    expect(defaults.added.webhooks).toEqual([
      { url: 'https://hooks.example/…', format: 'slack', signed: true },
      { url: 'https://second.example/…', format: 'json', signed: false },
    ]);
    // Paging and chat services, one per line with what each needs.
    const services = await app.request('/notifications/defaults', {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({
        email: '',
        webhooks: [
          'https://events.pagerduty.example/v2/enqueue pagerduty routingKey=R0UT1NGKEY0123456789abcdefABCDEF',
          'https://api.telegram.example/bot1:AB/sendMessage telegram chat=-1001234',
          'https://teams.example/webhook teams',
        ].join('\n'),
      }).toString(),
    });
    expect(services.status).toBe(303);
    const formats = (await send('GET', '/api/v1/notifications')).body as {
      channels: { format: string | null }[];
    };
    expect(formats.channels.map((c) => c.format)).toEqual(
      expect.arrayContaining(['pagerduty', 'telegram', 'teams']),
    );
    const page = await (
      await app.request('/notifications', { headers: { ...form, accept: 'text/html' } })
    ).text();
    expect(page).toContain('routingKey=R0UT1NGKEY0123456789abcdefABCDEF');
    expect(page).toContain('PagerDuty events (incidents)');
    // Where a webhook added here may be posted, as this configuration's fetch setting has it.
    expect(page).toContain(
      'A webhook added here: it is posted to public addresses and to this machine only, not to a private network (fetch.allowPrivateAddresses: loopback)',
    );
    const keyless = await app.request('/notifications/defaults', {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({
        email: '',
        webhooks: 'https://events.pagerduty.example/v2/enqueue pagerduty',
      }).toString(),
    });
    expect(keyless.status).toBe(400);
    expect(await keyless.text()).toContain(
      'Webhooks (https://events.pagerduty.example/v2/enqueue): PagerDuty needs the integration’s routing key (Events API v2)',
    );
    const refused = await app.request('/notifications/defaults', {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ email: 'seo@example.com', webhooks: '' }).toString(),
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(
      'Alert emails to: needs an SMTP server to send from: set notify.email in the configuration file',
    );
    await send('PUT', '/api/v1/notifications/defaults', {});
    expect((await site(fileSite)).notify.webhooks).toEqual([]);
  });
});
