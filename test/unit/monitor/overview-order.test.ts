/**
 * The overview's order, pages and counts over the sites' standings, as a page of many
 * sites shows them: problems first (each kind in the order given), paused sites last, a
 * page at a time, whatever the sites' ids look like.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { viewOverview } from '../../../src/monitor/views/overview.js';
import type { OverviewPage } from '../../../src/monitor/views/overview.js';
import type { SiteOverview, SiteStandings } from '../../../src/monitor/records.js';

const NOW = new Date('2026-11-20T12:00:00Z');
const context = { file: 'robowatch.yaml', cwd: '/srv', env: {}, version: '9.9.9' };

const config = parseConfig(
  `sites:\n${Array.from({ length: 10 }, (_, i) => `  - {url: 'https://site-${i + 1}.example', watch: [/]}`).join('\n')}\n`,
  context,
);

const fine = { status: 200, error: null, stale: false, fileCondition: null } as const;
const down = { status: 503, error: null, stale: false, fileCondition: null } as const;

/** The ten sites under these ids, site 4 (the fourth) paused. */
function listed(ids: readonly number[]) {
  return config.sites.map((site, i) => ({
    id: ids[i]!,
    site,
    pausedAt: i === 3 ? new Date('2026-11-01T00:00:00Z') : null,
  }));
}

/** A store whose standings are `groups` (by the sites' places in the list), the rest as little as a page needs. */
function storeOf(
  ids: readonly number[],
  groups: { places: number[]; down?: boolean; blocking?: boolean }[],
) {
  let standings: SiteStandings = {
    groups: groups.map((g) => ({
      current: g.down === true ? down : fine,
      blocking: g.blocking ?? false,
      intent: null,
      ids: g.places.map((p) => ids[p]!),
    })),
    newBlocks: new Set(),
    refused: new Set(),
  };
  return {
    set(next: SiteStandings) {
      standings = next;
    },
    loadSiteStandings: () => Promise.resolve(standings),
    loadOverview: (siteIds: readonly number[]) =>
      Promise.resolve(
        siteIds.map((id): SiteOverview => ({
          id,
          origin: '',
          current: null,
          lastChange: null,
          disallowed: [],
          nextDueAt: null,
          intent: null,
          refused: null,
        })),
      ),
    loadDailyStates: () => Promise.resolve(new Map()),
    loadVerdictsOf: () => Promise.resolve(new Map()),
  };
}

const origins = (page: OverviewPage) => page.rows.map((r) => r.site.origin.slice(8, -8));

describe.each([
  ['ids counting up from 1', Array.from({ length: 10 }, (_, i) => i + 1)],
  // Far apart (sites removed and added over years, or a sequence restarted): a table by
  // id would be too large, and the sites are found all the same.
  ['ids far apart', [3, 1, 70_000_000, 12, 2_000_000_000, 5, 900_000, 44, 8, 1_234_567]],
])('the overview of ten sites, %s', (_, ids) => {
  // Places 5 and 1 are blocking a crawler, place 7 is down, the others fine.
  const groups = [
    { places: [0, 2, 3, 4, 6, 8, 9] },
    { places: [5, 1], blocking: true },
    { places: [7], down: true },
  ];
  const view = (store: ReturnType<typeof storeOf>, page: number, state?: 'blocking') =>
    viewOverview(store, listed(ids), {
      query: '',
      order: 'problems',
      counts: true,
      page,
      perPage: 3,
      now: NOW,
      timezone: 'UTC',
      ...(state === undefined ? {} : { state }),
    });

  it('lists problems first, each kind in the given order, and paused sites last, a page at a time', async () => {
    const store = storeOf(ids, groups);
    const pages = await Promise.all([1, 2, 3, 4].map((p) => view(store, p)));
    expect(pages.map(origins)).toEqual([
      ['site-8', 'site-2', 'site-6'],
      ['site-1', 'site-3', 'site-5'],
      ['site-7', 'site-9', 'site-10'],
      ['site-4'],
    ]);
    expect(pages.map((p) => [p.page, p.pages, p.total])).toEqual([
      [1, 4, 10],
      [2, 4, 10],
      [3, 4, 10],
      [4, 4, 10],
    ]);
    expect(pages[0]!.counts).toMatchObject({ down: 1, blocking: 2, ok: 7, paused: 1 });
  });

  it('shows the last page for a page past the end, and one state when asked', async () => {
    const store = storeOf(ids, groups);
    const past = await view(store, 99);
    expect([past.page, origins(past)]).toEqual([4, ['site-4']]);
    const blocking = await view(store, 1, 'blocking');
    expect([blocking.total, blocking.pages, origins(blocking)]).toEqual([
      2,
      1,
      ['site-2', 'site-6'],
    ]);
  });

  it('reads the standings anew for the same list of sites', async () => {
    const store = storeOf(ids, groups);
    const sites = listed(ids);
    const options = {
      query: '',
      order: 'problems',
      counts: true,
      page: 1,
      perPage: 3,
      now: NOW,
      timezone: 'UTC',
    } as const;
    expect(origins(await viewOverview(store, sites, options))).toEqual([
      'site-8',
      'site-2',
      'site-6',
    ]);
    // Site 8 came back, site 3 went down.
    store.set({
      groups: [
        {
          current: fine,
          blocking: false,
          intent: null,
          ids: [0, 3, 4, 6, 7, 8, 9].map((p) => ids[p]!),
        },
        { current: fine, blocking: true, intent: null, ids: [5, 1].map((p) => ids[p]!) },
        { current: down, blocking: false, intent: null, ids: [ids[2]!] },
      ],
      newBlocks: new Set(),
      refused: new Set(),
    });
    expect(origins(await viewOverview(store, sites, options))).toEqual([
      'site-3',
      'site-2',
      'site-6',
    ]);
  });
});
