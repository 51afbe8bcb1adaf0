/**
 * `robowatch check`, `history`, `diff` and `migrate`, run as a user runs them: a
 * configuration file, a loopback site, and the embedded database or PostgreSQL. The
 * commands run in the test's process (runInProcess); what only a process shows, the
 * modules the built binary loads, its fatal errors and two processes on one data
 * directory, runs the built binary.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess, runRobowatch } from '../support/cli.js';
import { recordLoads } from '../support/load-record.js';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows } from '../../src/store/db.js';
import {
  adminQuery,
  createTestDatabase,
  databaseKinds,
  databaseUrl,
  postgresUrl,
  roleConnectionsGone,
} from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { FixtureServer } from '../support/fixture-server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const server = new FixtureServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

const V1 = 'User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n';
const V2 =
  'User-agent: *\nDisallow: /private/\nDisallow: /pricing\n\nUser-agent: GPTBot\nAllow: /blog/\nDisallow: /\n';

describe.each(databaseKinds())('robowatch check, history and diff on %s', (kind) => {
  let dir: string;
  let config: string;
  let env: Record<string, string | undefined>;
  let database: TestDatabase | undefined;
  const robowatch = (...args: string[]) => runInProcess(args, { env });
  // The embedded database as the first command leaves it (initialised and migrated, which
  // takes seconds): made once here, copied into each test's dataDir.
  let embedded: string;
  beforeAll(async () => {
    if (kind !== 'pglite') return;
    const templateDir = mkdtempSync(join(tmpdir(), 'robowatch-template-'));
    embedded = join(templateDir, 'data');
    const templateConfig = join(templateDir, 'robowatch.yaml');
    writeFileSync(templateConfig, `dataDir: ${embedded}\nsites: []\n`);
    const first = await runInProcess(['migrate', '--config', templateConfig], {
      env: { DATABASE_URL: '' },
    });
    expect([first.code, first.stderr]).toEqual([0, '']);
  });

  /** A new data directory and configuration watching the loopback site, on a database of its own. */
  async function watchedSite() {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-check-'));
    if (kind === 'pglite') cpSync(embedded, join(dir, 'data'), { recursive: true });
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
sites:
  - url: ${server.origin}
    watch: [/, /pricing, /blog/post, /private/x]
fetch:
  allowPrivateAddresses: 'loopback'
  confirmRetries: 1
  confirmDelayMs: 0
  timeoutMs: 3000
`,
    );
    const database = kind === 'postgres' ? await createTestDatabase('postgres') : undefined;
    // The embedded database is chosen by leaving DATABASE_URL unset.
    const env = { DATABASE_URL: database?.url ?? '', ROBOWATCH_CONFIG: undefined };
    return { dir, config, env, database };
  }

  beforeEach(async () => {
    ({ dir, config, env, database } = await watchedSite());
    server.serve('/robots.txt', 200, V1);
  });
  afterEach(async () => {
    server.routes.clear();
    await database?.close();
  });

  it('checks, records, and shows history and diffs', async () => {
    const first = await robowatch('check', '--config', config);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(
        `^${server.origin}  baseline   ok 200; 5 of 8 watched page × crawler pairs disallowed  \\[snapshot 1\\]$`,
        'm',
      ),
    );
    expect(first.stdout).toMatch(
      /^1 site checked: 1 baseline, 0 changed \(0 changes\), 0 unchanged; incidents: 1 opened$/m,
    );

    const again = await robowatch('check', '--config', config);
    expect(again.stdout).toMatch(/unchanged {2}ok 200 {2}\[snapshot 1\]/);

    server.serve('/robots.txt', 200, V2);
    const changed = await robowatch('check', '--config', config, '--json');
    expect(changed.code).toBe(0);
    const events = changed.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toEqual([
      {
        type: 'newly_disallowed',
        site: server.origin,
        url: `${server.origin}/pricing`,
        agent: 'Googlebot',
        cause: { type: 'rule', directive: 'disallow', pattern: '/pricing', line: 3 },
      },
      {
        type: 'newly_allowed',
        site: server.origin,
        url: `${server.origin}/blog/post`,
        agent: 'GPTBot',
        cause: { type: 'rule', directive: 'allow', pattern: '/blog/', line: 6 },
      },
      {
        type: 'rules_changed',
        site: server.origin,
        added: [
          { agent: 'Googlebot', directive: 'disallow', pattern: '/pricing', line: 3 },
          { agent: 'GPTBot', directive: 'allow', pattern: '/blog/', line: 6 },
        ],
        removed: [],
      },
    ]);

    const history = await robowatch('history', server.origin, '--config', config);
    expect([history.code, history.stderr]).toEqual([0, '']);
    const rows = history.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(
      /^ID\s+FIRST SEEN\s+LAST SEEN\s+ACCESS\s+STATUS\s+SIZE\s+TRUNCATED\s+SHA-256\s+CHECKS\s+WHAT CHANGED$/,
    );
    // What each snapshot changed, as the site's page says it: its most severe cause.
    expect(rows.map((r) => r.split(/\s{2,}/).at(-1))).toEqual([
      'WHAT CHANGED',
      '/pricing is now disallowed for Googlebot (Disallow: /pricing, line 3) (and 1 more change)',
      'first snapshot',
    ]);
    expect(
      rows
        .slice(1)
        .map((r) => r.split(/\s{2,}/).filter((c) => /^\d+$/.test(c) || /^ok$|^no$/.test(c))),
    ).toEqual([
      ['2', 'ok', '200', 'no', '1'],
      ['1', 'ok', '200', 'no', '2'],
    ]);
    const json = await robowatch('history', server.origin, '--config', config, '--json');
    const snapshots = json.stdout
      .trimEnd()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            id: number;
            checks: number;
            size: number;
            sha256: string;
            change: { causes: number } | null;
          },
      );
    expect(snapshots.map((s) => [s.id, s.checks, s.size, s.change?.causes ?? null])).toEqual([
      [2, 1, V2.length, 2],
      [1, 2, V1.length, null],
    ]);
    expect(snapshots[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);

    const diff = await robowatch('diff', server.origin, '--config', config);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain(`${server.origin}: snapshot 1 (`);
    // The causes, then the text diff.
    expect(diff.stdout).toContain(
      [
        'What changed (2):',
        '  `Disallow: /pricing` added to the `*` group (line 3)',
        '    now disallowed for Googlebot: /pricing',
        '  `Allow: /blog/` added to the GPTBot group (line 6)',
        '    now allowed for GPTBot: /blog/post',
      ].join('\n'),
    );
    // The site has no sitemap: no "0 of 0 -> 0 of 0" table of sitemap URLs.
    expect(diff.stdout).not.toContain('Sitemap URLs');
    expect(diff.stdout).toMatch(/^--- robots.txt \(snapshot 1\)$/m);
    expect(diff.stdout).toMatch(/^\+Disallow: \/pricing$/m);
    expect(diff.stdout).toMatch(/^\+Allow: \/blog\/$/m);

    const reverse = await robowatch(
      'diff',
      server.origin,
      '--from',
      '2',
      '--to',
      '1',
      '--config',
      config,
    );
    expect(reverse.stdout).toContain(
      '  `Disallow: /pricing` removed from the `*` group (it was line 3)\n    now allowed for Googlebot: /pricing',
    );

    // --json: the snapshots, the events as today, the causes, the text diff.
    const json2 = JSON.parse(
      (await robowatch('diff', server.origin, '--json', '--config', config)).stdout,
    ) as {
      from: { id: number };
      to: { id: number };
      events: unknown[];
      causes: { type: string }[];
      patch: string;
    };
    expect([json2.from.id, json2.to.id]).toEqual([1, 2]);
    expect(json2.events).toHaveLength(3);
    expect(json2.causes.map((c) => c.type)).toEqual(['rule', 'rule']);
    expect(json2.patch).toContain('+Disallow: /pricing');
  });

  it('names the crawlers of a site added outside the file in its history and diff, as for the file’s', async () => {
    // The site is imported (in the database, as one added in the web UI), not in the file:
    // its crawlers and pages are the file's top-level ones, and what changed must be told
    // of them as for a site of the file ("all 5 watched crawlers", not "5 crawlers").
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot, Bingbot, GPTBot, CCBot, ClaudeBot]
watch: [/, /pricing]
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
`,
    );
    writeFileSync(join(dir, 'list.txt'), `${server.origin}\n`);
    const imported = await robowatch('sites', 'import', '--config', config, join(dir, 'list.txt'));
    expect([imported.code, imported.stderr]).toEqual([0, '']);
    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
    expect((await robowatch('check', '--config', config)).code).toBe(0);
    server.serve('/robots.txt', 503, 'busy');
    expect((await robowatch('check', '--config', config)).code).toBe(0);

    const history = await robowatch('history', server.origin, '--config', config);
    expect([history.code, history.stderr]).toEqual([0, '']);
    expect(
      history.stdout
        .trimEnd()
        .split('\n')[1]!
        .split(/\s{2,}/)
        .slice(3),
    ).toEqual([
      'unreachable',
      '503',
      '-',
      'no',
      '-',
      '1',
      'robots.txt answers 503 (Google crawls nothing)',
    ]);
    const diff = await robowatch('diff', server.origin, '--config', config);
    expect([diff.code, diff.stderr]).toEqual([0, '']);
    expect(diff.stdout).toContain(
      '  robots.txt answers 503 (it answered 200 before)\n    Google treats the whole site as disallowed: it crawls nothing until robots.txt answers again (after 30 days it uses its last good copy).\n    now disallowed for all 5 watched crawlers: / and /pricing\n',
    );
  });

  it('reads a site added outside the file without a write: its history, incidents, diff, coverage, gate and the digest (on PostgreSQL, as a user that may only read)', async () => {
    const settings = `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
watch: [/, /pricing]
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify: {email: {smtp: 'smtp://127.0.0.1:9', from: robowatch@example.com, to: [seo@example.com]}}
`;
    writeFileSync(config, settings);
    writeFileSync(join(dir, 'list.txt'), `${server.origin}\n`);
    const imported = await robowatch('sites', 'import', '--config', config, join(dir, 'list.txt'));
    expect([imported.code, imported.stderr]).toEqual([0, '']);
    expect((await robowatch('check', '--config', config)).code).toBe(0);
    server.serve('/robots.txt', 200, V2);
    expect((await robowatch('check', '--config', config)).code).toBe(0);
    // The file now lists a site never checked: reading another gives it no row.
    writeFileSync(config, `${settings}sites:\n  - url: http://127.0.0.1:9\n`);
    const origins = async () => {
      const handle =
        database?.handle ?? (await openDatabase({ url: undefined, dataDir: join(dir, 'data') }));
      try {
        const rows = await queryRows<{ origin: string }>(
          handle.db,
          sql`SELECT origin FROM sites ORDER BY id`,
        );
        return rows.map((r) => r.origin);
      } finally {
        if (database === undefined) await handle.close();
      }
    };
    expect(await origins()).toEqual([server.origin]);
    // On PostgreSQL, as an administrator makes a user that may only read (version 14 on).
    const reader = `robowatch_reader_${process.pid}_${Date.now()}`;
    if (database !== undefined)
      await adminQuery(`CREATE ROLE ${reader} LOGIN IN ROLE pg_read_all_data`);
    try {
      const url = database === undefined ? undefined : new URL(database.url!);
      if (url !== undefined) url.username = reader;
      const read = (...args: string[]) =>
        runInProcess(args, { env: { ...env, DATABASE_URL: url?.toString() ?? '' } });

      const history = await read('history', server.origin, '--config', config);
      expect([history.code, history.stderr]).toEqual([0, '']);
      expect(history.stdout.trimEnd().split('\n')).toHaveLength(3);
      const diff = await read('diff', server.origin, '--config', config);
      expect([diff.code, diff.stderr]).toEqual([0, '']);
      expect(diff.stdout).toContain(
        '`Disallow: /pricing` added to the `*` group (line 3)\n    now disallowed for Googlebot: /pricing\n',
      );
      const incidents = await read('incidents', '--config', config);
      expect([incidents.code, incidents.stderr]).toEqual([0, '']);
      expect(incidents.stdout).toMatch(/^ID +STATE +SITE .*\n1 +open +127\.0\.0\.1:\d+ /);
      // The imported site where it stands; the file's never checked named, given no row.
      const listed = await read('sites', 'list', '--config', config);
      expect([listed.code, listed.stderr]).toEqual([0, '']);
      expect(listed.stdout.trimEnd().split('\n').slice(1)).toEqual([
        expect.stringMatching(/^1 +127\.0\.0\.1:\d+ +not as intended: /) as string,
        'not checked yet: http://127.0.0.1:9 (run robowatch check, or start the daemon)',
        '2 sites: 1 not as intended, 1 not checked yet',
      ]);
      const coverage = await read('coverage', server.origin, '--config', config);
      expect([coverage.code, coverage.stderr]).toEqual([0, '']);
      expect(coverage.stdout).toContain('No sitemap found: robots.txt has no Sitemap: line');
      writeFileSync(join(dir, 'draft.txt'), 'User-agent: *\nDisallow: /\n');
      const gate = await read(
        'gate',
        join(dir, 'draft.txt'),
        '--site',
        server.origin,
        '--config',
        config,
        '--no-sitemaps',
      );
      expect(gate.code).toBe(1);
      expect(gate.stdout).toContain('Watched: 2 pages × 2 crawlers');
      // The digest's preview: the checked site's change, and the file's site never checked
      // said so (its link the overview: it has no page yet).
      const digest = await read('digest', '--since', '1d', '--config', config);
      expect([digest.code, digest.stderr]).toEqual([0, '']);
      expect(digest.stdout).toContain('To: seo@example.com\n');
      expect(digest.stdout).toMatch(/`Disallow: \/pricing` added to the `\*` group/);
      expect(digest.stdout).toContain(
        '  127.0.0.1:9: Not checked yet: its robots.txt has not been fetched, so nothing is known of what crawlers may fetch there.\n',
      );
      if (url !== undefined) {
        // A command that writes says so in one line, not a stack trace.
        const check = await read('check', '--config', config);
        expect([check.code, check.stdout]).toEqual([1, '']);
        expect(check.stderr).toMatch(
          /^robowatch: the database refused a write: permission denied for table \w+ \(this command writes; its database user may only read\)\n$/,
        );
        const ack = await read('incidents', 'ack', '1', '--note', 'x', '--config', config);
        expect([ack.code, ack.stdout]).toEqual([1, '']);
        expect(ack.stderr).toMatch(
          /^robowatch: the database refused a write: permission denied for table \w+ \(this command writes; its database user may only read\)\n$/,
        );
      }
    } finally {
      if (database !== undefined) await adminQuery(`DROP ROLE ${reader}`);
    }
    expect(await origins()).toEqual([server.origin]);
  });

  it('says a site added outside the file has no coverage because its sitemaps are off, as for the file’s', async () => {
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot]
watch: [/, /pricing]
sitemaps: off
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
`,
    );
    writeFileSync(join(dir, 'list.txt'), `${server.origin}\n`);
    const imported = await robowatch('sites', 'import', '--config', config, join(dir, 'list.txt'));
    expect([imported.code, imported.stderr]).toEqual([0, '']);
    expect((await robowatch('check', '--config', config)).code).toBe(0);
    const coverage = await robowatch('coverage', server.origin, '--config', config);
    expect([coverage.code, coverage.stdout]).toEqual([2, '']);
    expect(coverage.stderr).toBe(
      `robowatch: ${server.origin} has no coverage: its sitemaps are off (set sitemaps: auto, or list them)\n`,
    );
  });

  it('says when a check leaves the site not as its owner intends, what became of its incident, and when it is as intended again', async () => {
    // The default intent: every watched page crawlable by the search engines (Googlebot).
    const first = await robowatch('check', '--config', config);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      [
        '5 of 8 watched page × crawler pairs disallowed  [snapshot 1]',
        '    Not as intended: /private/x is blocked for Googlebot. Incident #1 opened: http://127.0.0.1:8080/incidents/1',
        '      why: Disallow: /private/ (line 2) blocks pages meant to be crawled',
        '1 site checked: 1 baseline, 0 changed (0 changes), 0 unchanged; incidents: 1 opened',
      ].join('\n'),
    );
    // Seen again: nothing judged anew, nothing said of the intent.
    const again = await robowatch('check', '--config', config);
    expect(again.stdout).not.toMatch(/intended|Incident/);

    server.serve('/robots.txt', 200, V2);
    const worse = await robowatch('check', '--config', config);
    expect(worse.stdout).toContain(
      [
        '    Not as intended: /pricing and /private/x are blocked for Googlebot. Incident #1 got worse: http://127.0.0.1:8080/incidents/1',
        '      why: Disallow: /pricing (line 3) blocks pages meant to be crawled',
        '      why: Disallow: /private/ (line 2) blocks pages meant to be crawled',
        '1 site checked: 0 baseline, 1 changed (2 changes), 0 unchanged; incidents: 1 worse',
      ].join('\n'),
    );

    server.serve('/robots.txt', 200, V1);
    const better = await robowatch('check', '--config', config);
    expect(better.stdout).toContain(
      '    Still not as intended: /private/x is blocked for Googlebot. Incident #1 stays open: http://127.0.0.1:8080/incidents/1\n',
    );
    expect(better.stdout).toMatch(/0 unchanged\n$/);

    // The incident, as the incidents page lists it: open, with what crawlers cannot do.
    const open = await robowatch('incidents', '--config', config);
    expect([open.code, open.stderr]).toEqual([0, '']);
    const [header, row, ...more] = open.stdout.trimEnd().split('\n');
    expect(more).toEqual([]);
    expect(header).toMatch(/^ID +STATE +SITE +OPENED +LASTED +ACKNOWLEDGED +WHAT$/);
    // For a monitoring check: exit 1 while one is open, the list printed all the same.
    const watch = await robowatch('incidents', '--config', config, '--exit-code');
    expect([watch.code, watch.stderr]).toEqual([
      1,
      `robowatch: 1 incident open: ${new URL(server.origin).host} is not as intended\n`,
    ]);
    expect(watch.stdout).toMatch(
      /^ID +STATE .*\n1 +open +.* so far +- +\/private\/x is blocked for Googlebot\n$/,
    );
    expect(row).toMatch(
      new RegExp(
        `^1 +open +${new URL(server.origin).host} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ +\\S.* so far +- +/private/x is blocked for Googlebot$`,
      ),
    );

    server.serve('/robots.txt', 200, 'User-agent: GPTBot\nDisallow: /\n');
    const fixed = await robowatch('check', '--config', config);
    expect(fixed.stdout).toContain(
      '    As intended again: incident #1 resolved: http://127.0.0.1:8080/incidents/1\n1 site checked: 0 baseline, 1 changed (1 change), 0 unchanged; incidents: 1 resolved\n',
    );
    const none = await robowatch('incidents', '--config', config, '--state', 'open', '--exit-code');
    expect([none.code, none.stderr]).toEqual([0, '']);
    expect(none.stdout).toBe(
      'no open incidents: every site is as intended, as far as its last check saw\n',
    );
    const listed = await robowatch('incidents', '--config', config, '--state', 'resolved');
    expect(listed.stdout.split('\n')[1]).toMatch(
      / +resolved +.* - +at worst 2 watched page × crawler pairs differed from the intent$/,
    );
    const resolved = await robowatch('incidents', server.origin, '--config', config, '--json');
    const documents = resolved.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The one incident there is: a list cut at 1 has nothing older to point to.
    const cut = await robowatch('incidents', '--config', config, '--limit', '1');
    expect(cut.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(documents).toEqual([
      expect.objectContaining({ id: 1, state: 'resolved', origin: server.origin, lead: null }),
    ]);
    // What it cannot list is said in one line.
    for (const [args, message] of [
      [['--state', 'closed'], '--state must be open or resolved, not "closed"'],
      [['--limit', '0'], '--limit must be a whole number from 1 to 500, not "0"'],
      [
        ['https://never.example'],
        'https://never.example has never been checked (run robowatch check first)',
      ],
    ] as const) {
      const refused = await robowatch('incidents', '--config', config, ...args);
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([
        2,
        '',
        `robowatch: ${message}\n`,
      ]);
    }

    // --json prints the change events and nothing else, as before.
    server.serve('/robots.txt', 200, V2);
    const json = await robowatch('check', '--config', config, '--json');
    expect(json.stdout).not.toMatch(/intended/);
  });

  it('reports a site going down, and back', async () => {
    await robowatch('check', '--config', config);
    server.serve('/robots.txt', 503, 'maintenance');
    const down = await robowatch('check', '--config', config);
    expect(down.stdout).toContain('CHANGED    unreachable 503; 1 change');
    expect(down.stdout).toContain(
      [
        '    robots.txt answers 503 (it answered 200 before)',
        '      Google treats the whole site as disallowed: it crawls nothing until robots.txt answers again (after 30 days it uses its last good copy).',
        '      now disallowed for Googlebot: /, /pricing and /blog/post',
      ].join('\n'),
    );
    server.serve('/robots.txt', 200, V1);
    const up = await robowatch('check', '--config', config);
    expect(up.stdout).toMatch(
      / {4}robots\.txt answers 200 again after \d+ s of 503\n {6}Its rules apply again\.\n/,
    );
  });

  it('says where robots.txt was answered from when it redirects, another host included', async () => {
    const other = await new FixtureServer().start('127.0.0.2');
    try {
      other.serve('/robots.txt', 200, V1);
      server.routes.set('/robots.txt', (_req, res) =>
        res.writeHead(301, { location: `${other.origin}/robots.txt` }).end(),
      );
      const first = await robowatch('check', '--config', config);
      expect(first.stdout).toContain(
        `${server.origin}  baseline   ok 200 from ${other.origin}/robots.txt (redirected); `,
      );
      // Two hops, the second to a file that is gone: where the 404 came from.
      other.serve('/robots.txt', 301, '', { location: '/gone/robots.txt' });
      const gone = await robowatch('check', '--config', config);
      expect(gone.stdout).toContain(
        `CHANGED    unavailable 404 from ${other.origin}/gone/robots.txt (2 redirects); `,
      );
      // The same file, now answered by the site itself: no change for crawlers, none said.
      server.serve('/robots.txt', 200, V1);
      await robowatch('check', '--config', config);
      const own = await robowatch('check', '--config', config);
      expect(own.stdout).toMatch(/unchanged {2}ok 200 {2}\[snapshot \d+\]/);
    } finally {
      await other.stop();
    }
  });

  it('cuts a long run’s changes past its budget, never what became of a site’s incident', async () => {
    const sites = await Promise.all(Array.from({ length: 12 }, () => new FixtureServer().start()));
    try {
      const pages = Array.from({ length: 12 }, (_, i) => `/p${i}`);
      const many = join(dir, 'many.yaml');
      writeFileSync(
        many,
        `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
watch: [${pages.join(', ')}]
sites:
${sites.map((s) => `  - url: ${s.origin}`).join('\n')}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
`,
      );
      for (const s of sites) s.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private/\n');
      expect((await robowatch('check', '--config', many)).code).toBe(0);
      // Each site blocks every watched page, one rule each: thirteen changes a site (with
      // the rule it dropped).
      const rules = pages.map((p) => `Disallow: ${p}`).join('\n');
      for (const s of sites) s.serve('/robots.txt', 200, `User-agent: *\n${rules}\n`);
      const run = await robowatch('check', '--config', many);
      expect([run.code, run.stderr]).toEqual([0, '']);
      const blocks = run.stdout.split(/^(?=http:)/m);
      expect(blocks).toHaveLength(12);
      // The budget ran out: later sites say their changes are not shown...
      expect(run.stdout).toMatch(/\(13 changes not shown: this run printed enough; --all/);
      // ...and every site still says it is not as intended, and which incident opened.
      for (const block of blocks)
        expect(block).toMatch(
          /^ {4}Not as intended: \/p0, \/p1 and 10 more pages are blocked for Googlebot\. Incident #\d+ opened: /m,
        );
      expect(run.stdout).toMatch(/; incidents: 12 opened\n$/);
    } finally {
      await Promise.all(sites.map((s) => s.stop()));
    }
  });

  it('tells a diff as the check that saw it did, however much later it is read', async () => {
    let clock = Date.parse('2026-03-01T09:00:00Z');
    const at = { now: () => new Date(clock), env };
    const HOUR = 3_600_000;
    await runInProcess(['check', '--config', config], at);
    clock += HOUR;
    server.serve('/robots.txt', 503, 'maintenance');
    await runInProcess(['check', '--config', config], at);
    clock += 3 * HOUR;
    server.serve('/robots.txt', 200, V1);
    const up = await runInProcess(['check', '--config', config], at);
    expect(up.stdout).toContain('    robots.txt answers 200 again after 3 h of 503\n');
    // A month later, the same change: still 3 h of 503, not a month.
    clock += 30 * 24 * HOUR;
    const diff = await runInProcess(['diff', server.origin, '--config', config], at);
    expect([diff.code, diff.stderr]).toEqual([0, '']);
    expect(diff.stdout).toContain('  robots.txt answers 200 again after 3 h of 503\n');
  });

  it('says it could not check a site on a private address, alerting once, recording no state', async () => {
    const hook = await new WebhookReceiver('refused-hook-secret').start();
    try {
      // The same site, without allowPrivateAddresses: robowatch's guard refuses 127.0.0.1.
      const guarded = join(dir, 'guarded.yaml');
      writeFileSync(
        guarded,
        `dataDir: ${join(dir, 'data')}
agents: [Googlebot, GPTBot]
sites:
  - url: ${server.origin}
    watch: [/, /pricing, /blog/post, /private/x]
fetch: {confirmRetries: 0, timeoutMs: 3000}
notify: {webhooks: [{url: ${hook.url}, secret: ${hook.secret}}]}
`,
      );
      const requests = server.requests.length;
      const refused = await robowatch('check', '--config', guarded);
      const line =
        'robowatch could not check this site: it resolves to a private address (127.0.0.1 is a private or reserved address); fetch.allowPrivateAddresses allows it';
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe(
        `${server.origin}  NOT CHECKED  ${line}\n    Incident #1 opened: http://127.0.0.1:8080/incidents/1\n0 sites checked: 0 baseline, 0 changed (0 changes), 0 unchanged; incidents: 1 opened\n1 notification sent\n`,
      );
      expect(refused.stderr).toBe(
        `robowatch: 1 site could not be checked; ${server.origin}: ${line}\n`,
      );
      expect(server.requests.length).toBe(requests);
      expect(hook.received).toHaveLength(1);
      // An incident: robowatch refused the site, never that crawlers are blocked.
      const alert = JSON.parse(hook.received[0]!.body) as {
        subject: string;
        incident: { state: string; causes: string[] };
      };
      expect(alert.subject).toBe(
        `${new URL(server.origin).host}: robowatch refused to fetch its robots.txt (127.0.0.1 is a private or reserved address); fetch.allowPrivateAddresses allows it`,
      );
      expect(alert.incident.state).toBe('cannot-check');
      expect(alert.subject).not.toMatch(/disallowed|blocked/);
      // No state: history has nothing; a second refusal alerts nothing more.
      const history = await robowatch('history', '--config', guarded, server.origin);
      expect(history.stdout).not.toMatch(/unreachable|blocked/);
      expect((await robowatch('check', '--config', guarded)).code).toBe(1);
      expect(hook.received).toHaveLength(1);
      // Allowed, the site is checked: its baseline, and nothing refused any more.
      const allowed = await robowatch('check', '--config', config);
      expect(allowed.code).toBe(0);
      expect(allowed.stdout).toContain('baseline   ok 200');
    } finally {
      await hook.stop();
    }
  });

  it('says when the file turns into an HTML page', async () => {
    await robowatch('check', '--config', config);
    server.serve('/robots.txt', 200, '<!DOCTYPE html>\n<html><body>Welcome!</body></html>\n', {
      'content-type': 'text/html',
    });
    const result = await robowatch('check', '--config', config);
    expect(result.stdout).toContain(
      [
        '    robots.txt is now an HTML page (served with 200)',
        "      Crawlers find no rules in an HTML page, so every URL is crawlable, as with a 404; the previous file's 2 Disallow rules no longer apply.",
        '      now allowed for GPTBot: /, /pricing and /blog/post',
        '      now allowed for Googlebot and GPTBot: /private/x',
      ].join('\n'),
    );
  });

  it('prints a hostile file’s control characters as escapes in the check and its diff, and never raw in the digest', async () => {
    await robowatch('check', '--config', config);
    // Escape sequences that would clear the screen, retitle and recolour the terminal.
    server.serve(
      '/robots.txt',
      200,
      `${V1}Disallow: /b\u001b[2J\u001b]0;pwned\u0007\nFoo\u001b[31m: bar\n`,
    );
    const check = await robowatch('check', '--config', config);
    const diff = await robowatch('diff', server.origin, '--config', config);
    for (const run of [check, diff]) {
      expect(run.code).toBe(0);
      // eslint-disable-next-line no-control-regex -- finding control characters is the point
      expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    // The causes, in the check and the diff, show what the file holds as the text diff does.
    for (const run of [check, diff])
      expect(run.stdout).toContain(
        '`Disallow: /b\\x1b[2J\\x1b]0;pwned\\x07` added to the GPTBot group',
      );
    for (const run of [check, diff]) expect(run.stdout).toContain('+ Foo\\x1b[31m: bar (line 7)');
    expect(diff.stdout).toMatch(/^\+Disallow: \/b\\x1b\[2J\\x1b\]0;pwned\\x07$/m);
    expect(diff.stdout).toMatch(/^\+Foo\\x1b\[31m: bar$/m);
    // The digest's preview prints the cause as the email says it: each control character
    // a space.
    const recipients = join(dir, 'digest.yaml');
    writeFileSync(
      recipients,
      `${readFileSync(config, 'utf8')}notify: {email: {smtp: 'smtp://127.0.0.1:9', from: robowatch@example.com, to: [seo@example.com]}}\n`,
    );
    const digest = await robowatch('digest', '--since', '7d', '--config', recipients);
    expect([digest.code, digest.stderr]).toEqual([0, '']);
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(digest.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(digest.stdout).toContain(
      '`Disallow: /b [2J ]0;pwned ` added to the GPTBot group (line 6)',
    );
  });

  it('loads only what a check uses: no web server, mail, job engine or HTTP/2', async () => {
    const loads = await recordLoads(['check', '--config', config], env);
    expect([loads.code, loads.stderr]).toEqual([0, '']);
    expect(loads.stdout).toMatch(/^1 site checked: 1 baseline/m);
    const unused = ['hono', '@hono/node-server', 'nodemailer', 'pg-boss'];
    expect(unused.filter((name) => loads.packages.has(name))).toEqual([]);
    expect(loads.builtins.has('http2')).toBe(false);
    // The database driver it does use, seen: the record is not empty by mistake.
    expect(loads.packages.has(kind === 'postgres' ? 'pg' : '@electric-sql/pglite')).toBe(true);
    expect(loads.packages.has('@electric-sql/pglite')).toBe(kind === 'pglite');
    // The next check reads the file's validated form (kept by the first): it loads neither
    // the YAML reader nor the schemas, nor the sitemap reader or text diff it does not use.
    const again = await recordLoads(['check', '--config', config], env);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toMatch(
      /^1 site checked: 0 baseline, 0 changed \(0 changes\), 1 unchanged/m,
    );
    const validation = ['zod', 'js-yaml', 'cron-parser', 'luxon', 'node-cron', 'saxes', 'diff'];
    expect(validation.filter((name) => loads.packages.has(name))).toContain('zod');
    expect(validation.filter((name) => again.packages.has(name))).toEqual([]);
    // Nor the queries of the web UI, the digests, the backfill and the accounts, nor the
    // archive's client or the accounts' model.
    const stores = ['overview', 'export', 'archive', 'accounts', 'history', 'digests']
      .map((name) => `src/store/${name}.ts`)
      .concat('src/fetch/archive.ts', 'src/monitor/accounts.ts');
    expect(again.sources.has('src/store/snapshots.ts')).toBe(true);
    expect(stores.filter((file) => again.sources.has(file))).toEqual([]);
  });

  it('migrates on demand', async () => {
    const result = await robowatch('migrate', '--config', config);
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd()).toMatch(
      kind === 'postgres'
        ? /^database is up to date: postgres at postgres:\/\//
        : /^database is up to date: pglite at .*data\/pglite$/,
    );
  });

  // Commands refused before they change anything: they share one site checked once (each
  // ran a check of its own before, a tenth of this file's time).
  describe('refusals', () => {
    let checked: Awaited<ReturnType<typeof watchedSite>>;
    beforeAll(async () => {
      checked = await watchedSite();
      server.serve('/robots.txt', 200, V1);
      const first = await runInProcess(['check', '--config', checked.config], { env: checked.env });
      expect([first.code, first.stderr]).toEqual([0, '']);
    });
    afterAll(async () => {
      await checked.database?.close();
    });

    // The loopback site is watched on http: typed without a scheme, it is still found
    // (https would be tried first).
    it.each([
      [['history'], /^1 {3}\S+ \S+ {2}\S+ \S+ {2}ok /m],
      [['diff'], /^robowatch: http:\/\/127\.0\.0\.1:\d+: only one snapshot: nothing to compare$/m],
      [['check', '--site'], /^http:\/\/127\.0\.0\.1:\d+ {2}unchanged {2}ok 200/m],
    ])('finds the http site when %j names it without a scheme', async (command, shown) => {
      const host = new URL(server.origin).host;
      const result = await runInProcess([...command, host, '--config', checked.config], {
        env: checked.env,
      });
      expect(`${result.stdout}${result.stderr}`).toMatch(shown);
      expect(result.stderr).not.toContain('never been checked');
    });

    it.each([
      [
        ['check', '--site', 'https://not-configured.example'],
        2,
        /^robowatch: --site https:\/\/not-configured.example is not a watched site \(not in .*, nor added in the web UI or API\)$/,
      ],
      [
        ['history', 'https://never-checked.example'],
        2,
        /^robowatch: https:\/\/never-checked.example has never been checked \(run robowatch check first\)$/,
      ],
      // As people type a site: https is assumed.
      [
        ['history', 'never-checked.example'],
        2,
        /^robowatch: https:\/\/never-checked.example has never been checked \(run robowatch check first\)$/,
      ],
      [
        ['history', 'not a url'],
        2,
        /^robowatch: "not a url" is not a site origin such as https:\/\/example.com$/,
      ],
      [
        ['diff', 'ORIGIN', '--from', 'abc'],
        2,
        /^robowatch: --from must be a snapshot id \(a number\), not "abc"$/,
      ],
      [['diff', 'ORIGIN', '--to', '999'], 2, /: no snapshot 999 of this site$/],
      [['diff', 'ORIGIN'], 2, /: only one snapshot: nothing to compare$/],
    ])('rejects %j with status %i and one line', async (args, code, message) => {
      const result = await runInProcess(
        [...args.map((a) => (a === 'ORIGIN' ? server.origin : a)), '--config', checked.config],
        { env: checked.env },
      );
      expect(result.code).toBe(code);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr.trimEnd()).toMatch(message);
    });
  });
});

