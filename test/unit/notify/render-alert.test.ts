/** What an alert says: the subject, the parts, the webhook bodies; hostile text neutralised. */
import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../../src/policy/events.js';
import {
  alertSubject,
  renderAlertEmail,
  renderSlackText,
  renderWebhookBody,
} from '../../../src/notify/render-alert.js';

const site = 'https://shop.example.com';
const blocked: ChangeEvent = {
  type: 'newly_disallowed',
  site,
  url: `${site}/pricing`,
  agent: 'Googlebot',
  cause: { type: 'rule', directive: 'disallow', pattern: '/pricing', line: 4 },
};
const hostile: ChangeEvent = {
  type: 'rules_changed',
  site,
  added: [
    {
      agent: 'Googlebot',
      directive: 'disallow',
      pattern: '/x<img src=x onerror=alert(1)>\r\nBcc: evil@example.com',
      line: 9,
    },
  ],
  removed: [],
};

describe('alert emails', () => {
  it.each<[ChangeEvent, string]>([
    [blocked, 'shop.example.com: /pricing is now disallowed for Googlebot'],
    [
      { ...blocked, type: 'newly_allowed' },
      'shop.example.com: /pricing is now allowed for Googlebot',
    ],
    [
      {
        type: 'fetch_status_changed',
        site,
        before: { access: 'ok', status: 200 },
        after: { access: 'unreachable', status: 503 },
      },
      'shop.example.com: robots.txt is now unreachable 503 (was ok 200)',
    ],
    [
      {
        type: 'fetch_status_changed',
        site,
        before: { access: 'ok', status: 200 },
        after: { access: 'unreachable', error: 'dns' },
      },
      'shop.example.com: robots.txt is now unreachable (dns) (was ok 200)',
    ],
    [
      { type: 'sitemaps_changed', site, added: ['https://e.com/s.xml'], removed: [] },
      'shop.example.com: sitemaps changed (1 added, 0 removed)',
    ],
  ])('say the change in the subject: %#', (event, subject) => {
    expect(alertSubject(site, [event])).toBe(subject);
  });

  it('lead with the most important change and count the rest', () => {
    expect(alertSubject(site, [hostile, blocked])).toBe(
      'shop.example.com: /pricing is now disallowed for Googlebot (and 1 more change)',
    );
  });

  it('escape what came from the file in HTML, and keep it on one line in the text', () => {
    const email = renderAlertEmail(site, [blocked, hostile]);
    expect(email.html).not.toMatch(/<img/);
    expect(email.html).toContain('/x&lt;img src=x onerror=alert(1)&gt; Bcc: evil@example.com');
    expect(email.text).toContain(
      '  - rule added:   Googlebot Disallow: /x<img src=x onerror=alert(1)> Bcc: evil@example.com (line 9)',
    );
    expect(email.text.split('\n').filter((l) => l.startsWith('Bcc'))).toEqual([]);
    expect(email.text).toContain(
      '  - DISALLOWED now: /pricing for Googlebot (line 4: Disallow: /pricing)',
    );
  });

  it('keep header injection out of the subject', () => {
    const sneaky: ChangeEvent = {
      ...blocked,
      agent: 'Googlebot\r\nBcc: evil@example.com',
    };
    expect(alertSubject(site, [sneaky])).not.toMatch(/[\r\n]/);
  });
});

describe('webhook bodies', () => {
  it('are the events as JSON, with the delivery key', () => {
    const body = JSON.parse(
      renderWebhookBody(site, [hostile, blocked], 'json', {
        key: 'k-1',
        createdAt: new Date('2026-06-01T00:00:00Z'),
      }),
    ) as unknown;
    expect(body).toEqual({
      delivery: 'k-1',
      createdAt: '2026-06-01T00:00:00.000Z',
      site,
      events: [blocked, hostile],
    });
  });

  it('are a readable text for Slack, escaped as Slack asks', () => {
    const text = renderSlackText(site, [blocked, hostile]);
    expect(text.split('\n')[0]).toBe(
      '*robowatch: shop.example.com: /pricing is now disallowed for Googlebot (and 1 more change)*',
    );
    expect(text).toContain(
      '• rule added:   Googlebot Disallow: /x&lt;img src=x onerror=alert(1)&gt; Bcc: evil@example.com (line 9)',
    );
  });
});
