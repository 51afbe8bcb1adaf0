/**
 * Migration 0005 turns each snapshot's verdict rows into one compact row: a database
 * written by the code before it, with real files' verdicts (some cells missing, outages,
 * three profiles), reads back the same verdicts, verdict history and overview counts,
 * and (migration 0008) the site's standing.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { computeVerdicts } from '../../../src/policy/verdicts.js';
import type { RobotsState, WatchVerdict } from '../../../src/policy/verdicts.js';
import { queryRows } from '../../../src/store/db.js';
import type { Database } from '../../../src/store/db.js';
import { loadOverview, loadSiteStandings } from '../../../src/store/overview.js';
import { loadVerdicts } from '../../../src/store/snapshots.js';
import { loadVerdictHistory } from '../../../src/store/verdict-history.js';
import { databaseKinds } from '../../support/database.js';
import { beforeMigration } from '../../support/migrations.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/realworld/protego', import.meta.url));
const WATCHES = [
  '/',
  '/pricing',
  '/search/about',
  '/private/x',
  '/blog/2026/hello',
  '/wp-admin/',
  '/*',
];
const AGENTS = [
  { token: 'Googlebot', profile: 'google' as const },
  { token: 'GPTBot', profile: 'rfc9309' as const },
  { token: '*', profile: 'legacy' as const },
  { token: 'googlebot-news', profile: 'google' as const },
];

async function writeOldVerdicts(db: Database): Promise<Map<number, WatchVerdict[]>> {
  const written = new Map<number, WatchVerdict[]>();
  await db.execute(sql`INSERT INTO sites (origin) VALUES ('https://e.com')`);
  const files = readdirSync(FIXTURES).sort().slice(0, 30);
  for (const [i, file] of files.entries()) {
    const up = i % 7 !== 3;
    const state = {
      fetch: { kind: 'http', status: up ? 200 : 503 },
      body: up ? readFileSync(join(FIXTURES, file)) : null,
      lastGoodBody: null,
      stale: false,
    } as unknown as RobotsState;
    // A few cells missing, as when watches were added later.
    const rows = computeVerdicts(
      state,
      WATCHES.map((w) => `https://e.com${w}`),
      AGENTS,
    ).slice(0, 28 - (i % 3));
    const [row] = await queryRows<{ id: string }>(
      db,
      sql`INSERT INTO snapshots (site_id, status, final_url, first_seen_at)
        VALUES (1, ${up ? 200 : 503}, 'https://e.com/robots.txt', now() + ${i} * interval '1 minute') RETURNING id`,
    );
    const id = Number(row!.id);
    for (const v of rows)
      await db.execute(sql`INSERT INTO verdicts (snapshot_id, url, agent, profile, allowed, cause)
        VALUES (${id}, ${v.url}, ${v.agent}, ${v.profile}, ${v.allowed},
          ${v.cause === null ? null : JSON.stringify(v.cause)}::jsonb)`);
    written.set(id, rows);
  }
  await db.execute(sql`UPDATE sites SET current_snapshot_id = (SELECT max(id) FROM snapshots)`);
  return written;
}

const byCell = (rows: readonly WatchVerdict[]) =>
  [...rows].sort((a, b) => (`${a.url} ${a.agent}` < `${b.url} ${b.agent}` ? -1 : 1));

describe.each(databaseKinds())('migrating verdict rows to compact sets on %s', (kind) => {
  it('reads back every verdict, the verdict history and the overview counts', async () => {
    await beforeMigration(
      kind,
      '0005_compact_verdicts',
      'robowatch_migrate',
      async (db, migrateRest) => {
        const written = await writeOldVerdicts(db);
        await migrateRest();

        for (const [id, rows] of written)
          expect(byCell(await loadVerdicts(db, id))).toEqual(byCell(rows));
        const pricing = [...written].flatMap(([id, rows]) =>
          rows
            .filter((v) => v.url === 'https://e.com/pricing' && v.agent === 'Googlebot')
            .map((v) => ({ snapshotId: id, allowed: v.allowed, cause: v.cause })),
        );
        const history = await loadVerdictHistory(db, 1, 'https://e.com/pricing', 'Googlebot');
        expect(
          history.map(({ snapshotId, allowed, cause }) => ({ snapshotId, allowed, cause })),
        ).toEqual(pricing);
        const last = [...written.values()].at(-1)!;
        const [overview] = await loadOverview(db, [1]);
        expect(overview!.disallowed).toEqual(
          [...new Set(last.map((v) => v.agent))].sort().map((agent) => ({
            agent,
            disallowed: last.filter((v) => v.agent === agent && !v.allowed).length,
            watched: last.filter((v) => v.agent === agent).length,
          })),
        );
        // Migration 0008 writes each site's standing into the sites table.
        const standings = await loadSiteStandings(db, new Date(0));
        expect(standings.groups).toEqual([
          {
            current: { status: 200, error: null, stale: false, fileCondition: null },
            blocking: last.some((v) => !v.allowed),
            intent: null,
            ids: [1],
          },
        ]);
        expect([...standings.newBlocks]).toEqual([]);
      },
    );
  });
});
