/** The configuration: defaults, presets, URL normalisation, and one-line errors. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseConfig, resolveSiteSettings } from '../../../src/config/validate.js';
import { MAX_CONFIG_BYTES, loadConfig } from '../../../src/config/load.js';
import { ConfigError, withAlerts, withIntent } from '../../../src/config/config.js';

/** The checkout, which the shipped configurations' relative paths name files in. */
const REPO = fileURLToPath(new URL('../../../', import.meta.url));

const context = { file: 'robowatch.yaml', cwd: '/srv/robowatch', env: {}, version: '9.9.9' };
const parse = (text: string, env: Record<string, string> = {}) =>
  parseConfig(text, { ...context, env });
const error = (text: string) => {
  try {
    parse(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
};

describe('configuration', () => {
  it('takes paging and chat services as webhooks, each with what it needs', () => {
    const hooks = parse(
      `notify:
  webhooks:
    - {url: 'https://events.pagerduty.com/v2/enqueue', format: pagerduty, routingKey: '\${PD}'}
    - {url: 'https://api.telegram.org/bot1:AB/sendMessage', format: telegram, chat: -100123}
    - {url: 'https://discord.com/api/webhooks/1/x', format: discord}`,
      { PD: 'key-from-env' },
    ).notify.defaults.webhooks;
    expect(hooks.map((h) => [h.format, h.url])).toEqual([
      ['pagerduty', 'https://events.pagerduty.com/v2/enqueue#routing_key=key-from-env'],
      ['telegram', 'https://api.telegram.org/bot1:AB/sendMessage#chat_id=-100123'],
      ['discord', 'https://discord.com/api/webhooks/1/x'],
    ]);
    expect(error("notify: {webhooks: [{url: 'https://a.example/x', format: telegram}]}")).toBe(
      'robowatch.yaml: notify.webhooks[0].chat: Telegram needs the chat to post in (its id, or @channelname)',
    );
    expect(
      error("notify: {webhooks: [{url: 'https://a.example/x', format: telegram, chat: '  '}]}"),
    ).toBe('robowatch.yaml: notify.webhooks[0].chat: must not be empty or blank');
    expect(error("notify: {webhooks: [{url: 'https://a.example/x', routingKey: abc}]}")).toBe(
      'robowatch.yaml: notify.webhooks[0].routingKey: only a pagerduty webhook has one',
    );
    expect(error("notify: {webhooks: [{url: 'https://a.example/x', format: sms}]}")).toBe(
      'robowatch.yaml: notify.webhooks[0].format: must be one of json, slack, teams, discord, telegram, pagerduty',
    );
  });

  it('reminds of unacknowledged incidents only when notify.remind says how often', () => {
    expect(parse('{}').notify.remindMs).toBeNull();
    expect(parse('notify: {remind: off}').notify.remindMs).toBeNull();
    expect(parse('notify: {remind: 1d}').notify.remindMs).toBe(86_400_000);
    expect(error('notify: {remind: 10s}')).toBe(
      'robowatch.yaml: notify.remind: must be off or a duration such as "4h" or "1d" (from 1 minute to 30 days)',
    );
    expect(error('notify: {remind: sometimes}')).toBe(
      'robowatch.yaml: notify.remind: must be off or a duration such as "4h" or "1d" (from 1 minute to 30 days)',
    );
  });

  it('fills in the defaults', () => {
    const config = parse('sites:\n  - url: https://example.com\n    watch: [/]\n');
    expect(config.dataDir).toBe('/srv/robowatch/data');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.fetch).toEqual({
      userAgent: 'robowatch/9.9.9 (+https://github.com/robowatch/robowatch)',
      timeoutMs: 30_000,
      allowPrivateAddresses: false,
      confirmRetries: 2,
      confirmDelayMs: 5_000,
      concurrency: 16,
      sitemapMaxUrls: 100_000,
      sitemapTimeoutMs: 120_000,
    });
    expect(config.sites[0]!.sitemaps).toBe('auto');
    const tokens = config.sites[0]!.agents.map((a) => a.token);
    expect(tokens).toEqual(
      expect.arrayContaining([
        'Googlebot',
        'Bingbot',
        'GPTBot',
        'ClaudeBot',
        'CCBot',
        'Google-Extended',
        'meta-externalagent',
        '*',
      ]),
    );
    expect(config.sites[0]!.agents.every((a) => a.profile === 'google')).toBe(true);
    expect(Object.isFrozen(config.sites[0]!.agents)).toBe(true);
  });

  it('expands presets, lets explicit entries win, and applies the site profile', () => {
    const config = parse(`
agents: ['@ai', {token: GPTBot, profile: legacy}]
sites:
  - url: https://example.com/
    watch: [/]
    profile: rfc9309
`);
    const agents = config.sites[0]!.agents;
    expect(agents.find((a) => a.token === 'GPTBot')).toEqual({
      token: 'GPTBot',
      profile: 'legacy',
    });
    expect(agents.find((a) => a.token === 'ClaudeBot')).toEqual({
      token: 'ClaudeBot',
      profile: 'rfc9309',
    });
    expect(agents.filter((a) => a.token === 'GPTBot')).toHaveLength(1);
    expect(config.sites[0]!.profile).toBe('rfc9309');
  });

  it('lets the file name presets of its own and use them in any agent list', () => {
    const config = parse(`
presets:
  "@shop-bots": [Googlebot, Bingbot, PetalBot]
agents: ['@shop-bots', '*']
watch: [/]
sites:
  - url: https://a.example
  - url: https://b.example
    agents: ['@shop-bots', {token: Bingbot, profile: legacy}]
`);
    expect(config.sites[0]!.agents.map((a) => a.token)).toEqual([
      'Googlebot',
      'Bingbot',
      'PetalBot',
      '*',
    ]);
    expect(config.sites[1]!.agents.find((a) => a.token === 'Bingbot')!.profile).toBe('legacy');
    const names = Object.keys(config.presets).filter((n) => !n.startsWith('@operator:'));
    expect(names).toEqual([
      '@search',
      '@ai',
      '@ai-major',
      '@ai-training',
      '@ai-search',
      '@ai-user',
      '@ai-agent',
      '@shop-bots',
    ]);
    // The AI presets come from the shipped registry: every crawler, by purpose, by operator.
    expect(config.presets['@ai']).toHaveLength(160);
    // The major operators' crawlers: the default agents' AI part.
    expect(config.presets['@ai-major']).toEqual(
      expect.arrayContaining(['GPTBot', 'ClaudeBot', 'Google-Extended', 'CCBot', 'PerplexityBot']),
    );
    expect(config.presets['@ai-major']).not.toContain('HenkBot');
    expect(config.presets['@ai-training']).toContain('GPTBot');
    expect(config.presets['@ai-search']).toContain('OAI-SearchBot');
    expect(config.presets['@ai-user']).toContain('ChatGPT-User');
    expect(config.presets['@operator:openai']).toEqual(
      expect.arrayContaining(['GPTBot', 'ChatGPT-User', 'OAI-SearchBot']),
    );
    expect(config.registry).toMatchObject({
      url: null,
      active: { version: { source: 'shipped', date: '2026-08-22', agents: 160 } },
    });
  });

  it('takes a site’s sitemaps: auto, off, or URLs (a path is the site’s)', () => {
    const config = parse(`
sitemaps: auto
watch: [/]
sites:
  - url: https://a.example
  - url: https://b.example
    sitemaps: off
  - url: https://c.example
    sitemaps: [/sitemap_index.xml, "https://cdn.example/c/sitemap.xml.gz#x"]
`);
    expect(config.sites.map((s) => s.sitemaps)).toEqual([
      'auto',
      'off',
      ['https://c.example/sitemap_index.xml', 'https://cdn.example/c/sitemap.xml.gz'],
    ]);
    expect(error('sitemaps: [/sitemap.xml]')).toBe(
      'robowatch.yaml: sitemaps[0]: "/sitemap.xml" is not a URL (write it whole: https://…)',
    );
    expect(error('sitemaps: sometimes')).toBe(
      'robowatch.yaml: sitemaps: must be auto, off or a list of sitemap URLs',
    );
    expect(
      error(
        'watch: [/]\nsites:\n  - url: https://a.example\n    sitemaps: [ftp://a.example/s.xml]',
      ),
    ).toBe('robowatch.yaml: sites[0].sitemaps[0]: must be http or https, not ftp');
  });

  it('takes watch: auto, at the top or on a site, and says what else it may be', () => {
    const config = parse(`
watch: auto
sites:
  - url: https://a.example
  - url: https://b.example
    watch: [/x]
  - url: https://c.example
    watch: auto
`);
    expect(config.sites.map((s) => [s.watches, s.watchAuto === true])).toEqual([
      [['https://a.example/'], true],
      [['https://b.example/x'], false],
      [['https://c.example/'], true],
    ]);
    expect(error('watch: sometimes')).toBe(
      'robowatch.yaml: watch: must be auto or a list of paths or URLs',
    );
  });

  it('normalises watched URLs the way a crawler requests them', () => {
    const config = parse(
      'sites:\n  - url: HTTPS://Example.COM:443\n    watch: ["/a b", "/café?q=x y#top", "https://example.com/x", "/a b"]\n',
    );
    expect(config.sites[0]!.origin).toBe('https://example.com');
    expect(config.sites[0]!.watches).toEqual([
      'https://example.com/a%20b',
      'https://example.com/caf%C3%A9?q=x%20y',
      'https://example.com/x',
    ]);
  });

  it('gives the top-level watch paths to every site without its own list', () => {
    const config = parse(
      'watch: ["/", "/a b", "/x?q=1#top"]\nsites:\n  - url: https://a.example\n  - url: http://b.example:8080\n  - url: https://c.example\n    watch: [/own]\n',
    );
    expect(config.sites.map((s) => s.watches)).toEqual([
      ['https://a.example/', 'https://a.example/a%20b', 'https://a.example/x?q=1'],
      ['http://b.example:8080/', 'http://b.example:8080/a%20b', 'http://b.example:8080/x?q=1'],
      ['https://c.example/own'],
    ]);
    expect(error('watch: ["https://a.example/x"]\nsites:\n  - url: https://a.example')).toBe(
      'robowatch.yaml: watch[0]: "https://a.example/x" must be a path starting with "/"',
    );
    expect(error('watch: ["//evil.example/x"]')).toBe(
      'robowatch.yaml: watch[0]: "//evil.example/x" must be a path starting with "/"',
    );
    expect(error('sites:\n  - url: https://a.example')).toBe(
      'robowatch.yaml: sites[0].watch: is required (or list the paths every site watches in a top-level watch)',
    );
  });

  it('schedules daily checks and a Monday digest, and sends nothing, by default', () => {
    const config = parse('sites:\n  - url: https://example.com\n    watch: [/]\n');
    expect(config.schedule).toEqual({
      check: '0 3 * * *',
      digest: '0 8 * * 1',
      timezone: 'UTC',
      leaseMs: 300_000,
      retentionDays: 7,
      auditDays: 90,
    });
    expect(config.sites[0]!.schedule).toBe('0 3 * * *');
    expect(config.notify.email).toBeUndefined();
    expect(config.sites[0]!.alerts).toEqual({
      email: [],
      webhooks: [],
      // A site's incidents (not each change), and a change blocking much of its sitemaps.
      events: ['incidents', 'coverage_changed'],
    });
  });

  it('lets a site override the schedule and the global recipients, key by key', () => {
    const config = parse(
      `schedule: {check: '*/30 * * * *', timezone: Europe/Paris}
notify:
  events: [newly_disallowed]
  email: {smtp: 'smtps://u:\${PW}@mail.example.com:465', from: rw@example.com, to: [seo@example.com]}
  webhooks: [{url: 'https://hooks.example.com/a', secret: '\${SECRET}'}]
sites:
  - url: https://a.com
    watch: [/]
  - url: https://b.com
    watch: [/]
    schedule: '0 * * * *'
    notify: {email: [team-b@example.com], events: [rules_changed]}
`,
      { PW: 'hunter2', SECRET: 's3cret' },
    );
    expect(config.notify.email).toEqual({
      smtp: 'smtps://u:hunter2@mail.example.com:465',
      from: 'rw@example.com',
    });
    const [a, b] = config.sites;
    expect(a!.schedule).toBe('*/30 * * * *');
    expect(a!.alerts).toEqual({
      email: ['seo@example.com'],
      webhooks: [{ url: 'https://hooks.example.com/a', secret: 's3cret', format: 'json' }],
      events: ['newly_disallowed'],
    });
    expect(b!.schedule).toBe('0 * * * *');
    expect(b!.alerts).toEqual({
      ...a!.alerts,
      email: ['team-b@example.com'],
      events: ['rules_changed'],
    });
  });

  it('takes a sender with a display name, as mail clients show it', () => {
    const config = parse(
      `notify: {email: {smtp: 'smtp://mail.example.com', from: '"SEO, robowatch" <rw@example.com>'}}\n`,
    );
    expect(config.notify.email?.from).toBe('"SEO, robowatch" <rw@example.com>');
  });

  it('serves the web on 127.0.0.1:8080 by default, read-only without a token', () => {
    expect(parse('{}').web).toEqual({
      host: '127.0.0.1',
      port: 8080,
      token: undefined,
      trustProxy: false,
      publicUrl: undefined,
    });
    expect(parse('web: {publicUrl: "https://rw.example.com/"}').web.publicUrl).toBe(
      'https://rw.example.com',
    );
    expect(parse('web: {listen: "0.0.0.0:9000"}').web).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
    });
    expect(parse('web: {listen: "[::1]:9000"}').web).toMatchObject({ host: '::1', port: 9000 });
    expect(parse('web: {listen: 0}').web).toMatchObject({ host: '127.0.0.1', port: 0 });
    expect(
      parse('web: {token: "${WEB_TOKEN}"}', { WEB_TOKEN: 'a-long-enough-token' }).web.token,
    ).toBe('a-long-enough-token');
    // ${NAME:-} leaves it unset when the environment does not give it.
    expect(parse('web: {token: "${WEB_TOKEN:-}"}').web.token).toBeUndefined();
  });

  it('gives sites names and tags, and says what is wrong with them', () => {
    const config = parse(
      'watch: [/]\nsites:\n  - {url: https://a.example, name: " Shop ", tags: [shop, eu, shop]}\n  - url: https://b.example\n',
    );
    expect(config.sites.map((s) => [s.name, s.tags, s.managedBy])).toEqual([
      ['Shop', ['shop', 'eu'], 'file'],
      [null, [], 'file'],
    ]);
    expect(error('watch: [/]\nsites:\n  - {url: https://a.example, name: ""}')).toBe(
      'robowatch.yaml: sites[0].name: must not be empty',
    );
    expect(error('watch: [/]\nsites:\n  - {url: https://a.example, tags: ["a b"]}')).toBe(
      'robowatch.yaml: sites[0].tags[0]: must be a tag of letters, digits, "-", "_" or "." (at most 40)',
    );
    expect(error('watch: [/]\nsites:\n  - {url: https://a.example, name: "a\\tb"}')).toBe(
      'robowatch.yaml: sites[0].name: must not contain control characters',
    );
  });

  it('resolves the settings of a site added in the UI or API against the file, without the environment', () => {
    const config = parse(
      'agents: ["@search"]\nwatch: [/]\nnotify: {webhooks: [{url: "https://hooks.example/a"}]}\nsites: []\n',
    );
    const { site, settings } = resolveSiteSettings(config, 'https://new.example', {
      name: 'New',
      profile: 'rfc9309',
    });
    expect(settings).toEqual({ name: 'New', profile: 'rfc9309' });
    expect(site.watches).toEqual(['https://new.example/']);
    expect(site.agents.every((a) => a.profile === 'rfc9309')).toBe(true);
    expect(site.alerts.webhooks.map((w) => w.url)).toEqual(['https://hooks.example/a']);
    expect(site.managedBy).toBe('api');
    // ${NAME} in a value sent through the API never reads the server's environment.
    expect(() =>
      resolveSiteSettings(config, 'https://new.example', {
        notify: { webhooks: [{ url: 'https://evil.example/${DATABASE_URL}' }] },
      }),
    ).toThrow('notify.webhooks[0].url: environment variable DATABASE_URL is not set');
  });

  it('takes DATABASE_URL from the environment', () => {
    expect(parse('{}', { DATABASE_URL: 'postgres://u@h/db' }).databaseUrl).toBe(
      'postgres://u@h/db',
    );
    expect(() => parse('{}', { DATABASE_URL: 'mysql://u@h/db' })).toThrow(
      'DATABASE_URL: must be a postgres:// URL',
    );
  });

  it.each([
    ['bogus: 1', 'robowatch.yaml: unknown key "bogus"'],
    [
      'fetch:\n  timeout: 5',
      'robowatch.yaml: fetch: unknown key "timeout" (did you mean "timeoutMs"?)',
    ],
    [
      'sites:\n  - url: https://e.com\n    wach: [/]',
      'robowatch.yaml: sites[0]: unknown key "wach" (did you mean "watch"?)',
    ],
    [
      'sites:\n  - url: https://e.com\n    watch: [/]\n    agnets: [x]',
      'robowatch.yaml: sites[0]: unknown key "agnets" (did you mean "agents"?)',
    ],
    ['sites: {url: x}', 'robowatch.yaml: sites: must be a list, not a mapping'],
    ['dataDir: 5', 'robowatch.yaml: dataDir: must be a string, not number 5'],
    ['sites: [null]', 'robowatch.yaml: sites[0]: must be a mapping, not null'],
    [
      'fetch:\n  timeoutMs: fast',
      'robowatch.yaml: fetch.timeoutMs: must be a whole number from 100 to 600000 (milliseconds)',
    ],
    [
      'fetch:\n  allowPrivateAddresses: "yes"',
      'robowatch.yaml: fetch.allowPrivateAddresses: must be true, false or loopback',
    ],
    [
      'agents: ["@bots"]',
      'robowatch.yaml: agents[0]: unknown preset "@bots" (expected @search, @ai, @ai-major, @ai-training, @ai-search, @ai-user, @ai-agent, or @operator:<name> of the AI crawler registry)',
    ],
    [
      'agents: ["@shop"]\npresets: {"@shops": [Googlebot]}',
      'robowatch.yaml: agents[0]: unknown preset "@shop" (expected @search, @ai, @ai-major, @ai-training, @ai-search, @ai-user, @ai-agent, @shops, or @operator:<name> of the AI crawler registry)',
    ],
    [
      'agents: ["@operator:opnai"]',
      'robowatch.yaml: agents[0]: the AI crawler registry has no operator "opnai" (did you mean @operator:openai?); `robowatch registry` lists its 77 operators',
    ],
    [
      'registry: {url: "ftp://x"}',
      'robowatch.yaml: registry.url: must be the http(s) URL of a registry in the ai.robots.txt format',
    ],
    [
      'registry: {url: "https://x.example/robots.json", every: daily}',
      'robowatch.yaml: registry: unknown key "every"',
    ],
    [
      'presets: {"@ai-training": [GPTBot]}',
      'robowatch.yaml: presets.@ai-training: is a built-in preset: choose another name',
    ],
    [
      'presets: {shops: [Googlebot]}',
      'robowatch.yaml: presets.shops: must be a preset name: "@" then lower-case letters, digits or "-"',
    ],
    [
      'presets: {"@ai": [GPTBot]}',
      'robowatch.yaml: presets.@ai: is a built-in preset: choose another name',
    ],
    [
      'presets: {"@shops": ["*"]}',
      'robowatch.yaml: presets.@shops[0]: must be a crawler product token (letters, "-", "_")',
    ],
    ['presets: {"@shops": []}', 'robowatch.yaml: presets.@shops: must name at least one crawler'],
    [
      'agents: [{token: Googlebot, profile: bing}]',
      'robowatch.yaml: agents[0].profile: must be one of google, rfc9309, legacy',
    ],
    [
      'agents: ["Google bot"]',
      'robowatch.yaml: agents: "Google bot" is not a crawler product token (letters, "-", "_") or "*"',
    ],
    ['agents: [Googlebot, googlebot]', 'robowatch.yaml: agents: googlebot is listed twice'],
    ['agents: []', 'robowatch.yaml: agents: must name at least one agent'],
    [
      'sites:\n  - url: https://e.com/blog\n    watch: [/]',
      'robowatch.yaml: sites[0].url: must be an origin (scheme://host[:port]); a robots.txt governs its whole origin, so "/blog" belongs in watch',
    ],
    [
      'sites:\n  - url: ftp://e.com\n    watch: [/]',
      'robowatch.yaml: sites[0].url: must be http or https, not ftp',
    ],
    [
      'sites:\n  - url: https://e.com\n    watch: [blog]',
      'robowatch.yaml: sites[0].watch[0]: "blog" must be a path starting with "/" or an absolute URL',
    ],
    [
      'sites:\n  - url: https://e.com\n    watch: ["https://other.com/"]',
      'robowatch.yaml: sites[0].watch[0]: https://other.com is not this site (https://e.com); list it as a site of its own',
    ],
    [
      'sites:\n  - url: https://e.com\n    watch: [/]\n  - url: https://e.com/\n    watch: [/]',
      'robowatch.yaml: sites[1].url: https://e.com is listed twice',
    ],
    [
      'sites:\n  - url: https://e.com\n  watch: [/]',
      'robowatch.yaml: line 3: bad indentation of a mapping entry',
    ],
    ['a: 1\na: 2', 'robowatch.yaml: line 2: duplicated mapping key'],
    [
      'schedule: {check: "every day"}',
      'robowatch.yaml: schedule.check: is not a valid cron expression ([second] minute hour day-of-month month day-of-week)',
    ],
    [
      'schedule: {check: "0 25 * * *"}',
      'robowatch.yaml: schedule.check: is not a valid cron expression ([second] minute hour day-of-month month day-of-week)',
    ],
    [
      'schedule: {timezone: Mars/Olympus}',
      'robowatch.yaml: schedule.timezone: must be an IANA time zone such as Europe/Paris or UTC',
    ],
    [
      'schedule: {leaseMs: 500}',
      'robowatch.yaml: schedule.leaseMs: must be a whole number from 1000 to 3600000 (milliseconds)',
    ],
    [
      'notify: {events: [newly_blocked]}',
      'robowatch.yaml: notify.events[0]: must be one of newly_disallowed, newly_allowed, fetch_status_changed, rules_changed, sitemaps_changed, file_condition_changed, directives_changed, redirect_changed, fetch_status_same_effect, coverage_changed, preferences_changed, registry_changed, incidents, changed',
    ],
    [
      'notify: {email: {smtp: "smtp://h", from: a@b.c, to: [not-an-address]}}',
      'robowatch.yaml: notify.email.to[0]: must be an email address',
    ],
    [
      'notify: {email: {smtp: "smtp://h", from: a@b.c, to: ["seo\\e[31m@example.com"]}}',
      'robowatch.yaml: notify.email.to[0]: must be an email address',
    ],
    [
      'notify: {email: {smtp: "smtp://h", from: robowatch}}',
      'robowatch.yaml: notify.email.from: must be an email address such as robowatch@example.com, or "Robowatch <robowatch@example.com>"',
    ],
    [
      'notify: {email: {smtp: "smtp://h", from: "Robowatch\\nBcc: <a@b.c>"}}',
      'robowatch.yaml: notify.email.from: must be an email address such as robowatch@example.com, or "Robowatch <robowatch@example.com>"',
    ],
    [
      'notify: {email: {smtp: "http://h", from: a@b.c}}',
      'robowatch.yaml: notify.email.smtp: must be an smtp:// or smtps:// URL',
    ],
    [
      'notify: {webhooks: [{url: "ftp://h/x"}]}',
      'robowatch.yaml: notify.webhooks[0].url: must be http or https',
    ],
    [
      'notify: {webhooks: [{url: "https://h/x", secret: "${HOOK}"}]}',
      'robowatch.yaml: notify.webhooks[0].secret: environment variable HOOK is not set',
    ],
    [
      'notify: {webhooks: [{url: "https://h/x", secret: "${HOOK:-}"}]}',
      'robowatch.yaml: notify.webhooks[0].secret: is empty once ${HOOK:-} is filled in: set it, or drop secret to send the webhook unsigned',
    ],
    [
      'notify: {webhooks: [{url: "https://h/x", secret: "  "}]}',
      'robowatch.yaml: notify.webhooks[0].secret: is blank: set it, or drop secret to send the webhook unsigned',
    ],
    [
      'notify: {webhooks: [{url: "https://events.pagerduty.com/v2/enqueue", format: pagerduty, routingKey: "${PD:-}"}]}',
      'robowatch.yaml: notify.webhooks[0].routingKey: is empty once ${PD:-} is filled in: PagerDuty needs the integration’s routing key',
    ],
    [
      'sites:\n  - url: https://e.com\n    watch: [/]\n    notify: {emails: [a@b.c]}',
      'robowatch.yaml: sites[0].notify: unknown key "emails" (did you mean "email"?)',
    ],
    [
      'web: {listen: "localhost"}',
      'robowatch.yaml: web.listen: must be HOST:PORT (e.g. 127.0.0.1:8080 or 0.0.0.0:8080) or a port, not "localhost"',
    ],
    [
      'web: {publicUrl: "rw.example.com"}',
      'robowatch.yaml: web.publicUrl: must be the http(s) address of the web UI (e.g. https://robowatch.example.com), not "rw.example.com"',
    ],
    [
      'web: {listen: 70000}',
      'robowatch.yaml: web.listen: must be HOST:PORT (e.g. 127.0.0.1:8080 or 0.0.0.0:8080) or a port, not "70000"',
    ],
    [
      'web: {token: short}',
      'robowatch.yaml: web.token: must be at least 16 characters (e.g. openssl rand -hex 32)',
    ],
  ])('rejects %j: %s', (text, message) => {
    expect(error(text)).toBe(message);
  });

  it("keeps each site's own list of paths, written out site by site, as that site's URLs", () => {
    const config = parse(
      [
        'sites:',
        '  - {url: https://a.example, watch: [/, /cart, /search?q=x, /cart]}',
        '  - {url: http://b.example:8080, watch: [/, /cart, /search?q=x, /cart]}',
        '  - {url: https://c.example, watch: [/, /cart]}',
        '  - {url: https://d.example, watch: [/, /a/./b, /x y]}',
        '',
      ].join('\n'),
    );
    expect(config.sites.map((s) => s.watches)).toEqual([
      ['https://a.example/', 'https://a.example/cart', 'https://a.example/search?q=x'],
      ['http://b.example:8080/', 'http://b.example:8080/cart', 'http://b.example:8080/search?q=x'],
      ['https://c.example/', 'https://c.example/cart'],
      // A dot segment or a space is normalised as a crawler would request it.
      ['https://d.example/', 'https://d.example/a/b', 'https://d.example/x%20y'],
    ]);
    // A site given the UI's intent or channels keeps its own URLs.
    const site = config.sites[1]!;
    expect(withIntent(site, site.intent).watches).toEqual(site.watches);
    expect(withAlerts(site, site.alerts).watches).toEqual(site.watches);
  });

  it('refuses a list reused by aliases into 4 million watches, quickly and in one line', () => {
    // 113 KB: 1,000 URLs, then 4,000 sites that each reuse them.
    const urls = Array.from({ length: 1000 }, (_, i) => `/p${i}`).join(', ');
    const sites = Array.from(
      { length: 4000 },
      (_, i) => `  - {url: https://s${i}.example, watch: *w}`,
    );
    const text = `x-urls: &w [${urls}]\nsites:\n${sites.join('\n')}\n`;
    expect(() => parse(text)).toThrow(
      'robowatch.yaml: sites watch 4,000,000 URLs in all; at most 2,000,000 (YAML aliases (*name) count each time they are used)',
    );
  });

  it('refuses nested aliases that would expand to billions of values', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array<string>(10).fill(`*${prev}`).join(', ')}]`);
    }
    expect(() => parse(levels.join('\n'))).toThrow(
      'robowatch.yaml: more than 5,000,000 values once its YAML aliases (*name) are expanded; reuse lists less',
    );
  });

  it('still reads a watch list shared by many sites through an alias', () => {
    const sites = Array.from(
      { length: 100 },
      (_, i) => `  - {url: https://s${i}.example, watch: ${i === 0 ? '&w [/, /pricing]' : '*w'}}`,
    );
    const config = parse(`sites:\n${sites.join('\n')}\n`);
    expect(config.sites).toHaveLength(100);
    expect(config.sites[99]!.watches).toEqual([
      'https://s99.example/',
      'https://s99.example/pricing',
    ]);
  });

  it('names the file it could not read', async () => {
    await expect(
      loadConfig({ path: '/nonexistent/robowatch.yaml', cwd: '/', env: {}, version: '1' }),
    ).rejects.toThrow('/nonexistent/robowatch.yaml: cannot read the configuration: no such file');
    // A directory (config/ given for config/robowatch.yaml) is said in words, not as EISDIR.
    await expect(loadConfig({ path: tmpdir(), cwd: '/', env: {}, version: '1' })).rejects.toThrow(
      `${tmpdir()}: cannot read the configuration: it is a directory`,
    );
  });

  it('reads a relative path, and puts a relative data directory, in the directory it is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-config-'));
    writeFileSync(
      join(dir, 'here.yaml'),
      'dataDir: data\nwatch: [/]\nsites: [{url: https://example.com}]\n',
    );
    const config = await loadConfig({ path: 'here.yaml', cwd: dir, env: {}, version: '1' });
    expect([config.sites.length, config.dataDir]).toEqual([1, join(dir, 'data')]);
    await expect(
      loadConfig({ path: 'here.yaml', cwd: tmpdir(), env: {}, version: '1' }),
    ).rejects.toThrow('here.yaml: cannot read the configuration: no such file');
  });

  it('refuses a configuration larger than 64 MiB, and /dev/zero, without reading it all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-config-'));
    const big = join(dir, 'big.yaml');
    writeFileSync(big, `# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    const message = (path: string) =>
      `${path}: the configuration is larger than 64 MiB; add large lists of sites with robowatch sites import instead`;
    await expect(loadConfig({ path: big, cwd: '/', env: {}, version: '1' })).rejects.toThrow(
      message(big),
    );
    await expect(
      loadConfig({ path: '/dev/zero', cwd: '/', env: {}, version: '1' }),
    ).rejects.toThrow(message('/dev/zero'));
  });

  it('says what a configuration is that is no UTF-8 text, instead of reading it replaced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-config-'));
    const yaml =
      'dataDir: data\nwatch: [/]\nsites: [{url: https://example.com, name: Caf\u00e9}]\n';
    const cases: [string, Buffer, string][] = [
      [
        'utf16.yaml',
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(yaml, 'utf16le')]),
        'is UTF-16 text: save it as UTF-8',
      ],
      [
        'latin1.yaml',
        Buffer.from(yaml, 'latin1'),
        'is not UTF-8 text (line 3 is not): save it as UTF-8',
      ],
      ['zipped.yaml.gz', gzipSync(yaml), 'is compressed (gzip): gunzip it first'],
    ];
    for (const [name, bytes, why] of cases) {
      writeFileSync(join(dir, name), bytes);
      await expect(loadConfig({ path: name, cwd: dir, env: {}, version: '1' })).rejects.toThrow(
        new ConfigError(`${name}: the configuration ${why}`),
      );
    }
    writeFileSync(join(dir, 'utf8.yaml'), yaml);
    const config = await loadConfig({ path: 'utf8.yaml', cwd: dir, env: {}, version: '1' });
    expect(config.sites[0]!.name).toBe('Caf\u00e9');
  });

  it('ships an example that documents a valid configuration, and a valid default', async () => {
    const env = {
      SMTP_URL: 'smtp://mailpit:1025',
      SMTP_PASSWORD: 'pw',
      HOOK_SECRET: 's3cret',
      SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T0/B0/X',
    };
    for (const path of [
      'config/robowatch.example.yaml',
      'config/robowatch.yaml',
      'config/compose.yaml',
    ]) {
      const config = await loadConfig({ path, cwd: REPO, env, version: '1' });
      expect(config.sites.length, path).toBeGreaterThan(0);
    }
  });

  it("runs docker-compose's configuration with Mailpit from the environment", async () => {
    const path = 'config/compose.yaml';
    const config = await loadConfig({
      path,
      cwd: REPO,
      env: { SMTP_URL: 'smtp://mailpit:1025' },
      version: '1',
    });
    expect(config.notify.email).toMatchObject({ smtp: 'smtp://mailpit:1025' });
    expect(config.sites.every((s) => s.alerts.email.includes('seo@example.com'))).toBe(true);
    // Reachable from the host through the published port; read-only until a token is set;
    // alerts link to the published port unless told where people reach the UI.
    expect(config.web).toEqual({
      host: '0.0.0.0',
      port: 8080,
      token: undefined,
      trustProxy: false,
      publicUrl: 'http://127.0.0.1:8080',
    });
    const token = 'a'.repeat(32);
    const withToken = await loadConfig({
      path,
      cwd: REPO,
      env: {
        SMTP_URL: 'smtp://mailpit:1025',
        ROBOWATCH_WEB_TOKEN: token,
        ROBOWATCH_PUBLIC_URL: 'https://robowatch.example.com',
      },
      version: '1',
    });
    expect(withToken.web.token).toBe(token);
    expect(withToken.web.publicUrl).toBe('https://robowatch.example.com');
    await expect(loadConfig({ path, cwd: REPO, env: {}, version: '1' })).rejects.toThrow(
      'config/compose.yaml: notify.email.smtp: environment variable SMTP_URL is not set',
    );
  });
});

describe('web.sso', () => {
  const sso = (body: string, env: Record<string, string> = {}) =>
    parseConfig(`sites: [{url: https://example.com, watch: [/]}]\nweb: {sso: {${body}}}`, {
      file: 'r.yaml',
      cwd: '/tmp',
      env,
      version: 'test',
    });

  it('reads the provider, the client and the groups, the secret from the environment', () => {
    const config = sso(
      "issuer: 'https://login.example.com/realms/acme', clientId: robowatch, clientSecret: '${OIDC_SECRET}', scopes: [profile, groups], roles: {admin: [ops]}",
      { OIDC_SECRET: 's3cret' },
    );
    expect(config.web.sso).toMatchObject({
      issuer: 'https://login.example.com/realms/acme',
      clientSecret: 's3cret',
      label: 'single sign-on',
      scopes: ['openid', 'profile', 'groups'],
      nameClaim: 'preferred_username',
      groupsClaim: 'groups',
      roles: { admin: ['ops'], editor: [], viewer: [] },
      tags: {},
    });
  });

  it('refuses, in one line, a provider over http elsewhere than this machine, and no role given', () => {
    expect(() =>
      sso("issuer: 'http://login.example.com', clientId: robowatch, roles: {viewer: ['*']}"),
    ).toThrow(
      'r.yaml: web.sso.issuer: must be an https URL (http only on this machine), not "http://login.example.com"',
    );
    expect(() => sso("issuer: 'https://login.example.com', clientId: robowatch")).toThrow(
      /web\.sso\.roles: give at least one group a role/,
    );
    expect(() =>
      sso("issuer: 'https://login.example.com', clientId: robowatch, role: {viewer: [x]}"),
    ).toThrow(/roles/);
  });
});

describe('text the database cannot keep', () => {
  it('refuses a NUL or a lone surrogate written as a YAML escape, naming where', () => {
    expect(error('sites: [{url: https://example.com, watch: [/], name: "Shop\\0"}]')).toBe(
      'robowatch.yaml: sites[0].name: must not contain a NUL character (\\u0000)',
    );
    expect(error('sites: [{url: https://example.com, watch: [/]}]\nwebhook: "\\ud800"')).toMatch(
      /^robowatch\.yaml: webhook: must be Unicode text/,
    );
  });

  it('reads a file with no backslash without walking it, and one with escapes as written', () => {
    const config = parse('sites: [{url: https://example.com, watch: [/], name: "Shop \\u00e9"}]');
    expect(config.sites[0]!.name).toBe('Shop é');
  });
});
