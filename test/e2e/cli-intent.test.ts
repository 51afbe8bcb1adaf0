/**
 * Where sites stand against their owners' intent, from a terminal, on PostgreSQL and the
 * embedded database alike: `robowatch sites list`, and `robowatch incidents ack` (PagerDuty,
 * a loopback receiver that checks each event as the Events API v2 documents it,
 * acknowledges its incident; the audit log names who did).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { setSitePaused } from '../../src/store/sites.js';
import { runInProcess } from '../support/cli.js';
import { createTestDatabase, databaseKinds } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { FixtureServer } from '../support/fixture-server.js';
import { ServiceReceivers } from '../support/service-receivers.js';

const ROUTING_KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
const server = new FixtureServer();
const blog = new FixtureServer();
const down = new FixtureServer();
const services = new ServiceReceivers();

beforeAll(async () => {
  await Promise.all([server.start(), blog.start(), down.start(), services.start()]);
});
afterAll(async () => {
  await Promise.all([server.stop(), blog.stop(), down.stop(), services.stop()]);
});

interface PagerDutyEvent {
  readonly event_action: string;
  readonly dedup_key: string;
  readonly routing_key: string;
}

describe.each(databaseKinds())('robowatch incidents ack on %s', (kind) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    for (const fixture of [server, blog, down]) fixture.routes.clear();
    services.received.length = 0;
    await database?.close();
  });

  /**
   * A data directory and a configuration that pages the PagerDuty receiver for incidents
   * (`sites`: the file's sites, or a top-level watch), on a database of its own.
   */
  async function paging(sites: string, login: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-ack-'));
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot]
${sites}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  events: [incidents]
  webhooks:
    - {url: '${services.url}/v2/enqueue', format: pagerduty, routingKey: ${ROUTING_KEY}}
