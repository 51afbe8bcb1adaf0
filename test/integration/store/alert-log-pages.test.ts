/**
 * The alert log read a page at a time from an outbox larger than a page looks at: every
 * notification once, newest first, each with all its deliveries, whatever its number of
 * deliveries, the filters and the page size; and one notification by its id. On PGlite
 * and PostgreSQL.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertLogQuery } from '../../../src/monitor/records.js';
import { listAlertLog } from '../../../src/store/alert-log.js';
import { queryRows } from '../../../src/store/db.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import { everyPage } from '../../support/pages.js';
import type { TestDatabase } from '../../support/database.js';

interface Notification {
  readonly site: number;
  /** Its deliveries' channels, in the order they were queued. */
  readonly channels: readonly ('email' | 'webhook')[];
  /** Its deliveries' state: all sent, failing, or all queued (not tried yet). */
  readonly state: 'sent' | 'failed' | 'queued';
}

const START = Date.parse('2026-11-01T00:00:00Z');

/**
 * 120 notifications of three sites: most with one to three deliveries, every 25th with
 * 40 (a page then holds fewer entries than its deliveries suggest), every 7th failing and
 * every 11th not tried yet.
 */
const NOTIFICATIONS: Notification[] = Array.from({ length: 120 }, (_, i) => ({
  site: (i % 3) + 1,
  channels:
    i % 25 === 24
      ? Array.from({ length: 40 }, (_, j) => (j % 2 === 0 ? 'email' : 'webhook'))
      : (['email', 'webhook', 'webhook'] as const).slice(0, (i % 3) + 1),
  state: i % 7 === 3 ? 'failed' : i % 11 === 5 ? 'queued' : 'sent',
}));

describe.each(databaseKinds())('the alert log on %s, page by page', (kind) => {
  let database: TestDatabase;
  /** Each notification's delivery ids, in queue order. */
  const ids: number[][] = [];
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const { db } = database.handle;
    for (const origin of ['https://a.example', 'https://b.example', 'https://c.example'])
      await db.execute(sql`INSERT INTO sites (origin) VALUES (${origin})`);
    for (const [i, n] of NOTIFICATIONS.entries()) {
      const created = new Date(START + i * 60_000).toISOString();
      const mine: number[] = [];
      for (const [j, channel] of n.channels.entries()) {
        const payload = {
          kind: 'alert',
          site: `https://site-${n.site}.example`,
          events: [{ type: 'newly_disallowed', n: i }],
          ...(channel === 'webhook' ? { format: j % 2 === 0 ? 'slack' : 'json' } : {}),
        };
        const [row] = await queryRows<{ id: number | string }>(
          db,
          sql`
            INSERT INTO outbox (key, channel, destination, payload, site_id, created_at,
              next_attempt_at, attempts, sent_at, last_error)
            VALUES (${`n${i}-${j}`}, ${channel}, ${`${channel}-${j}`}, ${JSON.stringify(payload)}::jsonb,
              ${n.site}, ${created}::timestamptz, ${created}::timestamptz,
              ${n.state === 'failed' ? 2 : 0}, ${n.state === 'sent' ? created : null}::timestamptz,
              ${n.state === 'failed' ? 'answered 500' : null})
            RETURNING id`,
        );
        mine.push(Number(row!.id));
      }
      ids.push(mine);
    }
  });
  afterAll(() => database.close());

  /** Every page of the log with `query`: each entry as its delivery ids. */
  const pages = async (query: Omit<AlertLogQuery, 'limit' | 'before'>, limit: number) =>
    (
      await everyPage(limit, (before) =>
        listAlertLog(database.handle.db, {
          ...query,
          limit,
          ...(before === undefined ? {} : { before }),
        }),
      )
    ).flatMap((page) => page.map((e) => e.deliveries.map((d) => d.id)));

  /** The notifications a query should list, newest first. */
  const expected = (keep: (n: Notification) => boolean) =>
    NOTIFICATIONS.flatMap((n, i) => (keep(n) ? [ids[i]!] : [])).toReversed();

  it('lists every notification once, newest first, with all its deliveries', async () => {
    for (const limit of [1, 2, 5, 21]) {
      expect(await pages({}, limit), `by ${limit}`).toEqual(expected(() => true));
      expect(await pages({ siteId: 2 }, limit), `site 2 by ${limit}`).toEqual(
        expected((n) => n.site === 2),
      );
      expect(
        await pages({ siteIds: [1, 3], state: 'failed' }, limit),
        `failed by ${limit}`,
      ).toEqual(expected((n) => n.site !== 2 && n.state === 'failed'));
      expect(await pages({ state: 'queued' }, limit), `queued by ${limit}`).toEqual(
        expected((n) => n.state === 'queued'),
      );
      expect(await pages({ channel: 'webhook' }, limit), `webhooks by ${limit}`).toEqual(
        expected((n) => n.channels.includes('webhook')),
      );
    }
  });

  it('reads one notification by the id of its first delivery, and none by another', async () => {
    const forty = ids[49]!;
    const [entry] = await listAlertLog(database.handle.db, { id: forty[0]!, limit: 1 });
    expect(entry!.deliveries.map((d) => d.id)).toEqual(forty);
    expect(await listAlertLog(database.handle.db, { id: forty[1]!, limit: 1 })).toEqual([]);
  });
});
