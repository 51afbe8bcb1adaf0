/**
 * The SSRF guard on webhooks: one the configuration file lists is the operator's own and
 * may be on this machine or an internal network; one added in the UI or API (a default
 * or a site's) reaches public addresses only, unless fetch.allowPrivateAddresses is on
 * (true: any address; loopback: this machine's too). The loopback receiver plays the
 * private address: an address written in the URL is refused before any connection, and a
 * name is refused by the lookup the connection uses. The guard is the daemon's own
 * (createWebhookGuard, over the node platform's dispatcher).
 */
import { randomUUID } from 'node:crypto';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDefaultChannels } from '../../../src/config/notify.js';
import { parseConfig } from '../../../src/config/validate.js';
import type { Config } from '../../../src/config/config.js';
import { createWebhookGuard } from '../../../src/compose-delivery.js';
import { webhookNeedsPublicAddress } from '../../../src/monitor/delivery/webhook-secrets.js';
import { createWebhookChannel } from '../../../src/notify/webhook-channel.js';
import { linksFrom } from '../../../src/policy/links.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';
import { quietNodeContext } from '../../support/node-context.js';

const receiver = new WebhookReceiver('s3cret');
const plain = new Agent({ pipelining: 0 });
const context = quietNodeContext();
const guards: { close(): Promise<void> }[] = [];
beforeAll(() => receiver.start());
afterAll(async () => {
  await receiver.stop();
  await Promise.all([plain.close(), ...guards.map((g) => g.close())]);
});

function running(allowPrivate: boolean | 'loopback'): Config {
  const file = parseConfig(
    `
fetch: {allowPrivateAddresses: ${allowPrivate}}
sites:
  - {url: https://shop.example, watch: [/]}
notify:
  webhooks: [{url: ${receiver.url}/file}]
`,
    { file: 'robowatch.yaml', cwd: '/tmp', env: {}, version: 'test' },
  );
  // A default webhook added in the UI, as the catalog adds it to the file's.
  const added = [
    `${receiver.url}/added`,
    `${receiver.url.replace('127.0.0.1', 'localhost')}/added`,
  ];
  return {
    ...file,
    notify: withDefaultChannels(file.notify, {
      email: [],
      webhooks: added.map((url) => ({ url, secret: undefined, format: 'json' as const })),
    }),
  };
}

/** The webhook channel with the daemon's guard, started with `config`, now running `current`. */
function channel(config: Config, current = () => config) {
  const guard = createWebhookGuard(context, config, current);
  guards.push(guard.dispatcher);
  return createWebhookChannel({
    dispatcher: plain,
    secretFor: () => undefined,
    userAgent: 'robowatch/test',
    timeoutMs: 10_000,
    loadDigest: () => Promise.resolve(undefined),
    context: () => ({ links: linksFrom('https://rw.example.com'), timeZone: 'UTC' }),
    guard,
  });
}

const test = (destination: string) => ({
  id: 0,
  key: randomUUID(),
  channel: 'webhook' as const,
  destination,
  payload: { kind: 'test' as const, site: null },
  attempts: 0,
  createdAt: new Date('2026-06-01T12:00:00Z'),
});