`,
    );
    database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    const env = { DATABASE_URL: database?.url ?? '', ROBOWATCH_CONFIG: undefined, ...login };
    const robowatch = (...args: string[]) => runInProcess([...args, '--config', config], { env });
    return { dir, robowatch };
  }

  it('acknowledges an open incident with a note: PagerDuty acknowledges it, the list and the audit log say who', async () => {
    const { robowatch } = await paging(
      `sites:\n  - {url: '${server.origin}', name: Shop, watch: [/, /private/x]}`,
      { USER: '', LOGNAME: 'sam' },
    );
    const host = new URL(server.origin).host;

    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
    const check = await robowatch('check');
    expect(check.stdout).toContain('Incident #1 opened');
    expect(check.stdout).toMatch(/\n1 notification sent\n$/);

    const ack = await robowatch(
      'incidents',
      'ack',
      '1',
      '--note',
      '  the deploy that blocked /private/ is being rolled back ',
      '--by',
      'alice',
    );
    expect([ack.code, ack.stderr]).toEqual([0, '']);
    expect(ack.stdout).toMatch(
      new RegExp(
        `^incident 1 on Shop \\(${host.replace('.', '\\.')}\\), open since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ \\(.+\\): acknowledged by alice at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ: the deploy that blocked /private/ is being rolled back\\n1 notification sent\\n$`,
      ),
    );
    // PagerDuty acknowledges the incident it was paged for: one key across its life.
    const events = services.of('pagerduty') as PagerDutyEvent[];
    expect(services.received.filter((r) => r.refused !== null)).toEqual([]);
    expect(events.map((e) => e.event_action)).toEqual(['trigger', 'acknowledge']);
    expect(events[1]!.dedup_key).toBe(events[0]!.dedup_key);
    expect(events[1]!.routing_key).toBe(ROUTING_KEY);

    const listed = await robowatch('incidents');
    expect(listed.stdout.split('\n')[1]).toMatch(
      / open +Shop .* so far +by alice: the deploy that blocked \/private\/ is being rolled back +\/private\/x is blocked for Googlebot$/,
    );

    // Acknowledged again, without --by: the login name, the note replaced, the first time
    // kept, PagerDuty not told twice.
    const before = JSON.parse((await robowatch('incidents', '--json')).stdout) as {
      acknowledgedAt: string;
    };
    const again = await robowatch('incidents', 'ack', '1', '--note', 'rolled back', '--json');
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(JSON.parse(again.stdout)).toMatchObject({
      id: 1,
      state: 'open',
      acknowledgedBy: 'sam',
      acknowledgedAt: before.acknowledgedAt,
      note: 'rolled back',
    });
    expect(services.of('pagerduty')).toHaveLength(2);

    // The audit log names the command and who ran it.
    const audit = await robowatch('export', '--what', 'audit', '--format', 'jsonl');
    const entries = audit.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toHaveLength(2);
    for (const entry of entries)
      expect(entry).toMatchObject({
        actor: 'robowatch (sam)',
        via: 'cli',
        action: 'incident.ack',
        target: `incident #1 (${server.origin})`,
      });

    // What it cannot acknowledge is said in one line, and nothing is written.
    for (const [args, message] of [
      [['99', '--note', 'x'], 'there is no incident 99'],
      [
        ['one', '--note', 'x'],
        'the incident\'s id must be a positive whole number (robowatch incidents lists them), not "one"',
      ],
      [['1', '--note', '   '], 'note: must say what is being done about it'],
      [['1', '--note', 'x'.repeat(2001)], 'note: must be at most 2,000 characters'],
      [['1', '--note', 'x', '--by', 'b'.repeat(101)], 'by: must be at most 100 characters'],
      [['1', '--note', 'x', '--by', ' '], '--by must name who has it in hand, not be empty'],
      [
        ['1', '--note', 'x', '--state', 'open'],
        'incidents ack takes no --state: it is for listing incidents',
      ],
    ] as const) {
      const refused = await robowatch('incidents', 'ack', ...args);
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([
        2,
        '',
        `robowatch: ${message}\n`,
      ]);
    }
    const after = await robowatch('incidents', '--json');
    expect(JSON.parse(after.stdout)).toMatchObject({ acknowledgedBy: 'sam', note: 'rolled back' });
    expect(services.of('pagerduty')).toHaveLength(2);
  });

  it('acknowledges the incident of a site added outside the file: PagerDuty is told through that site’s channels', async () => {
    const { dir, robowatch } = await paging('watch: [/, /private/x]', { USER: 'sam' });
    writeFileSync(join(dir, 'list.txt'), `${server.origin}\n`);
    expect((await robowatch('sites', 'import', join(dir, 'list.txt'))).code).toBe(0);
    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
    expect((await robowatch('check')).stdout).toContain('Incident #1 opened');
    const ack = await robowatch('incidents', 'ack', '1', '--note', 'on it');
    expect([ack.code, ack.stderr]).toEqual([0, '']);
    expect(ack.stdout).toMatch(/: acknowledged by sam at .*: on it\n1 notification sent\n$/);
    expect((services.of('pagerduty') as PagerDutyEvent[]).map((e) => e.event_action)).toEqual([
      'trigger',
      'acknowledge',
    ]);
  });

  it('acknowledges several incidents at once, by id or every open one no one has yet, and pages the list of them', async () => {
    const { robowatch } = await paging(
      `sites:
  - {url: '${server.origin}', name: Shop, watch: [/, /private/x]}
  - {url: '${blog.origin}', name: Blog, watch: [/, /private/x]}
  - {url: '${down.origin}', name: News, watch: [/, /private/x]}`,
      { USER: 'sam' },
    );
    for (const fixture of [server, blog, down])
      fixture.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
    const check = await robowatch('check');
    expect(check.stdout).toMatch(/\n3 notifications sent\n$/);
    const open = async () =>
      (await robowatch('incidents', '--state', 'open', '--json')).stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: number; name: string; note: string | null });
    const [newest, middle, oldest] = await open();

    // A list cut at its limit says where the older ones start, and they are read from there.
    const cut = await robowatch('incidents', '--limit', '2');
    const cutLines = cut.stdout.trimEnd().split('\n');
    expect(cutLines.slice(1, 3).map((l) => Number(/^\d+/.exec(l)![0]))).toEqual([
      newest!.id,
      middle!.id,
    ]);
    expect(cutLines.slice(3)).toEqual([
      `(more incidents are older than these 2: the next ones with --before ${middle!.id}; --state or a site narrows the list)`,
    ]);
    const rest = await robowatch('incidents', '--limit', '2', '--before', String(middle!.id));
    expect(rest.stdout.trimEnd().split('\n').slice(1)).toEqual([
      expect.stringMatching(new RegExp(`^${oldest!.id} +open +${oldest!.name} `)) as string,
    ]);

    // An id with no incident refuses them all, before any is acknowledged.
    const refused = await robowatch(
      'incidents',
      'ack',
      String(oldest!.id),
      '98',
      '99',
      '--note',
      'x',
    );
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      2,
      '',
      'robowatch: there are no incidents 98 and 99: none was acknowledged\n',
    ]);
    expect((await open()).map((i) => i.note)).toEqual([null, null, null]);
    expect(services.of('pagerduty')).toHaveLength(3);

    // One acknowledged by hand; then every other open one at once, the oldest first, the
    // note given by hand kept.
    const one = await robowatch(
      'incidents',
      'ack',
      String(middle!.id),
      '--note',
      'mine',
      '--by',
      'alice',
    );
    expect(one.code).toBe(0);
    const all = await robowatch(
      'incidents',
      'ack',
      '--open',
      '--note',
      'the CDN rule is being rolled back',
    );
    expect([all.code, all.stderr]).toEqual([0, '']);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(
      new RegExp(
        `^incident ${oldest!.id} on ${oldest!.name} .*: acknowledged by sam at .*: the CDN rule is being rolled back$`,
      ),
    );
    expect(lines[1]).toMatch(
      new RegExp(`^incident ${newest!.id} on ${newest!.name} .*: acknowledged by sam at `),
    );
    expect(lines.slice(2)).toEqual([
      '1 open incident was acknowledged already: its note kept (acknowledge it by id to replace it)',
      '2 notifications sent',
    ]);
    expect((await open()).map((i) => i.note)).toEqual([
      'the CDN rule is being rolled back',
      'mine',
      'the CDN rule is being rolled back',
    ]);
    // PagerDuty acknowledges each incident it was paged for, once.
    const events = services.of('pagerduty') as PagerDutyEvent[];
    expect(services.received.filter((r) => r.refused !== null)).toEqual([]);
    const keys = (action: string) =>
      events
        .filter((e) => e.event_action === action)
        .map((e) => e.dedup_key)
        .sort();
    expect(keys('acknowledge')).toHaveLength(3);
    expect(keys('acknowledge')).toEqual(keys('trigger'));

    // Nothing left to acknowledge: said, and no one is told again.
    const none = await robowatch('incidents', 'ack', '--open', '--note', 'again');
    expect([none.code, none.stdout]).toEqual([
      0,
      'no open incident waits for an acknowledgment\n3 open incidents were acknowledged already: their notes kept (acknowledge them by id to replace them)\n',
    ]);
    // By id, each once: the notes replaced, PagerDuty not told twice.
    const replaced = await robowatch(
      'incidents',
      'ack',
      String(oldest!.id),
      String(newest!.id),
      String(oldest!.id),
      '--note',
      'rolled back',
      '--json',
    );
    expect(
      replaced.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      expect.objectContaining({ id: oldest!.id, note: 'rolled back', acknowledgedBy: 'sam' }),
      expect.objectContaining({ id: newest!.id, note: 'rolled back' }),
    ]);
    expect(services.of('pagerduty')).toHaveLength(6);
    const audit = await robowatch('export', '--what', 'audit', '--format', 'jsonl');
    expect(audit.stdout.trimEnd().split('\n')).toHaveLength(5);

    for (const [args, message] of [
      [
        ['--note', 'x'],
        'name the incidents to acknowledge: their ids (robowatch incidents lists them), or --open for every open one no one has acknowledged yet',
      ],
      [
        ['1', '--open', '--note', 'x'],
        "give the incidents' ids or --open, not both (--open acknowledges every open incident no one has yet)",
      ],
      [
        ['1', 'two', '--note', 'x'],
        'the incident\'s id must be a positive whole number (robowatch incidents lists them), not "two"',
      ],
      [['--open', '--note', ' '], 'note: must say what is being done about it'],
    ] as const) {
      const no = await robowatch('incidents', 'ack', ...args);
      expect([no.code, no.stdout, no.stderr]).toEqual([2, '', `robowatch: ${message}\n`]);
    }
    const bad = await robowatch('incidents', '--before', '0');
    expect([bad.code, bad.stderr]).toEqual([
      2,
      'robowatch: --before must be an incident\'s id, a positive whole number, not "0"\n',
    ]);
  });

  it('lists every watched site with where it stands against its owner’s intent, then how many stand where', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-sites-'));
    const config = join(dir, 'robowatch.yaml');
    const file = (more = '') =>
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot]
sites:
  - {url: '${server.origin}', name: Shop, tags: [shop-team], watch: [/, /private/x]}
  - {url: '${down.origin}', name: News, watch: [/]}
  - {url: '${blog.origin}', watch: [/, /posts/]}
