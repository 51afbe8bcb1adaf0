/** Routing changes to channels by their causes, most important first; retry backoff. */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ALERT_EVENTS,
  rankEvents,
  retryDelay,
  routeAlerts,
} from '../../../src/policy/alerts.js';
import type { AlertTopic, ChangeCause } from '../../../src/policy/changes/cause-model.js';
import type { ChangeEvent } from '../../../src/policy/changes/events.js';

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
    events: ['newly_disallowed', 'fetch_status_changed'] as AlertTopic[],
  };
  const blocked: ChangeCause = {
    type: 'rule',
    change: 'added',
    group: { agents: ['*'], line: 1 },
    rule: { directive: 'disallow', pattern: '/p', line: 2 },
    previous: null,
    readers: ['Googlebot'],
    pairs: [{ url: 'https://e.com/p', agent: 'Googlebot', allowed: false, flipped: true }],
  };
  const sitemaps: ChangeCause = {
    type: 'sitemaps',
    added: ['https://e.com/s.xml'],
    removed: [],
    pairs: [],
  };
  const sameEffect: ChangeCause = {
    type: 'fetch_status',
    before: { access: 'unavailable', status: 404 },
    after: { access: 'unavailable', status: 410 },
    profile: 'google',
    effectChanged: false,
    incidentSince: null,
    disallowRules: 0,
    file: null,
    pairs: [],
  };

  it('sends one email to all recipients and one POST per webhook, with every cause marked', () => {
    const drafts = routeAlerts(
      site,
      [rules, allowed, disallowed, down],
      [blocked, sitemaps],
      targets,
      ['Googlebot'],
    );
    const content = {
      site,
      events: [disallowed, down],
      causes: [
        { ...blocked, alerts: true },
        { ...sitemaps, alerts: false },
      ],
      agents: ['Googlebot'],
    };
    expect(drafts).toEqual([
      { ...content, channel: 'email', to: ['a@e.com', 'b@e.com'] },
      { ...content, channel: 'webhook', url: 'https://h.example/1', format: 'json' },
      { ...content, channel: 'webhook', url: 'https://h.example/2', format: 'slack' },
    ]);
  });

  it('sends nothing when no cause alerts (404 → 410 by default), or nobody listens', () => {
    expect(routeAlerts(site, [allowed, rules], [sitemaps], targets, [])).toEqual([]);
    expect(
      routeAlerts(site, [], [sameEffect], { ...targets, events: [...DEFAULT_ALERT_EVENTS] }, []),
    ).toEqual([]);
    expect(
      routeAlerts(site, [], [sameEffect], { ...targets, events: ['fetch_status_same_effect'] }, []),
    ).toHaveLength(3);
    expect(
      routeAlerts(
        site,
        [disallowed],
        [blocked],
        { email: [], webhooks: [], events: ['newly_disallowed'] },
        [],
      ),
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