describe('webhooks and private addresses', () => {
  it("posts the file's webhook, and refuses one added in the UI at a private address", async () => {
    const config = running(false);
    const webhooks = channel(config);
    receiver.received.length = 0;
    await webhooks.send(test(`${receiver.url}/file`));
    expect(receiver.received.map((r) => r.path)).toEqual(['/file']);

    const advice =
      'is refused: robowatch posts to private addresses only for the webhooks the configuration file lists, or with fetch.allowPrivateAddresses';
    // The address in the URL: refused before any connection.
    await expect(webhooks.send(test(`${receiver.url}/added`))).rejects.toThrow(
      `${receiver.url}/… ${advice} (127.0.0.1 is a private or reserved address)`,
    );
    // A name: refused by the lookup the connection is opened with.
    const named = `${receiver.url.replace('127.0.0.1', 'localhost')}/added`;
    const refused = await webhooks.send(test(named)).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(refused?.message).toBe(`${new URL(named).origin}/… ${advice}`);
    expect((refused?.cause as Error | undefined)?.message).toBe(
      'localhost resolves only to private or reserved addresses',
    );
    expect(receiver.received.map((r) => r.path)).toEqual(['/file']);
  });

  it("judges a site's own webhooks by where the site is kept: the file's, or the API's", () => {
    const file = parseConfig(
      `
sites:
  - url: https://shop.example
    watch: [/]
    notify: {webhooks: [{url: http://127.0.0.2/shop-hook}]}
`,
      { file: 'robowatch.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const [shop] = file.sites;
    // A site added through the API, with a webhook of its own.
    const api = {
      ...shop!,
      origin: 'https://blog.example',
      managedBy: 'api' as const,
      alerts: {
        ...shop!.alerts,
        webhooks: [
          { url: 'http://127.0.0.3/blog-hook', secret: undefined, format: 'json' as const },
        ],
      },
    };
    const needsPublic = webhookNeedsPublicAddress(
      () => ({ ...file, sites: [shop!, api] }),
      file.fetch.allowPrivateAddresses,
    );
    expect(needsPublic('http://127.0.0.2/shop-hook')).toBe(false);
    expect(needsPublic('http://127.0.0.3/blog-hook')).toBe(true);
  });

  it("connects the daemon's guarded client to public addresses only", async () => {
    const guarded = context.createDispatcher({ guard: false });
    const open = context.createDispatcher();
    try {
      const port = new URL(receiver.url).port;
      const post = (dispatcher: typeof open) =>
        dispatcher.request({ origin: `http://localhost:${port}`, path: '/named', method: 'POST' });
      await expect(post(guarded)).rejects.toMatchObject({
        code: 'ROBOWATCH_BLOCKED_ADDRESS',
        message: 'localhost resolves only to private or reserved addresses',
      });
      receiver.received.length = 0;
      await (await post(open)).body.dump();
      expect(receiver.received.map((r) => r.path)).toEqual(['/named']);
    } finally {
      await Promise.all([guarded.close(), open.close()]);
    }
  });

  it('posts every webhook with fetch.allowPrivateAddresses on', async () => {
    const webhooks = channel(running(true));
    receiver.received.length = 0;
    await webhooks.send(test(`${receiver.url}/added`));
    await webhooks.send(test(`${receiver.url.replace('127.0.0.1', 'localhost')}/added`));
    expect(receiver.received.map((r) => r.path)).toEqual(['/added', '/added']);
  });

  it('keeps the setting it started with when a reload turns allowPrivateAddresses on: fetch applies at the next start', async () => {
    const reloaded = running(true);
    const webhooks = channel(running(false), () => reloaded);
    receiver.received.length = 0;
    await expect(webhooks.send(test(`${receiver.url}/added`))).rejects.toThrow(
      '(127.0.0.1 is a private or reserved address)',
    );
    await webhooks.send(test(`${receiver.url}/file`));
    expect(receiver.received.map((r) => r.path)).toEqual(['/file']);
  });

  it("posts one added in the UI to this machine with allowPrivateAddresses: loopback, and still refuses a private network's address", async () => {
    const config = running('loopback');
    const webhooks = channel(config);
    receiver.received.length = 0;
    // Written as an address and as a name: both are this machine.
    await webhooks.send(test(`${receiver.url}/added`));
    await webhooks.send(test(`${receiver.url.replace('127.0.0.1', 'localhost')}/added`));
    expect(receiver.received.map((r) => r.path)).toEqual(['/added', '/added']);
    // The metadata address and a private network's stay refused; judged without sending,
    // so that no test ever posts to one.
    const guard = createWebhookGuard(context, config, () => config);
    guards.push(guard.dispatcher);
    expect(guard.applies('http://169.254.169.254/added')).toBe(true);
    expect(guard.refusal(new URL('http://169.254.169.254/added'))).toBe(
      '169.254.169.254 is a private or reserved address',
    );
    expect(guard.refusal(new URL('http://[fd00::1]/added'))).toBe(
      'fd00::1 is a private or reserved address',
    );
    expect(guard.refusal(new URL('http://[::1]:9/added'))).toBeUndefined();
  });
});
