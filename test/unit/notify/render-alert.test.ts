/** What an alert says: subject, parts and webhook bodies from causes; hostile text neutralised; bounded. */
import { describe, expect, it } from 'vitest';
import type { AlertCause, AlertPayload } from '../../../src/policy/alerts.js';
import type { ChangeEvent } from '../../../src/policy/changes/events.js';
import { linksFrom } from '../../../src/policy/links.js';
import {
  alertSubject,
  renderAlertEmail,
  renderSlackText,
  renderWebhookBody,
} from '../../../src/notify/render-alert.js';

const site = 'https://shop.example.com';
const context = { links: linksFrom('https://robowatch.example.com'), timeZone: 'Europe/Paris' };
const agents = ['Googlebot', 'Bingbot', 'GPTBot', '*'];

const down: AlertCause = {
  type: 'fetch_status',
  before: { access: 'ok', status: 200 },
  after: { access: 'unreachable', status: 503 },
  profile: 'google',
  effectChanged: true,
  incidentSince: null,
  disallowRules: 4,
  file: null,
  pairs: agents.map((agent) => ({ url: `${site}/`, agent, allowed: false, flipped: true })),
  alerts: true,
};
const blocked: AlertCause = {
  type: 'rule',
  change: 'added',
  group: { agents: ['*'], line: 1 },
  rule: { directive: 'disallow', pattern: '/pricing', line: 8 },
  previous: null,
  readers: ['Googlebot', 'Bingbot', '*'],
  pairs: [{ url: `${site}/pricing`, agent: 'Googlebot', allowed: false, flipped: true }],
  alerts: true,
};
const hostile: AlertCause = {
  ...blocked,
  rule: {
    directive: 'disallow',
    pattern: '/x<img src=x onerror=alert(1)>\r\nBcc: evil@example.com',
    line: 9,
  },
  pairs: [],
  alerts: false,
};
const event: ChangeEvent = {
  type: 'newly_disallowed',
  site,
  url: `${site}/pricing`,
  agent: 'Googlebot',
  cause: { type: 'rule', directive: 'disallow', pattern: '/pricing', line: 8 },
};

const payload = (causes: AlertCause[], events: ChangeEvent[] = [event]): AlertPayload => ({
  kind: 'alert',
  site,
  events,
  causes,
  agents,
  siteId: 3,
  snapshotId: 12,
  previousId: 11,
  checkedAt: '2026-11-23T03:12:00.000Z',
});

