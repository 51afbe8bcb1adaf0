/**
 * One note for every open incident no one has acknowledged, against a real store: an
 * incident resolved, or acknowledged by someone else, between the list's read and the
 * writes is left as it is (the other person's note kept, no acknowledgment of a resolved
 * one, nothing in the audit log for either), and is not said acknowledged.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acknowledgeOpen } from '../../../src/monitor/acknowledge.js';
import type { AuditInput } from '../../../src/monitor/records-accounts.js';
import { createWebStore } from '../../../src/store/index.js';
import { listIncidents, recordJudgements } from '../../../src/store/intent.js';
import { createTestDatabase, databaseKinds, insertSites } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { JUDGED_AT, blocked, fine, judgement } from '../../support/judgements.js';

const ME = { name: 'Ana', userId: null, via: 'cli', address: null } as const;

describe.each(databaseKinds())('acknowledging every open incident on %s', (kind) => {
  let database: TestDatabase;
  let ids: number[];
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    ids = await insertSites(database.handle.db, 4);
    await recordJudgements(
      database.handle.db,
      ids.map((id) => judgement(id, blocked, 0)),
    );
  });
  afterEach(() => database.close());

  it('leaves alone one resolved and one acknowledged by someone else since the list was read', async () => {
    const store = createWebStore(database.handle.db);
    const [resolving, taken] = ids;
    const audited: AuditInput[] = [];
    const done = await acknowledgeOpen(
      {
        store: {
          acknowledgeIncident: (...args) => store.acknowledgeIncident(...args),
          // The list is read; then, before the first write, the fix lands on one site and
          // someone else acknowledges another's incident.
          listIncidentHeads: async (query) => {
            const page = await store.listIncidentHeads(query);
            await recordJudgements(database.handle.db, [judgement(resolving!, fine, 5)]);
            const other = page.find((i) => i.siteId === taken)!;
            await store.acknowledgeIncident(other.id, {
              by: 'Bo',
              note: 'Rolling back the CDN rule',
              at: new Date(JUDGED_AT.getTime() + 6 * 60_000),
            });
            return page;
          },
        },
        siteOf: () => undefined,
        audit: (_actor, entry) => {
          audited.push(entry);
          return Promise.resolve();
        },
        now: () => new Date(JUDGED_AT.getTime() + 7 * 60_000),
      },
      ME,
      { note: 'Reverting the template' },
    );
    expect(done.acked.map((i) => i.siteId).sort((a, b) => a - b)).toEqual(ids.slice(2));
    expect(done.acked.every((i) => i.note === 'Reverting the template')).toBe(true);
    // Bo's acknowledgment is counted as one that was there already.
    expect(done.skipped).toBe(1);
    const all = await listIncidents(database.handle.db, { limit: 10 });
    const of = (siteId: number) => all.find((i) => i.siteId === siteId)!;
    expect(of(taken!)).toMatchObject({
      state: 'open',
      acknowledgedBy: 'Bo',
      note: 'Rolling back the CDN rule',
    });
    expect(of(resolving!)).toMatchObject({ state: 'resolved', acknowledgedAt: null, note: null });
    expect(audited.map((e) => e.siteId).sort((a, b) => a! - b!)).toEqual(ids.slice(2));
  });
});
