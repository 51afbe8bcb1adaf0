/**
 * The services teams page and chat in, driven by incidents, on both databases, against
 * loopback stand-ins that check each payload as the service documents it: PagerDuty gets
 * trigger, acknowledge and resolve with one dedup key across an incident's life; Teams,
 * Discord and Telegram get the incident's alerts with the site's name and the cause
 * first, and its digest; Send a test works for each; nothing any of them would refuse.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { checkSites } from '../../../src/monitor/check/batch.js';
import { sendTestNotification } from '../../../src/monitor/delivery/send-test.js';
import { createWebhookChannel } from '../../../src/notify/webhook-channel.js';
import { linksFrom } from '../../../src/policy/links.js';
import { createDaemonStore } from '../../../src/store/index.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { deliverOnce } from '../../support/job-engine.js';
import { ServiceReceivers } from '../../support/service-receivers.js';
import { START, checkDepsOn, historyApp } from '../../support/site-history.js';

const TOKEN = 'services-token-0123456789abcdef';
const bearer = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const ROUTING_KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
const FINE = 'User-agent: *\nDisallow: /admin/\n';
const BROKEN = 'User-agent: *\nDisallow: /admin/\nDisallow: /pricing\n';
const MINUTE = 60_000;

const { server: shop, fetcher } = useLoopbackSite();
const services = new ServiceReceivers();
const dispatcher = new Agent({ pipelining: 0 });
beforeAll(() => services.start());
afterAll(async () => {
  await dispatcher.close();
  await services.stop();
});

interface Trigger {
  event_action: string;
  dedup_key: string;
  payload?: { summary: string; severity: string; source: string };
}

describe.each(databaseKinds())('paging and chat services on %s', (kind) => {
  let database: TestDatabase;
  let config: Config;
  let app: ReturnType<typeof historyApp>;
  const clock = { now: START };
  const at = (minutes: number) => (clock.now = new Date(START.getTime() + minutes * MINUTE));
  const context = () => ({ links: linksFrom('https://rw.example'), timeZone: 'UTC' });
  const deliver = () =>
    deliverOnce(database.handle, {
      smtpUrl: 'smtp://127.0.0.1:1',
      dispatcher,
      secretFor: () => undefined,
      context,
      now: () => clock.now,
      retry: config.notify.retry,
    });
  const check = async (body: string) => {
    shop.serve('/robots.txt', 200, body);
    const response = await app.request('/api/v1/sites/1/check', {
      method: 'POST',
      headers: bearer,
    });
    expect(response.status).toBe(200);
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    services.received.length = 0;
    config = parseConfig(
      `agents: [Googlebot]
intent:
  - {watch: '/*', agents: [Googlebot], expect: allowed}
  - {watch: /admin/, agents: [Googlebot], expect: disallowed}
sites:
  - {url: '${shop.origin}', name: Shop, watch: [/, /pricing, /admin/]}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  events: [incidents]
  flapWindow: 1h
  webhooks:
    - {url: '${services.url}/v2/enqueue', format: pagerduty, routingKey: ${ROUTING_KEY}}
    - {url: '${services.url}/teams/incoming', format: teams}
    - {url: '${services.url}/api/webhooks/123/secret-token', format: discord}
    - {url: '${services.url}/bot123:ABC/sendMessage', format: telegram, chat: -1001234}
web: {token: '${TOKEN}'}`,
      { file: 'services.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const deps = checkDepsOn(database.handle.db, fetcher, clock);
    app = historyApp(database.handle.db, config, deps, clock, undefined, {
      sendTest: (channel) =>
        sendTestNotification(
          {
            webhook: createWebhookChannel({
              dispatcher,
              secretFor: () => undefined,
              userAgent: 'robowatch-test',
              timeoutMs: 5_000,
              loadDigest: (id) => createDaemonStore(database.handle.db).digests.loadDigest(id),
              context,
            }),
          },
          channel,
          clock.now,
        ),
    });
    shop.serve('/robots.txt', 200, FINE);
    await checkSites(deps, config.sites, { concurrency: 1 });
  });
  afterAll(() => database.close());

  it('pages PagerDuty through an incident’s life with one key, and tells the chats', async () => {
    const host = new URL(shop.origin).host;
    const title = `Shop (${host}): not as intended: /pricing is blocked for Googlebot`;
    at(10);
    await check(BROKEN);
    expect(await deliver()).toEqual({ sent: 4, failed: 0 });
    expect(services.received.filter((r) => r.refused !== null)).toEqual([]);
    const [trigger] = services.of('pagerduty') as Trigger[];
    expect(trigger).toMatchObject({
      event_action: 'trigger',
      payload: { summary: title, severity: 'error', source: host },
    });
    const teams = services.of('teams')[0] as {
      attachments: { content: { body: { inlines: { text: string }[] }[] } }[];
    };
    const card = teams.attachments[0]!.content.body;
    expect(card[0]!.inlines[0]!.text).toBe(title);
    expect(card.map((b) => b.inlines.map((i) => i.text).join('')).join('\n')).toContain(
      '• /pricing is blocked for Googlebot, meant to be crawled',
    );
    const discord = services.of('discord')[0] as {
      embeds: { title: string; description: string }[];
    };
    expect(discord.embeds[0]!.title).toBe(title);
    expect(discord.embeds[0]!.description).toContain(
      '- `/pricing` is blocked for Googlebot, meant to be crawled',
    );
    const telegram = services.of('telegram')[0] as { chat_id: number; text: string };
    expect(telegram.chat_id).toBe(-1001234);
    expect(telegram.text.split('\n')[0]).toBe(`<b>${title}</b>`);
    expect(telegram.text).toContain('<code>/pricing</code> is blocked for Googlebot');

    // Acknowledged in robowatch: PagerDuty acknowledges its incident; the chats hear nothing.
    const [incident] = (
      (await (await app.request('/api/v1/incidents', { headers: bearer })).json()) as {
        incidents: { id: number }[];
      }
    ).incidents;
    const ack = await app.request(`/api/v1/incidents/${incident!.id}/ack`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ note: 'rolling back', by: 'Ana' }),
    });
    expect(ack.status).toBe(200);
    at(15);
    expect(await deliver()).toEqual({ sent: 1, failed: 0 });
    // The fix: resolved once the flap window has passed.
    at(20);
    await check(FINE);
    at(81);
    expect(await deliver()).toEqual({ sent: 4, failed: 0 });
    const events = services.of('pagerduty') as Trigger[];
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'acknowledge', 'resolve']);
    expect(new Set(events.map((e) => e.dedup_key)).size).toBe(1);
    expect(events[0]!.dedup_key).toBe(`robowatch:${host}:incident:${incident!.id}`);
    const resolved = services.of('discord')[1] as { embeds: { title: string; color: number }[] };
    expect(resolved.embeds[0]!.title).toBe(`Shop (${host}): as intended again after 10 min`);
    expect(services.of('teams')).toHaveLength(2);
    expect(services.of('telegram')).toHaveLength(2);
    expect(services.received.filter((r) => r.refused !== null)).toEqual([]);
  });

  it('sends the chats the digest, and PagerDuty none', async () => {
    services.received.length = 0;
    const sent = await app.request('/api/v1/digests/send', {
      method: 'POST',
      headers: bearer,
      body: '{}',
    });
    expect(sent.status).toBe(200);
    const { digests } = (await sent.json()) as { digests: { recipient: string }[] };
    expect(digests).toHaveLength(3); // Teams, Discord, Telegram
    expect(await deliver()).toEqual({ sent: 3, failed: 0 });
    expect(services.received.filter((r) => r.refused !== null)).toEqual([]);
    expect(services.of('pagerduty')).toEqual([]);
    const discord = services.of('discord')[0] as {
      embeds: { title: string; description: string }[];
    };
    expect(discord.embeds[0]!.title).toMatch(/^robowatch digest /);
    expect(discord.embeds[0]!.description).toContain('Broke and recovered this period');
    const telegram = services.of('telegram')[0] as { text: string };
    expect(telegram.text).toContain('Broke and recovered this period');
    expect(services.of('teams')).toHaveLength(1);
  });

  it('sends a test through each service, PagerDuty’s resolved at once', async () => {
    services.received.length = 0;
    const { channels } = (await (
      await app.request('/api/v1/notifications', { headers: bearer })
    ).json()) as { channels: { id: string; format: string | null }[] };
    const hooks = channels.filter((c) => c.format !== null);
    expect(hooks.map((c) => c.format).sort()).toEqual([
      'discord',
      'pagerduty',
      'teams',
      'telegram',
    ]);
    for (const channel of hooks) {
      const sent = await app.request('/api/v1/notifications/test', {
        method: 'POST',
        headers: bearer,
        body: JSON.stringify({ channel: channel.id }),
      });
      expect(sent.status, channel.format!).toBe(200);
    }
    expect(services.received.filter((r) => r.refused !== null)).toEqual([]);
    expect((services.of('pagerduty') as Trigger[]).map((e) => e.event_action)).toEqual([
      'trigger',
      'resolve',
    ]);
    expect(services.of('telegram')).toHaveLength(1);
  });

  it('says what a service refused, in its own words', async () => {
    const channel = createWebhookChannel({
      dispatcher,
      secretFor: () => undefined,
      userAgent: 'robowatch-test',
      timeoutMs: 5_000,
      loadDigest: () => Promise.resolve(undefined),
      context,
    });
    // A routing key PagerDuty does not take (not 32 characters).
    await expect(
      channel.send({
        id: 0,
        key: 'k',
        channel: 'webhook',
        destination: `${services.url}/v2/enqueue#routing_key=short`,
        payload: { kind: 'test', site: null, format: 'pagerduty' },
        attempts: 0,
        createdAt: clock.now,
      }),
    ).rejects.toThrow(/answered 400: \["routing_key: .*"\]/);
  });
});
