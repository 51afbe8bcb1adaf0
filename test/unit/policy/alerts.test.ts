/** Routing change events to channels, most important first; retry backoff. */
import { describe, expect, it } from 'vitest';
import { rankEvents, retryDelay, routeAlerts } from '../../../src/policy/alerts.js';
import type { ChangeEvent } from '../../../src/policy/events.js';

const site = 'https://e.com';
const disallowed: ChangeEvent = {
  type: 'newly_disallowed',
  site,
  url: 'https://e.com/p',
  agent: 'Googlebot',
  cause: { type: 'rule', directive: 'disallow', pattern: '/p', line: 2 },
};
const allowed: ChangeEvent = {
  type: 'newly_allowed',
  site,
  url: 'https://e.com/q',
  agent: 'GPTBot',
  cause: { type: 'access', access: 'unavailable' },
};
const down: ChangeEvent = {
  type: 'fetch_status_changed',
  site,
  before: { access: 'ok', status: 200 },
  after: { access: 'unreachable', status: 503 },
};
const rules: ChangeEvent = { type: 'rules_changed', site, added: [], removed: [] };

describe('routeAlerts', () => {
  const targets = {
    email: ['a@e.com', 'b@e.com'],
    webhooks: [
      { url: 'https://h.example/1', secret: 'x', format: 'json' as const },
      { url: 'https://h.example/2', secret: undefined, format: 'slack' as const },
    ],
    events: ['newly_disallowed', 'fetch_status_changed'] as const,
  };

  it('sends one email to all recipients and one POST per webhook, with the alerting events only', () => {
    expect(
      routeAlerts(site, [rules, allowed, disallowed, down], {
        ...targets,
        events: [...targets.events],
      }),
    ).toEqual([
      { channel: 'email', to: ['a@e.com', 'b@e.com'], site, events: [disallowed, down] },
      {
        channel: 'webhook',
        url: 'https://h.example/1',
        format: 'json',
        site,
        events: [disallowed, down],
      },
      {
        channel: 'webhook',
        url: 'https://h.example/2',
        format: 'slack',
        site,
        events: [disallowed, down],
      },
    ]);
  });

  it('sends nothing when no event alerts, or nobody listens', () => {
    expect(
      routeAlerts(site, [allowed, rules], { ...targets, events: [...targets.events] }),
    ).toEqual([]);
    expect(
      routeAlerts(site, [disallowed], { email: [], webhooks: [], events: ['newly_disallowed'] }),
    ).toEqual([]);
  });
});

describe('rankEvents', () => {
  it('puts a newly blocked page first, then the file going down, then the rest', () => {
    const up: ChangeEvent = { ...down, before: down.after, after: down.before };
    expect(rankEvents([rules, allowed, up, down, disallowed])).toEqual([
      disallowed,
      down,
      up,
      allowed,
      rules,
    ]);
  });
});

describe('retryDelay', () => {
  it('doubles from the base delay up to the cap', () => {
    const retry = { baseDelayMs: 30_000, maxDelayMs: 3_600_000 };
    expect([0, 1, 2, 3, 7, 8, 100].map((a) => retryDelay(a, retry))).toEqual([
      30_000, 60_000, 120_000, 240_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });
});
