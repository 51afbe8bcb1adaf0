/**
 * What an update of the AI crawler registry means for a site: the 2026-02 snapshot
 * followed by the shipped 2026-08 one (36 crawlers added, IbouBot removed), against files
 * that keep AI crawlers out by name, keep every crawler out, or have no rule for them.
 */
import { describe, expect, it } from 'vitest';
import { readRegistry, shippedRegistry } from '../../../src/config/registry.js';
import { routeAlerts } from '../../../src/policy/alerts.js';
import { causeAlerts, causeTopics } from '../../../src/policy/changes/cause-model.js';
import { buildDigest } from '../../../src/policy/digest.js';
import { causeHeadline, explainCause } from '../../../src/policy/wording/explain.js';
import { registryCause } from '../../../src/policy/registry-update.js';
import type { RegistryCause } from '../../../src/policy/registry-update.js';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import { renderDigest } from '../../../src/notify/render-digest.js';
import { linksFrom } from '../../../src/policy/links.js';
import { fixturePath } from '../../support/fixtures.js';
import { readFileSync } from 'node:fs';

const before = readRegistry(
  readFileSync(fixturePath('registry/ai-robots.2026-02.json')),
  'https://registry.example/robots.json',
  '2026-02-15T04:00:00.000Z',
);
const after = shippedRegistry();
const parse = (text: string) => parseRobotsTxt(new TextEncoder().encode(text));

/** Keeps four AI training crawlers out by name; ExaBot (new in 2026-08) has a group. */
const BLOCKS_BY_NAME = `User-agent: GPTBot
User-agent: ClaudeBot
User-agent: CCBot
User-agent: Bytespider
Disallow: /

User-agent: ExaBot
Disallow: /private/

User-agent: *
Disallow: /admin/
`;

const of = (cause: RegistryCause | null, purpose: string) =>
  cause?.purposes.find((p) => p.purpose === purpose);