${more}fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
`;
    writeFileSync(config, file());
    database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    const env = { DATABASE_URL: database?.url ?? '', ROBOWATCH_CONFIG: undefined };
    const robowatch = (...args: string[]) => runInProcess([...args, '--config', config], { env });
    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
    down.serve('/robots.txt', 503, 'busy');
    blog.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /drafts/\n');
    expect((await robowatch('check')).code).toBe(0);
    // A site the file lists since, never checked: named, not left out.
    writeFileSync(config, file(`  - {url: 'http://127.0.0.1:9', name: Later, watch: [/]}\n`));

    const listed = await robowatch('sites', 'list');
    expect([listed.code, listed.stderr]).toEqual([0, '']);
    const lines = listed.stdout.trimEnd().split('\n');
    const host = (origin: string) => new URL(origin).host.replace(/\./g, '\\.');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^ID +SITE +INTENT +ROBOTS\.TXT +CHECKED +WHAT$/);
    const when = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ';
    // The most urgent first: robots.txt that decides for every page, then a page blocked.
    expect(lines[2]).toMatch(
      new RegExp(
        `^1 +Shop \\(${host(server.origin)}\\) +not as intended: 1 page × crawler pair +ok \\(200\\) +${when} +/private/x is blocked for Googlebot$`,
      ),
    );
    expect(lines[1]).toMatch(
      new RegExp(
        `^2 +News \\(${host(down.origin)}\\) +not judged +unreachable \\(503\\) +${when} +robots\\.txt .*503`,
      ),
    );
    expect(lines[3]).toMatch(
      new RegExp(`^3 +${host(blog.origin)} +as intended +ok \\(200\\) +${when} +-$`),
    );
    expect(lines.slice(4)).toEqual([
      'not checked yet: http://127.0.0.1:9 (run robowatch check, or start the daemon)',
      '4 sites: 1 not judged, 1 not as intended, 1 not checked yet, 1 as intended',
    ]);

    // A paused site goes last, said so, whatever it stands at.
    const store = await openDatabase({ url: database?.url, dataDir: join(dir, 'data') });
    try {
      await setSitePaused(store.db, 1, new Date());
    } finally {
      await store.close();
    }
    const paused = (await robowatch('sites', 'list')).stdout.split('\n');
    expect(paused.slice(1, 4).map((l) => /^\d+/.exec(l)![0])).toEqual(['2', '3', '1']);
    expect(paused[3]).toMatch(new RegExp(`^1 +Shop .* ${when}, paused +/private/x is blocked`));
    const onlyPaused = await robowatch('sites', 'list', '--state', 'paused');
    expect(onlyPaused.stdout.trimEnd().split('\n').slice(1)).toEqual([
      expect.stringMatching(/^1 +Shop /) as string,
      '1 site: 1 not as intended',
    ]);

    // Narrowed by state or tag, as the overview's filters narrow it.
    const open = await robowatch('sites', 'list', '--state', 'not-as-intended');
    expect(open.stdout.trimEnd().split('\n').slice(1)).toEqual([
      expect.stringMatching(/^1 +Shop /) as string,
      '1 site: 1 not as intended',
    ]);
    const tagged = await robowatch('sites', 'list', '--tag', 'shop-team', '--json');
    expect(
      tagged.stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      expect.objectContaining({
        id: 1,
        origin: server.origin,
        name: 'Shop',
        condition: 'ok',
        intent: expect.objectContaining({
          state: 'not-as-intended',
          lead: '/private/x is blocked for Googlebot',
        }) as unknown,
      }),
    ]);
    const none = await robowatch('sites', 'list', '--tag', 'nobody');
    expect([none.code, none.stdout]).toEqual([0, 'no watched site matches\n']);
    const refused = await robowatch('sites', 'list', '--state', 'broken');
    expect([refused.code, refused.stdout]).toEqual([2, '']);
    expect(refused.stderr).toMatch(
      /^robowatch: --state must be one of cannot-check, .*, not "broken"\n$/,
    );
  });
});