describe('fatal errors', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'robowatch-fatal-'));
  });
  const env = { DATABASE_URL: '', ROBOWATCH_CONFIG: undefined };

  it('names the file, the key and the problem in a bad configuration (exit 1)', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'sites:\n  - url: https://example.com\n    watch: [/]\n    agnets: [Googlebot]\n',
    );
    const result = await runRobowatch(['check', '--config', file], { env });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe(
      `robowatch: ${file}: sites[0]: unknown key "agnets" (did you mean "agents"?)\n`,
    );
  });

  it('says when the configuration file is missing', async () => {
    const result = await runRobowatch(['check'], {
      env: { ...env, ROBOWATCH_CONFIG: join(dir, 'nope.yaml') },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `robowatch: ${join(dir, 'nope.yaml')}: cannot read the configuration: no such file\n`,
    );
  });

  it('says when the database is unreachable (exit 1)', async () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, `sites:\n  - url: https://example.com\n    watch: [/]\n`);
    const result = await runRobowatch(['check', '--config', file], {
      env: { DATABASE_URL: 'postgres://robowatch:secret@127.0.0.1:1/robowatch' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^robowatch: cannot connect to the database at postgres:\/\/robowatch:\*\*\*@127\.0\.0\.1:1\/robowatch: .*ECONNREFUSED.*\n$/,
    );
    expect(result.stderr).not.toContain('secret');
    // A password given as a parameter of the URL, which the driver reads too, is masked.
    const param = await runRobowatch(['check', '--config', file], {
      env: {
        DATABASE_URL:
          'postgres://robowatch@127.0.0.1:1/robowatch?password=secret-2&sslpassword=secret-3',
      },
    });
    expect(param.code).toBe(1);
    expect(param.stderr).toMatch(
      /^robowatch: cannot connect to the database at postgres:\/\/robowatch@127\.0\.0\.1:1\/robowatch\?password=\*\*\*&sslpassword=\*\*\*: /,
    );
    expect(param.stderr).not.toContain('secret');
  });

  it('keeps a second process out of the embedded database', async () => {
    const file = join(dir, 'slow.yaml');
    const slow = new FixtureServer();
    await slow.start();
    let release: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (release = resolve));
    let reached: () => void = () => undefined;
    const fetching = new Promise<void>((resolve) => (reached = resolve));
    slow.routes.set('/robots.txt', (_req, res) => {
      reached();
      void answered.then(() => res.end('User-agent: *\n'));
    });
    writeFileSync(
      file,
      `dataDir: ${join(dir, 'data')}\nsites:\n  - url: ${slow.origin}\n    watch: [/]\nfetch:\n  allowPrivateAddresses: 'loopback'\n`,
    );
    const first = runRobowatch(['check', '--config', file], { env });
    await fetching; // the first process holds the database while it waits for the site
    const second = await runRobowatch(['history', slow.origin, '--config', file], { env });
    release();
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /^robowatch: the embedded database in .* is in use by process \d+; stop it first, or set DATABASE_URL/,
    );
    expect((await first).code).toBe(0);
    await slow.stop();
  });
});