describe('alert emails', () => {
  it('lead with the most severe cause, in crawl terms, and count the rest', () => {
    expect(alertSubject(payload([down]), context)).toBe(
      'shop.example.com: robots.txt answers 503 (Google crawls nothing)',
    );
    expect(alertSubject(payload([blocked, hostile]), context)).toBe(
      'shop.example.com: /pricing is now disallowed for Googlebot (Disallow: /pricing, line 8) (and 1 more change)',
    );
  });

  it('name the site by its name where it has one: subject, Slack and webhook body', () => {
    const named = { ...payload([blocked]), name: 'Shop EU' };
    const subject =
      'Shop EU (shop.example.com): /pricing is now disallowed for Googlebot (Disallow: /pricing, line 8)';
    expect(alertSubject(named, context)).toBe(subject);
    expect(renderSlackText(named, context).split('\n')[0]).toBe(`*robowatch: ${subject}*`);
    const body = JSON.parse(
      renderWebhookBody(named, 'json', { key: 'k', createdAt: new Date(0) }, context),
    ) as { site: string; name: string | null; subject: string };
    expect(body).toMatchObject({ site, name: 'Shop EU', subject });
    // A name is one line, whatever was typed.
    expect(alertSubject({ ...named, name: 'Shop\r\nBcc: x@example.com' }, context)).not.toMatch(
      /[\r\n]/,
    );
  });

  it('say each cause, its consequence and pages, with links to the diff, history and site', () => {
    const { text, html } = renderAlertEmail(payload([down, blocked]), context);
    expect(text.split('\n')).toEqual([
      'robowatch found 2 changes in https://shop.example.com/robots.txt (checked 2026-11-23 04:12 (Europe/Paris)):',
      '',
      '1. robots.txt answers 503 (it answered 200 before)',
      '   Google treats the whole site as disallowed: it crawls nothing until robots.txt answers again (after 30 days it uses its last good copy).',
      '   - now disallowed for all 4 watched crawlers: /',
      '   History of / for Googlebot: https://robowatch.example.com/sites/3/verdicts?url=https%3A%2F%2Fshop.example.com%2F&agent=Googlebot',
      '',
      '2. `Disallow: /pricing` added to the `*` group (line 8)',
      '   - now disallowed for Googlebot: /pricing',
      '   History of /pricing for Googlebot: https://robowatch.example.com/sites/3/verdicts?url=https%3A%2F%2Fshop.example.com%2Fpricing&agent=Googlebot',
      '',
      'What changed, line by line: https://robowatch.example.com/sites/3/diff?from=11&to=12',
      "The site's history: https://robowatch.example.com/sites/3",
    ]);
    expect(html).toContain('<code>Disallow: /pricing</code> added to the <code>*</code> group');
    expect(html).toContain('href="https://robowatch.example.com/sites/3/diff?from=11&amp;to=12"');
    expect(text).not.toContain('robowatch history');
  });

  it('say robowatch could not check a site on a private address, not that crawlers are blocked', () => {
    const refused: AlertCause = {
      type: 'refused',
      url: `${site}/robots.txt`,
      redirected: false,
      reason: 'shop.example.com resolves only to private or reserved addresses',
      pairs: [],
      alerts: true,
    };
    const { subject, text } = renderAlertEmail(
      { ...payload([refused], []), previousId: null },
      context,
    );
    expect(subject).toBe(
      'shop.example.com: robowatch could not check this site: it resolves to a private address',
    );
    expect(text.split('\n')).toEqual([
      'robowatch could not check https://shop.example.com/robots.txt when it tried at 2026-11-23 04:12 (Europe/Paris):',
      '',
      '1. robowatch could not check this site: it resolves to a private address',
      '   robowatch does not fetch private or reserved addresses (shop.example.com resolves only to private or reserved addresses), so it cannot say what crawlers may do now; its last check stands until it can check again. To watch a host on a private network, set fetch.allowPrivateAddresses: true.',
      '',
      "The site's history: https://robowatch.example.com/sites/3",
    ]);
  });

  it('escape what came from the file in HTML, and keep it on one line in the text', () => {
    const { text, html } = renderAlertEmail(payload([blocked, hostile]), context);
    expect(html).not.toMatch(/<img/);
    expect(html).toContain('/x&lt;img src=x onerror=alert(1)&gt; Bcc: evil@example.com');
    expect(text.split('\n').filter((l) => l.startsWith('Bcc'))).toEqual([]);
  });

  it('keep header injection out of the subject', () => {
    const sneaky = {
      ...blocked,
      pairs: [{ ...blocked.pairs[0]!, agent: 'Googlebot\r\nBcc: evil@example.com' }],
    };
    expect(alertSubject(payload([sneaky]), context)).not.toMatch(/[\r\n]/);
  });

  it('stay small whatever the change: past 40 causes the rest are counted and linked', () => {
    const many: AlertCause[] = Array.from({ length: 5_000 }, (_, i) => ({
      ...blocked,
      rule: { directive: 'disallow', pattern: `/p${i}/${'x'.repeat(200)}`, line: i + 2 },
      pairs: agents.map((agent) => ({
        url: `${site}/p${i}/`,
        agent,
        allowed: false,
        flipped: true,
      })),
    }));
    const { subject, text, html } = renderAlertEmail(payload(many), context);
    expect(subject).toMatch(/\(and 4,?999 more changes\)$/);
    expect(text.length + html.length).toBeLessThan(250_000);
    expect(text).toContain(
      'and 4960 more changes: see https://robowatch.example.com/sites/3/diff?from=11&to=12',
    );
  });

  it('still read an alert queued before causes existed', () => {
    const old: AlertPayload = { kind: 'alert', site, events: [event] };
    const { subject, text } = renderAlertEmail(old, context);
    expect(subject).toBe('shop.example.com: /pricing is now disallowed for Googlebot');
    expect(text).toContain('DISALLOWED now: /pricing for Googlebot (line 8: Disallow: /pricing)');
    expect(text).toContain('See the site in the web UI: https://robowatch.example.com/');
  });
});

