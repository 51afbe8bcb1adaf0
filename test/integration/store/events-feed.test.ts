/**
 * The events feed by type (`GET /api/v1/events?type=…`), page by page: every event of the
 * types asked, newest first, none twice, none missed, whichever of a state's events a page
 * ends on; on PGlite and PostgreSQL.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../../src/policy/changes/events.js';
import { listEvents } from '../../../src/store/events.js';
import type { EventQuery } from '../../../src/monitor/records.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { everyPage } from '../../support/pages.js';

const site = 'https://shop.example';
const disallowed = (path: string): ChangeEvent => ({
  type: 'newly_disallowed',
  site,
  url: `${site}${path}`,
  agent: 'Googlebot',
  cause: { type: 'rule', directive: 'disallow', pattern: path, line: 2 },
});
const outage: ChangeEvent = {
  type: 'fetch_status_changed',
  site,
  before: { access: 'ok', status: 200 },
  after: { access: 'unreachable', status: 503 },
};
const back: ChangeEvent = { ...outage, before: outage.after, after: outage.before };

/** The states' events, oldest state first, each in its recorded order. */
const STATES: ChangeEvent[][] = [
  [disallowed('/a'), disallowed('/b')],
  [outage],
  [back, disallowed('/c')], // a page of disallowed events ends here with none left after it
  [disallowed('/d')],
];

describe.each(databaseKinds())('the events feed on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const { db } = database.handle;
    await db.execute(sql`INSERT INTO sites (origin) VALUES (${site})`);
    for (const [day, events] of STATES.entries())
      await db.execute(sql`
        INSERT INTO snapshots (site_id, status, final_url, first_seen_at, events, event_types)
        SELECT id, 200, ${`${site}/robots.txt`}, ${`2026-01-0${day + 1}T00:00:00Z`}::timestamptz,
          ${JSON.stringify(events)}::json, ${sql.param([...new Set(events.map((e) => e.type))])}::text[]
        FROM sites`);
  });
  afterAll(() => database.close());

  /** Every page of the feed with `query`, `limit` events at a time. */
  const pages = async (query: Omit<EventQuery, 'limit' | 'beforeId'>, limit: number) =>
    (
      await everyPage(limit, (beforeId) =>
        listEvents(database.handle.db, {
          ...query,
          limit,
          ...(beforeId === undefined ? {} : { beforeId }),
        }),
      )
    ).map((page) => page.map((e) => e.event));

  it('lists every event of the types asked, newest first, a page at a time', async () => {
    const newest = STATES.toReversed().flatMap((events) => events.toReversed());
    const only = (...types: ChangeEvent['type'][]) => newest.filter((e) => types.includes(e.type));
    for (const limit of [1, 2, 3, 10]) {
      expect((await pages({}, limit)).flat(), `limit ${limit}`).toEqual(newest);
      for (const types of [
        ['newly_disallowed'],
        ['fetch_status_changed'],
        ['fetch_status_changed', 'newly_disallowed'],
        ['sitemaps_changed', 'fetch_status_changed'],
      ] as ChangeEvent['type'][][])
        expect((await pages({ types }, limit)).flat(), `${types.join()} by ${limit}`).toEqual(
          only(...types),
        );
    }
    expect(await pages({ types: ['newly_allowed'] }, 5)).toEqual([]);
  });
});