describe('a registry update, for one site', () => {
  it('finds the new training crawlers let in through * where the file keeps others out by name', () => {
    const cause = registryCause(parse(BLOCKS_BY_NAME), before, after)!;
    expect(cause).toMatchObject({
      type: 'registry',
      added: 36,
      removed: ['IbouBot'],
      version: { source: 'shipped', date: '2026-08-22', agents: 160 },
      previous: { source: 'https://registry.example/robots.json' },
      pairs: [],
    });
    const training = of(cause, 'training')!;
    expect(training.blockedByName).toBe(4);
    expect(training.named).toEqual(['ExaBot']);
    expect(training.allowedThroughStar).toEqual(
      expect.arrayContaining(['HenkBot', 'Lightpanda', 'QueritBot', 'newsai']),
    );
    expect(training.allowedThroughStar).not.toContain('ExaBot');
    expect(training.blockedThroughStar).toEqual([]);
    expect(training.contradicts).toBe(true);
    // No search crawler is kept out by name: the new ones through * contradict nothing.
    expect(of(cause, 'search')).toMatchObject({ blockedByName: 0, contradicts: false });
    expect(of(cause, 'search')!.allowedThroughStar).toEqual(
      expect.arrayContaining(['Amzn-SearchBot', 'ExaSearchBot']),
    );
  });

  it('says it in crawl terms, first what goes against the file', () => {
    const cause = registryCause(parse(BLOCKS_BY_NAME), before, after)!;
    const training = of(cause, 'training')!;
    const said = explainCause(cause, { agents: ['Googlebot', '*'], at: new Date() });
    expect(said.title).toBe(
      `${training.allowedThroughStar.length} new AI training crawlers may crawl this site through \`*\`, though the file blocks 4 by name`,
    );
    expect(said.consequence).toBe(
      'The AI crawler registry gained 36 crawlers and lost 1. Add the new ones to the group that blocks the others to keep them out.',
    );
    expect(said.details[0]).toMatch(
      /^AI training: \d+ may crawl through `\*` \(.+ and \d+ more\), 1 named by the file \(ExaBot\); the file blocks 4 others by name$/,
    );
    expect(said.details).toContain('No longer listed: IbouBot');
    expect(said.details.at(-1)).toMatch(
      /^Now the shipped registry of 2026-08-22 \(160 crawlers, sha256 [0-9a-f]{12}\); was the registry fetched 2026-02-15 04:00 UTC from https:\/\/registry\.example\/robots\.json \(\d+ crawlers, sha256 [0-9a-f]{12}\)$/,
    );
    expect(causeHeadline(cause, { agents: [], at: new Date() })).toBe(said.title);
  });

  it('finds nothing against a file that keeps every crawler out, or that names none', () => {
    const closed = registryCause(parse('User-agent: *\nDisallow: /\n'), before, after)!;
    expect(closed.purposes.every((p) => !p.contradicts && p.allowedThroughStar.length === 0)).toBe(
      true,
    );
    expect(of(closed, 'training')!.blockedThroughStar).toContain('HenkBot');
    const open = registryCause(parse('User-agent: *\nDisallow: /admin/\n'), before, after)!;
    expect(open.purposes.some((p) => p.contradicts)).toBe(false);
    expect(explainCause(open, { agents: [], at: new Date() })).toMatchObject({
      title: 'The AI crawler registry gained 36 crawlers and lost 1',
      consequence:
        'The new crawlers follow the `*` group here, like any crawler the file does not name.',
    });
    // Without a file (robots.txt gone or never read) the counts are all it says.
    const none = registryCause(null, before, after)!;
    expect(none.added).toBe(36);
    expect(none.purposes.every((p) => p.allowedThroughStar.length === 0)).toBe(true);
  });

  it('is no cause when the registry gained and lost nothing', () => {
    expect(registryCause(parse(BLOCKS_BY_NAME), after, after)).toBeNull();
  });

  it('alerts only where registry_changed is one of the topics (it is not by default)', () => {
    const cause = registryCause(parse(BLOCKS_BY_NAME), before, after)!;
    expect(causeTopics(cause)).toEqual(['registry_changed']);
    expect(causeAlerts(cause, ['newly_disallowed', 'fetch_status_changed'])).toBe(false);
    const targets = { email: ['seo@a.com'], webhooks: [], events: ['registry_changed' as const] };
    const [draft] = routeAlerts('https://a.com', [], [cause], targets, ['GPTBot']);
    expect(draft).toMatchObject({ channel: 'email', to: ['seo@a.com'], events: [] });
  });

  it('puts a site whose file it contradicts under "Needs attention" in the digest', () => {
    const cause = registryCause(parse(BLOCKS_BY_NAME), before, after)!;
    const open = registryCause(parse('User-agent: *\nDisallow: /admin/\n'), before, after)!;
    const at = new Date('2026-08-23T04:00:00Z');
    const period = {
      start: new Date('2026-08-20T08:00:00Z'),
      end: new Date('2026-08-27T08:00:00Z'),
    };
    const input = (siteId: number, origin: string, finding: RegistryCause) => ({
      siteId,
      origin,
      profile: 'google' as const,
      agents: [{ token: '*', profile: 'google' as const }],
      changes: [],
      checks: [{ at, fetch: { status: 200, error: null }, stale: false }],
      verdicts: [],
      body: null,
      now: null,
      registry: [{ at, cause: finding }],
    });
    const digest = buildDigest('seo@a.com', period, [
      input(1, 'https://a.com', cause),
      input(2, 'https://b.com', open),
    ]);
    expect(digest.registry).toEqual([
      expect.objectContaining({ added: 36, removed: ['IbouBot'], against: 1 }),
    ]);
    expect(digest.sites.map((s) => s.attention.map((a) => a.kind))).toEqual([['registry'], []]);
    const { text } = renderDigest(digest, {
      links: linksFrom('https://rw.example.com'),
      timeZone: 'UTC',
    });
    expect(text).toContain(
      'The AI crawler registry was updated 2026-08-23 04:00: 36 crawlers added and 1 removed (IbouBot); on 1 site of 2, new ones may crawl through `*` though the file blocks others of their purpose by name (under "Needs attention"). Now the shipped registry of 2026-08-22 (160 crawlers, sha256 b8ddd5fdd5a3).',
    );
    expect(text).toMatch(
      /a\.com: \d+ new AI training crawlers may crawl this site through `\*`, though the file blocks 4 by name \(.+ and \d+ more\): add them to the group that blocks the others to keep them out\./,
    );
  });
});
