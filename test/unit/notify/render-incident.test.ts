/**
 * What an incident alert names: every page and crawler that differ from the intent when
 * they are few enough to list, a line a page, in the subject too; past that, the first
 * ones and how many pairs more, its subject still saying every page and crawler when the
 * evaluation kept them all.
 */
import { describe, expect, it } from 'vitest';
import { renderIncidentEmail } from '../../../src/notify/render-incident.js';
import { ALERTED_CELLS, incidentAlerts } from '../../../src/policy/incident-alerts.js';
import type { IncidentNote, IncidentPayload } from '../../../src/policy/incident-alerts.js';
import { linksFrom } from '../../../src/policy/links.js';
import { SEARCH_CRAWLERS } from '../../../src/policy/crawlers.js';
import { MAX_VIOLATIONS } from '../../../src/policy/intent.js';

const context = { links: linksFrom('https://robowatch.example.com'), timeZone: 'UTC' };
// The default intent's crawlers: the @search preset.
const SEARCH = SEARCH_CRAWLERS;

/** Each page blocked for each crawler, in the verdicts' order (crawler by crawler). */
function blocked(paths: readonly string[], agents: readonly string[]) {
  return agents.flatMap((agent) =>
    paths.map((path) => ({
      url: `https://shop.example${path}`,
      agent,
      expected: 'allowed' as const,
      cause: null,
    })),
  );
}

/** The email of an incident opened with these cells, as incidentAlerts queues it. */
function emailOf(violations: ReturnType<typeof blocked>, changed: Partial<IncidentNote> = {}) {
  const note: IncidentNote = {
    id: 4,
    transition: 'opened',
    openedAt: '2026-06-01T12:00:00.000Z',
    resolvedAt: null,
    state: 'not-as-intended',
    causes: ['Disallow: /products/ (line 2) blocks pages meant to be crawled'],
    violations,
    violationCount: violations.length,
    changes: [],
    ...changed,
  };
  const [draft] = incidentAlerts(
    { origin: 'https://shop.example', name: 'Shop' },
    { email: ['seo@shop.example'], webhooks: [], events: ['incidents'] },
    note,
    new Date('2026-06-01T12:00:00.000Z'),
  );
  const payload: IncidentPayload = { ...draft!, kind: 'incident', siteId: 1 };
  return renderIncidentEmail(payload, context);
}

describe('an incident alert', () => {
  it('names every page and crawler of a usual incident, a line a page', () => {
    const email = emailOf(blocked(['/products/shoes', '/cart'], SEARCH));
    expect(email.subject).toBe(
      'Shop (shop.example): not as intended: /products/shoes and /cart are blocked for Googlebot, Googlebot-Image and 5 more crawlers',
    );
    expect(email.text).toContain(
      [
        '14 watched page × crawler pairs differ from the intent:',
        '- `/products/shoes` is blocked for Googlebot, Googlebot-Image, Bingbot, DuckDuckBot, Applebot and 2 more crawlers, meant to be crawled',
        '- `/cart` is blocked for Googlebot, Googlebot-Image, Bingbot, DuckDuckBot, Applebot and 2 more crawlers, meant to be crawled',
        '',
      ].join('\n'),
    );
  });

  it('past what it lists, names the first pairs and counts the rest; its subject says them whole', () => {
    const paths = Array.from({ length: 10 }, (_, i) => `/p${i}`);
    const email = emailOf(blocked(paths, SEARCH));
    // 70 cells, 50 listed: the subject is said from all 70 (every page for every crawler).
    expect(email.subject).toBe(
      'Shop (shop.example): not as intended: /p0, /p1 and 8 more pages are blocked for Googlebot, Googlebot-Image and 5 more crawlers',
    );
    // The body says the whole, then whole pages: each names every crawler it is wrong for.
    expect(email.text).toContain(
      '70 watched page × crawler pairs differ from the intent: /p0, /p1 and 8 more pages are blocked for Googlebot, Googlebot-Image and 5 more crawlers. The first 7 pages:\n',
    );
    const listed = email.text.split('\n').filter((l) => l.startsWith('- `/p'));
    // Seven pages × seven crawlers fit in the 50 cells an alert lists; the eighth would not.
    expect(listed).toHaveLength(7);
    expect(new Set(listed.map((l) => l.replace(/`\/p\d+`/, 'PAGE')))).toEqual(
      new Set([
        '- PAGE is blocked for Googlebot, Googlebot-Image, Bingbot, DuckDuckBot, Applebot and 2 more crawlers, meant to be crawled',
      ]),
    );
    expect(email.text).toContain(`- and ${70 - 49} more page × crawler pairs\n`);
    expect(ALERTED_CELLS).toBe(50);
  });

  it('past the cells an evaluation keeps, names the first pair and counts the rest', () => {
    const paths = Array.from({ length: 30 }, (_, i) => `/p${i}`);
    const cells = blocked(paths, SEARCH);
    // An evaluation keeps MAX_VIOLATIONS (200) of the 210 cells, and counts them all.
    const email = emailOf(cells.slice(0, MAX_VIOLATIONS), { violationCount: cells.length });
    expect(email.subject).toBe(
      'Shop (shop.example): not as intended: /p0 is blocked for Googlebot, and 209 more page × crawler pairs differ',
    );
    // The evaluation saw every cell make one block (30 pages × 7 crawlers): said whole.
    const grid = {
      expected: 'allowed' as const,
      paths: ['/p0', '/p1', '/p2'],
      pathCount: 30,
      agents: SEARCH.slice(0, 3),
      agentCount: SEARCH.length,
    };
    const whole = emailOf(cells.slice(0, MAX_VIOLATIONS), { violationCount: cells.length, grid });
    expect(whole.subject).toBe(
      'Shop (shop.example): not as intended: /p0, /p1 and 28 more pages are blocked for Googlebot, Googlebot-Image and 5 more crawlers',
    );
  });

  it('says what crawlers do now of a site whose robots.txt answers 503, never that it cannot be checked', () => {
    const down = {
      state: 'cannot-check' as const,
      causes: ['robots.txt answers 503: Google crawls nothing on the site while it does'],
    };
    const opened = emailOf([], down);
    expect(opened.subject).toBe(
      'Shop (shop.example): robots.txt answers 503: Google crawls nothing on the site while it does',
    );
    expect(opened.text).toContain(
      'Why: robots.txt answers 503: Google crawls nothing on the site while it does',
    );
    const reminder = emailOf([], { ...down, transition: 'reminder' });
    expect(reminder.subject).toMatch(
      /^Shop \(shop\.example\): still open after [^,]+, not acknowledged: robots\.txt answers 503/,
    );
    for (const email of [opened, reminder]) expect(email.text).not.toMatch(/cannot be checked/);
  });
});