describe('webhook bodies', () => {
  it('carry the causes as JSON, in words too, next to the events', () => {
    const body = JSON.parse(
      renderWebhookBody(
        payload([blocked, hostile]),
        'json',
        { key: 'k-1', createdAt: new Date('2026-06-01T00:00:00Z') },
        context,
      ),
    ) as Record<string, unknown>;
    expect(body).toMatchObject({
      delivery: 'k-1',
      createdAt: '2026-06-01T00:00:00.000Z',
      site,
      subject:
        'shop.example.com: /pricing is now disallowed for Googlebot (Disallow: /pricing, line 8) (and 1 more change)',
      links: {
        site: 'https://robowatch.example.com/sites/3',
        diff: 'https://robowatch.example.com/sites/3/diff?from=11&to=12',
      },
      events: [event],
    });
    expect((body['causes'] as Record<string, unknown>[])[0]).toMatchObject({
      type: 'rule',
      change: 'added',
      alerts: true,
      title: '`Disallow: /pricing` added to the `*` group (line 8)',
      lines: ['now disallowed for Googlebot: /pricing'],
    });
  });

  it('list at most 500 rules of an event, and say how many there were', () => {
    const rules: ChangeEvent = {
      type: 'rules_changed',
      site,
      added: Array.from({ length: 14_000 }, (_, i) => ({
        agent: 'Googlebot',
        directive: 'disallow' as const,
        pattern: `/${i}`,
        line: i + 2,
      })),
      removed: [],
    };
    const body = JSON.parse(
      renderWebhookBody(
        payload([blocked], [rules]),
        'json',
        { key: 'k', createdAt: new Date(0) },
        context,
      ),
    ) as { events: { added: unknown[]; addedTotal: number }[] };
    expect(body.events[0]!.added).toHaveLength(500);
    expect(body.events[0]!.addedTotal).toBe(14_000);
  });

  it('are a short readable text for Slack, escaped as Slack asks, with links', () => {
    const text = renderSlackText(payload([blocked, hostile]), context);
    expect(text.split('\n')[0]).toBe(
      '*robowatch: shop.example.com: /pricing is now disallowed for Googlebot (Disallow: /pricing, line 8) (and 1 more change)*',
    );
    expect(text).toContain('/x&lt;img src=x onerror=alert(1)&gt; Bcc: evil@example.com');
    expect(text).toContain(
      "<https://robowatch.example.com/sites/3/diff?from=11&to=12|What changed> · <https://robowatch.example.com/sites/3|The site's history>",
    );
    expect(text.length).toBeLessThan(3_200);
  });

  it('carry a change that blocks a share of the sitemaps to Slack and webhooks', () => {
    const coverage: AlertCause = {
      type: 'coverage',
      agents: ['Googlebot', 'Bingbot'],
      urls: 48_311,
      newlyDisallowed: 12_034,
      newlyAllowed: 0,
      prefixes: [{ prefix: '/products/', urls: 11_870 }],
      rules: [{ directive: 'disallow', pattern: '/*?', line: 14, urls: 12_034 }],
      samples: ['/products/1?ref=a'],
      significant: true,
      pairs: [],
      alerts: true,
    };
    const text = renderSlackText(payload([coverage], []), context);
    expect(text.split('\n')[0]).toBe(
      '*robowatch: shop.example.com: 12,034 sitemap URLs (24.9%) now disallowed for Googlebot and Bingbot (Disallow: /*?, line 14)*',
    );
    expect(text).toContain(
      '• Googlebot and Bingbot: 12,034 of 48,311 sitemap URLs (24.9%) newly disallowed',
    );
    const body = JSON.parse(
      renderWebhookBody(
        payload([coverage], []),
        'json',
        { key: 'k', createdAt: new Date(0) },
        context,
      ),
    ) as { causes: { type: string; newlyDisallowed: number; prefixes: unknown[] }[] };
    expect(body.causes[0]).toMatchObject({
      type: 'coverage',
      newlyDisallowed: 12_034,
      prefixes: [{ prefix: '/products/', urls: 11_870 }],
    });
  });
});
