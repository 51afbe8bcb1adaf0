/**
 * Judgements by group commit: many sites' judgements at once are written in one
 * transaction, each site's state and incident as if alone; a site judged twice in one
 * batch is judged in order (opened, then resolved), and a judgement of a state the site
 * has moved on from changes nothing.
 */
import { eq, sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IntentEvaluation } from '../../../src/policy/intent.js';
import { queryRows } from '../../../src/store/db.js';
import { listIncidentHeads, listIncidents, recordJudgements } from '../../../src/store/intent.js';
import { sites } from '../../../src/store/schema.js';
import { createTestDatabase, databaseKinds, insertSites } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { blocked, fine, judgement } from '../../support/judgements.js';

describe.each(databaseKinds())('judgements on %s', (kind) => {
  let database: TestDatabase;
  let ids: number[];
  beforeEach(async () => {
    database = await createTestDatabase(kind);
    ids = await insertSites(database.handle.db, 40);
  });
  afterEach(() => database.close());

  it('writes forty sites’ judgements at once, each with its own incident', async () => {
    const recorded = await recordJudgements(
      database.handle.db,
      ids.map((id, i) => judgement(id, i % 2 === 0 ? blocked : fine)),
    );
    expect(recorded.filter((r) => r.step === 'open')).toHaveLength(20);
    expect(recorded.filter((r) => r.step === 'none')).toHaveLength(20);
    const open = await listIncidents(database.handle.db, { state: 'open', limit: 100 });
    expect(open.map((i) => i.siteId).sort((a, b) => a - b)).toEqual(
      ids.filter((_, i) => i % 2 === 0),
    );
    // Each incident is its own site's.
    for (const r of recorded.filter((r) => r.step === 'open'))
      expect(open.find((i) => i.id === r.incidentId)!.siteId).toBe(ids[recorded.indexOf(r)]);
    const [row] = await database.handle.db.select().from(sites).where(eq(sites.id, ids[0]!));
    expect(row).toMatchObject({ intentState: 'not-as-intended', intentKey: `k${ids[0]}` });
    expect(row!.intentReport!.violationCount).toBe(1);
  });

  it('opens one incident per site when rounds judge the same sites at the same time', async () => {
    // Eight rounds at once, each on a connection of its own (on PostgreSQL): each waits for
    // the others' locks, then reads the incident they opened and updates it, or leaves it.
    const rounds = await Promise.all(
      Array.from({ length: 8 }, (_, round) =>
        recordJudgements(
          database.handle.db,
          ids.map((id) => judgement(id, blocked, round)),
        ),
      ),
    );
    expect(rounds.flat().filter((r) => r.step === 'open')).toHaveLength(ids.length);
    const open = await listIncidents(database.handle.db, { state: 'open', limit: 100 });
    expect(open.map((i) => i.siteId).sort((a, b) => a - b)).toEqual(ids);
  });

  it('updates open incidents together: each its own cells now, the worst count kept', async () => {
    const [a, b] = ids;
    const worse: IntentEvaluation = {
      ...blocked,
      violations: [
        ...blocked.violations,
        { ...blocked.violations[0]!, url: 'https://s.example/pricing/team' },
        { ...blocked.violations[0]!, url: 'https://s.example/pricing/faq' },
      ],
      violationCount: 3,
    };
    await recordJudgements(database.handle.db, [judgement(a!, worse), judgement(b!, blocked)]);
    const recorded = await recordJudgements(database.handle.db, [
      judgement(a!, blocked, 5),
      judgement(b!, worse, 5),
    ]);
    expect(recorded.map((r) => [r.step, r.worse])).toEqual([
      ['update', false],
      ['update', true],
    ]);
    const [incidentA] = await listIncidents(database.handle.db, { siteId: a!, limit: 1 });
    const [incidentB] = await listIncidents(database.handle.db, { siteId: b!, limit: 1 });
    // A's cells went from three to one: the incident says one now and keeps three as its worst.
    expect(incidentA).toMatchObject({ state: 'open', violationCount: 1, worstCount: 3 });
    expect(incidentA!.violations.map((v) => v.url)).toEqual(['https://s.example/pricing']);
    expect(incidentB).toMatchObject({ state: 'open', violationCount: 3, worstCount: 3 });
    expect(incidentB!.violations).toHaveLength(3);
    expect(incidentB!.causes).toEqual(incidentA!.causes);
  });

  it('judges a site twice in one batch in order, and ignores a state it has moved on from', async () => {
    const [a, b] = ids;
    const recorded = await recordJudgements(database.handle.db, [
      judgement(a!, blocked, 0),
      judgement(b!, blocked, 0),
      judgement(a!, fine, 5),
    ]);
    expect(recorded.map((r) => r.step)).toEqual(['open', 'open', 'resolve']);
    expect(recorded[2]!.incidentId).toBe(recorded[0]!.incidentId);
    const [incident] = await listIncidents(database.handle.db, { siteId: a!, limit: 1 });
    expect(incident).toMatchObject({ state: 'resolved' });
    // The site's current state is snapshot 7 (none here): a judgement of another changes nothing.
    const moved = await recordJudgements(database.handle.db, [
      { ...judgement(b!, fine, 10), snapshotId: 7 },
    ]);
    expect(moved[0]!.step).toBe('none');
    const [row] = await database.handle.db.select().from(sites).where(eq(sites.id, b!));
    expect(row!.intentState).toBe('not-as-intended');
  });

  it('keeps an open incident’s lead with its cells, so a list of incidents reads a line each', async () => {
    const [a, b] = ids;
    const db = database.handle.db;
    const unreadable: IntentEvaluation = {
      state: 'cannot-check',
      violations: [],
      violationCount: 0,
      judged: 0,
      reason: 'robots.txt answers 503: Google crawls nothing until it is back',
    };
    const three: IntentEvaluation = {
      ...blocked,
      violations: ['/pricing', '/pricing/team', '/pricing/faq'].map((path) => ({
        ...blocked.violations[0]!,
        url: `https://s.example${path}`,
      })),
      violationCount: 3,
    };
    const stored = async (site: number) =>
      (
        await queryRows<{ lead: string | null }>(
          db,
          sql`SELECT lead FROM incidents WHERE site_id = ${site}`,
        )
      )[0]!.lead;
    const heads = async () =>
      new Map(
        (await listIncidentHeads(db, { limit: 10 })).map((head) => [head.siteId, head] as const),
      );

    await recordJudgements(db, [judgement(a!, blocked, 0), judgement(b!, unreadable, 0)]);
    expect(await stored(a!)).toBe('/pricing is blocked for Googlebot');
    // Cannot be judged: what crawlers do then.
    expect(await stored(b!)).toBe('robots.txt answers 503: Google crawls nothing until it is back');
    let listed = await heads();
    expect(listed.get(a!)).toMatchObject({
      state: 'open',
      lead: '/pricing is blocked for Googlebot',
    });
    expect(listed.get(a!)).not.toHaveProperty('violations');

    // Updated with its cells: the lead says them now, in the list and the full read alike.
    await recordJudgements(db, [judgement(a!, three, 5)]);
    const phrase = '/pricing, /pricing/team and /pricing/faq are blocked for Googlebot';
    expect(await stored(a!)).toBe(phrase);
    expect((await heads()).get(a!)!.lead).toBe(phrase);
    expect((await listIncidents(db, { siteId: a!, limit: 1 }))[0]!.lead).toBe(phrase);

    // Resolved: no lead; back within the flap window: the same incident, its lead again.
    await recordJudgements(db, [judgement(a!, fine, 10)]);
    expect(await stored(a!)).toBeNull();
    expect((await heads()).get(a!)).toMatchObject({ state: 'resolved', lead: null });
    const [back] = await recordJudgements(db, [judgement(a!, blocked, 20)]);
    expect(back!.step).toBe('reopen');
    expect(await stored(a!)).toBe('/pricing is blocked for Googlebot');

    // An incident written before leads were kept is phrased from its cells when listed,
    // and the phrase kept: it stays as it is, and no judgement would write it.
    await queryRows(db, sql`UPDATE incidents SET lead = NULL`);
    listed = await heads();
    expect(listed.get(a!)!.lead).toBe('/pricing is blocked for Googlebot');
    expect(listed.get(b!)!.lead).toBe(
      'robots.txt answers 503: Google crawls nothing until it is back',
    );
    expect(await stored(a!)).toBe('/pricing is blocked for Googlebot');
    const [again] = await recordJudgements(db, [judgement(a!, blocked, 30)]);
    expect(again!.step).toBe('none');
    expect(await stored(a!)).toBe('/pricing is blocked for Googlebot');
  });
});
