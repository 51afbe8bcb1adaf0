/**
 * Migration 0018 counts the judgements of sites judged before it as one: a site with a
 * state against intent or an incident is not taken for one never judged (whose first
 * state would open an incident without looking for the one it has).
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/store/db.js';
import { databaseKinds } from '../../support/database.js';
import { beforeMigration } from '../../support/migrations.js';

describe.each(databaseKinds())('migration 0018 on %s', (kind) => {
  it('counts one judgement for each site judged before it, none for the others', async () => {
    await beforeMigration(
      kind,
      '0018_sites_intent_version',
      'robowatch_migrate_0018',
      async (db, migrateRest) => {
        await db.execute(sql`
        INSERT INTO sites (origin, intent_state, intent_key) VALUES
          ('https://judged.example', 'as-intended', 'k:1'),
          ('https://refused.example', NULL, NULL),
          ('https://new.example', NULL, NULL)`);
        // A refused site: judged (it cannot be checked), its key cleared, an incident open.
        await db.execute(sql`
        INSERT INTO incidents (site_id, state, opened_at, site_state, causes, violations,
                               violation_count, worst_count, updated_at)
        SELECT id, 'open', now(), 'cannot-check', '[]', '[]', 0, 0, now()
          FROM sites WHERE origin = 'https://refused.example'`);
        await migrateRest();
        const rows = await queryRows<{ origin: string; intent_version: number }>(
          db,
          sql`SELECT origin, intent_version FROM sites ORDER BY origin`,
        );
        expect(rows).toEqual([
          { origin: 'https://judged.example', intent_version: 1 },
          { origin: 'https://new.example', intent_version: 0 },
          { origin: 'https://refused.example', intent_version: 1 },
        ]);
      },
    );
  });
});