describe.runIf(postgresUrl() !== undefined)('robowatch check on one PostgreSQL connection', () => {
  // Enough sites that a check's reads and writes overlap: a check that opened a second
  // connection for them would be refused one by the role's limit.
  const sites = Array.from({ length: 40 }, () => new FixtureServer());
  const role = `robowatch_one_${process.pid}`;
  beforeAll(async () => {
    await Promise.all(sites.map((site) => site.start()));
    await adminQuery(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
    await adminQuery(`CREATE DATABASE ${role} OWNER ${role}`);
  });
  afterAll(async () => {
    await Promise.all(sites.map((site) => site.stop()));
    await adminQuery(`DROP DATABASE IF EXISTS ${role} WITH (FORCE)`);
    await adminQuery(`DROP ROLE IF EXISTS ${role}`);
  });

  const hook = new WebhookReceiver('one-connection-secret');
  beforeAll(async () => {
    await hook.start();
  });
  afterAll(async () => {
    await hook.stop();
  });

  it('checks every site, records each change and reads them back, for a role allowed a single connection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-one-'));
    const config = join(dir, 'robowatch.yaml');
    writeFileSync(
      config,
      `agents: [Googlebot, GPTBot]
watch: [/, /pricing, /blog/post, /private/x]
sites:
${sites.map((site) => `  - url: ${site.origin}\n`).join('')}fetch:
  allowPrivateAddresses: 'loopback'
  timeoutMs: 3000
notify: {webhooks: [{url: ${hook.url}, secret: ${hook.secret}}]}
`,
    );
    const env = { DATABASE_URL: databaseUrl(role, role), ROBOWATCH_CONFIG: undefined };
    for (const site of sites) site.serve('/robots.txt', 200, V1);
    // Each command as the role starts once the last one's backend is gone: the server
    // counts an exiting backend against the limit for a moment after its client closed.
    const asRole = async (args: string[]) => {
      await roleConnectionsGone(role);
      return runInProcess(args, { env });
    };
    const first = await asRole(['check', '--config', config]);
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toMatch(/^40 sites checked: 40 baseline, 0 changed/m);

    for (const site of sites) site.serve('/robots.txt', 200, V2);
    const changed = await asRole(['check', '--config', config, '--json']);
    expect([changed.code, changed.stderr]).toEqual([0, '']);
    const events = changed.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; site: string; url?: string });
    const blocked = events.filter((e) => e.type === 'newly_disallowed');
    expect(new Set(blocked.map((e) => e.site)).size).toBe(40);
    expect(new Set(blocked.map((e) => e.url))).toEqual(
      new Set(sites.map((site) => `${site.origin}/pricing`)),
    );

    // Each site's two states are recorded, the second its current one.
    const handle = await openDatabase({ url: databaseUrl(role), dataDir: '' });
    try {
      const rows = await queryRows<{ states: number; current: boolean }>(
        handle.db,
        sql`SELECT count(*)::int AS states, bool_and(s.current_snapshot_id = (
              SELECT max(n.id) FROM snapshots n WHERE n.site_id = s.id)) AS current
            FROM sites s JOIN snapshots p ON p.site_id = s.id GROUP BY s.id`,
      );
      expect(rows).toHaveLength(40);
      expect(rows.every((r) => r.states === 2 && r.current)).toBe(true);
    } finally {
      await handle.close();
    }
    // The change's alerts went out, from the same single connection.
    expect(hook.received.length).toBeGreaterThan(0);
    expect(hook.received.some((h) => h.body.includes('/pricing'))).toBe(true);

    // The commands that read the history hold one connection too: their reads overlapped,
    // and a second connection was refused ("too many connections for role").
    const [site] = sites;
    const read = async (...args: string[]) => {
      const run = await asRole([...args, '--config', config]);
      expect([args[0], run.code, run.stderr]).toEqual([args[0], 0, '']);
      return run.stdout;
    };
    expect(await read('history', site!.origin)).toMatch(/Googlebot.*\/pricing/s);
    expect(await read('diff', site!.origin)).toContain('/pricing');
    expect(await read('trends')).toContain('Googlebot');
    expect(await read('export', '--what', 'snapshots', '--format', 'jsonl')).toContain(
      site!.origin,
    );
    expect(await read('digest', '--since', '7d')).toMatch(/^Subject: /m);
    const draft = join(dir, 'draft.txt');
    writeFileSync(draft, 'User-agent: *\nDisallow:\n');
    expect(await read('gate', draft, '--site', site!.origin)).not.toBe('');
  });
});
