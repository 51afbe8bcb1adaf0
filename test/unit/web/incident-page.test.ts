/**
 * An incident's page lists what differs a line for each page and reason, its crawlers
 * named, rather than a line a crawler; a resolved incident in the past tense.
 */
import { describe, expect, it } from 'vitest';
import { jsx } from 'hono/jsx';
import type { IncidentRecord } from '../../../src/monitor/records.js';
import { incidentLead } from '../../../src/policy/incidents.js';
import { ClockContext } from '../../../src/web/pages/components.js';
import { IncidentPageView, IntentSection } from '../../../src/web/pages/intent.js';

const at = new Date('2026-06-01T12:00:00Z');
const SEARCH = ['Googlebot', 'Googlebot-Image', 'Bingbot', 'DuckDuckBot', 'Applebot', 'YandexBot'];

function cell(path: string, agent: string, line: number) {
  return {
    url: `https://shop.example${path}`,
    agent,
    expected: 'allowed' as const,
    cause: { type: 'rule' as const, directive: 'disallow' as const, pattern: path, line },
  };
}

function incident(state: 'open' | 'resolved'): IncidentRecord {
  // Crawler by crawler, as verdicts come; Googlebot alone also blocked from /blog by its group.
  const violations = [
    ...SEARCH.flatMap((agent) => [cell('/cart', agent, 2), cell('/pricing', agent, 3)]),
    cell('/blog', 'Googlebot', 9),
  ];
  const record = {
    id: 7,
    siteId: 1,
    origin: 'https://shop.example',
    state,
    siteState: 'not-as-intended' as const,
    openedAt: new Date(at.getTime() - 3_600_000),
    resolvedAt: state === 'resolved' ? at : null,
    causes: ['Disallow: /cart (line 2) blocks pages meant to be crawled'],
    violations,
    violationCount: violations.length,
    grid: null,
    worstCount: violations.length,
    reopened: 0,
    acknowledgedAt: null,
    acknowledgedBy: null,
    note: null,
  };
  return { ...record, lead: incidentLead(record) };
}

async function page(shown: IncidentRecord): Promise<string> {
  return String(
    await jsx(
      ClockContext.Provider,
      { value: { timeZone: 'UTC', now: at } },
      jsx(IncidentPageView, {
        incident: shown,
        now: at,
        canEdit: false,
        signedIn: true,
        name: 'Shop',
      }),
    ).toString(),
  );
}

async function listed(state: 'open' | 'resolved'): Promise<string[]> {
  const html = await page(incident(state));
  const list = /<ul class="violations">(.*?)<\/ul>/s.exec(html)![1]!;
  return [...list.matchAll(/<li>(.*?)<\/li>/gs)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
}

describe('an incident’s page', () => {
  it('says each page once with the crawlers it is blocked for and why', async () => {
    expect(await listed('open')).toEqual([
      '/cart is blocked for Googlebot, Googlebot-Image, Bingbot, DuckDuckBot, Applebot and YandexBot: Disallow: /cart (line 2) blocks pages meant to be crawled',
      '/pricing is blocked for Googlebot, Googlebot-Image, Bingbot, DuckDuckBot, Applebot and YandexBot: Disallow: /pricing (line 3) blocks pages meant to be crawled',
      '/blog is blocked for Googlebot: Disallow: /blog (line 9) blocks pages meant to be crawled',
    ]);
    expect((await listed('resolved'))[2]).toBe(
      '/blog was blocked for Googlebot: Disallow: /blog (line 9) blocks pages meant to be crawled',
    );
  });

  it('says whole a block of more cells than it keeps, before the first of them', async () => {
    // 40 pages × 6 crawlers shut: 240 differ, the first 200 kept.
    const cells = Array.from({ length: 40 }, (_, p) =>
      SEARCH.map((agent) => cell(`/p${p}`, agent, 2)),
    ).flat();
    const open = {
      ...incident('open'),
      causes: ['Disallow: / (line 2) blocks pages meant to be crawled'],
      violations: cells.slice(0, 200),
      violationCount: 240,
      grid: {
        expected: 'allowed' as const,
        paths: ['/p0', '/p1', '/p2'],
        pathCount: 40,
        agents: SEARCH.slice(0, 3),
        agentCount: 6,
      },
    };
    const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
    expect(text(await page(open))).toContain(
      'All 240 as one block: /p0, /p1 and 38 more pages are blocked for Googlebot, Googlebot-Image and 4 more crawlers.',
    );
    // The site's page says it too, from the state as last judged.
    const section = String(
      await jsx(
        ClockContext.Provider,
        { value: { timeZone: 'UTC', now: at } },
        jsx(IntentSection, {
          siteId: 1,
          canEdit: false,
          now: at,
          view: {
            judgement: {
              state: 'not-as-intended',
              since: at,
              violations: open.violations,
              violationCount: open.violationCount,
              judged: 240,
              reason: null,
              grid: open.grid,
            },
            intent: { from: 'built-in', entries: [] },
            incident: open,
            expected: () => 'allowed',
          },
        }),
      ).toString(),
    );
    expect(text(section)).toContain(
      'All 240 as one block: /p0, /p1 and 38 more pages are blocked for Googlebot, Googlebot-Image and 4 more crawlers.',
    );
    // Kept without one (judged before the block was kept), or resolved: not said.
    expect(text(await page({ ...open, grid: null }))).not.toContain('as one block');
    expect(text(await page({ ...open, state: 'resolved', resolvedAt: at }))).not.toContain(
      'as one block',
    );
  });
});
