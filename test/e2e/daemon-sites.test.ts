/**
 * The daemon follows its sites while it runs: a site added through the API is checked on
 * its schedule from then on, a paused one is not, and SIGHUP reloads the configuration
 * file (a file with an error is refused and the running configuration stays), all without
 * a restart and ending with a clean stop.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  expectCleanExit,
  expectNoLongerChecked,
  logged,
  robotsFetches,
  startDaemon,
  webApi,
} from '../support/daemon.js';
import { runInProcess } from '../support/cli.js';
import { FixtureServer } from '../support/fixture-server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { TestSmtpServer } from '../support/smtp.js';

const [fileSite, apiSite, reloadSite] = [
  new FixtureServer(),
  new FixtureServer(),
  new FixtureServer(),
];
const all = [fileSite, apiSite, reloadSite];
const TOKEN = 'daemon-sites-token-0123456789';
const ROBOTS = 'User-agent: *\nDisallow: /private/\n';

beforeAll(async () => {
  for (const s of all) {
    await s.start();
    s.serve('/robots.txt', 200, ROBOTS);
  }
});
afterAll(async () => {
  for (const s of all) await s.stop();
});

const fetches = robotsFetches;

function configText(dir: string, sites: readonly FixtureServer[], extra = ''): string {
  return `dataDir: ${join(dir, 'data')}
agents: [Googlebot]
watch: [/, /private/x]
sites:
${sites.map((s) => `  - url: ${s.origin}`).join('\n')}
schedule: {check: '*/2 * * * * *'}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: 0, token: ${TOKEN}}
${extra}`;
}

describe('robowatch start with sites that change while it runs', () => {
  it('checks a site added through the API, stops checking it when paused, and reloads the file on SIGHUP', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-sites-'));
    const file = join(dir, 'robowatch.yaml');
    writeFileSync(file, configText(dir, [fileSite]));
    const daemon = startDaemon(file, { DATABASE_URL: '' });
    const wait = { timeout: 60_000, interval: 100 };
    const hook = await new WebhookReceiver('default-hook-secret').start();
    const smtp = await new TestSmtpServer().start();
    try {
      const api = await webApi(daemon, TOKEN);
      await vi.waitFor(() => expect(fetches(fileSite)).toBeGreaterThanOrEqual(2), wait);

      // Added through the API: its baseline at once, then every period.
      const crawlers = ['Googlebot', 'Bingbot', 'GPTBot', 'CCBot', 'ClaudeBot'];
      const added = await api('POST', '/api/v1/sites', {
        url: apiSite.origin,
        name: 'API site',
        agents: crawlers,
        profile: 'legacy',
      });
      expect(added.status).toBe(201);
      const { id, check } = (await added.json()) as { id: number; check: { kind: string } };
      expect(check.kind).toBe('baseline');
      await vi.waitFor(() => expect(fetches(apiSite)).toBeGreaterThanOrEqual(4), wait);
      expect(logged(daemon, 'watched sites changed')).toBe(true);

      // Read beside the daemon (which holds the embedded database), the site added through
      // the API is told with its own crawlers and profile, as a site of the file is with the
      // file's: under the 1996 standard a 403 forbids everything (Google would crawl all).
      apiSite.serve('/robots.txt', 403, 'forbidden');
      const env = { DATABASE_URL: '' };
      await vi.waitFor(
        async () => {
          const history = await runInProcess(['history', apiSite.origin, '--config', file], {
            env,
          });
          expect(history.stdout.split('\n')[1]).toMatch(
            /\s{2}unreachable\s{2}403\s.*\s{2}robots\.txt answers 403 \(crawlers crawl nothing\)$/,
          );
        },
        { timeout: 60_000, interval: 500 },
      );
      const diff = await runInProcess(['diff', apiSite.origin, '--config', file], { env });
      expect([diff.code, diff.stderr]).toEqual([0, '']);
      expect(diff.stdout).toContain(
        `now disallowed for all ${crawlers.length} watched crawlers: /\n`,
      );
      apiSite.serve('/robots.txt', 200, ROBOTS);

      // Paused: not fetched again (one check may have been under way), while the others are.
      expect((await api('POST', `/api/v1/sites/${id}/pause`)).status).toBe(200);
      await expectNoLongerChecked(apiSite, fileSite);

      // A default webhook added through the API: the file's site alerts it from then on,
      // signed with its secret, without a restart.
      const defaults = await api('PUT', '/api/v1/notifications/defaults', {
        webhooks: [{ url: hook.url, secret: hook.secret }],
      });
      expect(defaults.status).toBe(200);
      fileSite.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /\n');
      await vi.waitFor(() => expect(hook.received.length).toBeGreaterThanOrEqual(1), wait);
      const alert = hook.received[0]!;
      expect(alert.signatureValid).toBe(true);
      const body = JSON.parse(alert.body) as { site: string; subject: string };
      expect(body.site).toBe(fileSite.origin);
      // Its incident got worse: every watched page is blocked for Googlebot now.
      expect(body.subject).toMatch(
        /: (worse|not as intended): \/ and \/private\/x are blocked for Googlebot$/,
      );
      // Beside the daemon, which holds the embedded database, `incidents` asks it.
      const incidents = await runInProcess(
        ['incidents', fileSite.origin, '--state', 'open', '--config', file],
        { env },
      );
      expect([incidents.code, incidents.stderr]).toEqual([0, '']);
      expect(incidents.stdout).toMatch(
        new RegExp(
          `\\n\\d+ +open +${new URL(fileSite.origin).host} +.* so far +- +/ and /private/x are blocked for Googlebot\\n$`,
        ),
      );
      // Acknowledged from the terminal beside it: the daemon acknowledges it, and says so.
      const incidentId = /\n(\d+) +open /.exec(incidents.stdout)![1]!;
      const ack = await runInProcess(
        [
          'incidents',
          'ack',
          incidentId,
          '--note',
          'rolling back the deploy',
          '--by',
          'ops',
          '--config',
          file,
        ],
        { env },
      );
      expect([ack.code, ack.stderr]).toEqual([0, '']);
      expect(ack.stdout).toMatch(
        new RegExp(
          `^incident ${incidentId} on ${new URL(fileSite.origin).host}, open since .*: acknowledged by ops at .*: rolling back the deploy\\n$`,
        ),
      );
      const acknowledged = await runInProcess(['incidents', '--json', '--config', file], { env });
      expect(
        acknowledged.stdout
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .find((incident) => String(incident['id']) === incidentId),
      ).toMatchObject({ acknowledgedBy: 'ops', note: 'rolling back the deploy' });
      expect(daemon.logs.some((l) => l['msg'] === 'incident acknowledged')).toBe(true);
      // Without a login name (as cron runs it), the daemon is told who as the command says
      // it without one, not its own token's name.
      const anonymous = await runInProcess(
        ['incidents', 'ack', incidentId, '--note', 'rolling back the deploy', '--config', file],
        { env: { ...env, USER: undefined, LOGNAME: undefined, USERNAME: undefined } },
      );
      expect([anonymous.code, anonymous.stderr]).toEqual([0, '']);
      expect(anonymous.stdout).toMatch(/: acknowledged by robowatch \(command line\) at /);
      // Every other open one at once, asked of the daemon page by page; the note given by
      // hand kept. An id with no incident refuses them all, before any is acknowledged.
      const missing = await runInProcess(
        ['incidents', 'ack', incidentId, '999999', '--note', 'x', '--config', file],
        { env },
      );
      expect([missing.code, missing.stderr]).toEqual([
        2,
        'robowatch: there is no incident 999999: none was acknowledged\n',
      ]);
      const rest = await runInProcess(
        ['incidents', 'ack', '--open', '--note', 'CDN rule rolled back', '--config', file],
        { env },
      );
      expect([rest.code, rest.stderr]).toEqual([0, '']);
      expect(rest.stdout).toMatch(
        /\n?1 open incident was acknowledged already: its note kept \(acknowledge it by id to replace it\)\n$/,
      );
      const stillOpen = await runInProcess(
        ['incidents', '--state', 'open', '--json', '--config', file],
        { env },
      );
      const notes = stillOpen.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { id: number; note: string | null });
      expect(notes.find((i) => String(i.id) === incidentId)?.note).toBe('rolling back the deploy');
      expect(notes.filter((i) => i.note === null)).toEqual([]);
      // `sites list` asks it too: the file's site, not as intended, by the daemon's standings.
      const standing = await runInProcess(
        ['sites', 'list', '--state', 'not-as-intended', '--config', file],
        { env },
      );
      expect([standing.code, standing.stderr]).toEqual([0, '']);
      expect(standing.stdout).toMatch(
        new RegExp(
          `\\n\\d+ +${new URL(fileSite.origin).host} +not as intended: .* +/ and /private/x are blocked for Googlebot\\n`,
        ),
      );
      fileSite.serve('/robots.txt', 200, ROBOTS);

      // SIGHUP: the file now lists another site; it is checked from then on.
      writeFileSync(file, configText(dir, [fileSite, reloadSite]));
      daemon.child.kill('SIGHUP');
      await vi.waitFor(() => expect(logged(daemon, 'configuration reloaded')).toBe(true), wait);
      const reloaded = daemon.logs.find((l) => l['msg'] === 'configuration reloaded')!;
      expect(reloaded).toMatchObject({
        sites: 2,
        added: 1,
        removed: 0,
        addedSites: [reloadSite.origin],
      });
      await vi.waitFor(() => expect(fetches(reloadSite)).toBeGreaterThanOrEqual(3), wait);

      // A file with an error is refused, in one line; the running configuration stays.
      writeFileSync(file, configText(dir, [fileSite], 'wacth: [/]\n'));
      daemon.child.kill('SIGHUP');
      const refusal =
        'configuration not reloaded: the file has an error; the running configuration stays';
      await vi.waitFor(() => expect(logged(daemon, refusal)).toBe(true), wait);
      expect(daemon.logs.find((l) => l['msg'] === refusal)!['error']).toBe(
        `${file}: unknown key "wacth" (did you mean "watch"?)`,
      );
      // `config check` says so before a reload, in the same words.
      const checked = await runInProcess(['config', 'check', '--config', file], { env });
      expect([checked.code, checked.stdout, checked.stderr]).toEqual([
        1,
        '',
        `robowatch: ${file}: unknown key "wacth" (did you mean "watch"?)\n`,
      ]);
      const reloadAtRefusal = fetches(reloadSite);
      await vi.waitFor(
        () => expect(fetches(reloadSite)).toBeGreaterThanOrEqual(reloadAtRefusal + 2),
        wait,
      );

      // With no mail server, the page says how to add one without a restart, as done next.
      const noEmail = (await (await api('GET', '/notifications')).text()).replace(/\s+/g, ' ');
      expect(noEmail).toContain(
        'then reload the daemon (<code class="nowrap">kill -HUP</code> its process): it applies without a restart.',
      );

      // A change of a setting that needs a restart is said, not silently ignored, and the
      // process keeps the value it runs with until then: its pages' times stay in UTC. A
      // mail server the reload adds sends at once.
      const server = `smtp://127.0.0.1:${smtp.port}`;
      writeFileSync(
        file,
        configText(
          dir,
          [fileSite, reloadSite],
          `notify: {retry: {baseDelayMs: 60000}, email: {smtp: '${server}', from: rw@example.com, to: [lead@example.com]}}\n`,
        )
          .replace(
            "schedule: {check: '*/2 * * * * *'}",
            "schedule: {check: '*/2 * * * * *', timezone: Asia/Tokyo}",
          )
          .replace('timeoutMs: 3000}', 'timeoutMs: 3000, userAgent: reloaded-agent/1.0}'),
      );
      // `config check` says beforehand which of them a reload leaves for the restart, and
      // still says so after it: the daemon goes on with those it started with.
      const pid = daemon.child.pid!;
      const before = await runInProcess(['config', 'check', '--config', file], { env });
      const waiting = new RegExp(
        `\\n {2}running: process ${pid} \\(robowatch start\\), started [^:]+:\\d\\d \\(Asia/Tokyo\\): a reload \\(kill -HUP ${pid}\\) applies the file except fetch and schedule\\.timezone, which changed since it started and wait for a restart\\n$`,
      );
      expect(before.stdout).toMatch(waiting);
      daemon.child.kill('SIGHUP');
      await vi.waitFor(
        () =>
          expect(
            logged(
              daemon,
              'changed settings that apply at the next start: fetch, schedule.timezone',
            ),
          ).toBe(true),
        wait,
      );
      expect(logged(daemon, `email now goes through ${server}, from rw@example.com`)).toBe(true);
      const after = await runInProcess(['config', 'check', '--config', file], { env });
      expect(after.stdout).toMatch(waiting);
      // A test of the webhook goes out as its alerts do, with the User-Agent it started with.
      const listed = (await (await api('GET', '/api/v1/notifications')).json()) as {
        email: unknown;
        channels: { id: string; format: string | null }[];
      };
      const webhook = listed.channels.find((c) => c.format !== null)!;
      const tested = await api('POST', '/api/v1/notifications/test', { channel: webhook.id });
      expect(tested.status).toBe(200);
      expect(hook.received.at(-1)!.headers['user-agent']).toBe(alert.headers['user-agent']);
      const overview = await (await api('GET', '/')).text();
      expect(overview).toContain(' UTC');
      expect(overview).not.toContain('Asia/Tokyo');
      // The mail server is the reloaded one, on the API and the page, and sends now.
      expect(listed.email).toEqual({ server, from: 'rw@example.com' });
      const page = (await (await api('GET', '/notifications')).text()).replace(/\s+/g, ' ');
      expect(page).toContain(`Email goes through <code>${server}</code>, from rw@example.com.`);
      const mailed = await api('POST', '/api/v1/notifications/test', { channel: 'email' });
      expect(mailed.status).toBe(200);
      const test = smtp.received.find((m) => m.parsed.subject === 'robowatch: test notification');
      expect(test?.envelopeTo).toEqual(['lead@example.com']);
      expect(test?.parsed.from?.address).toBe('rw@example.com');
    } finally {
      daemon.child.kill('SIGTERM');
      await hook.stop();
      await smtp.stop();
    }
    await expectCleanExit(daemon);
    expect(daemon.logs.slice(-2).map((l) => l['msg'])).toEqual([
      'daemon stopped',
      'robowatch stopped',
    ]);
    expect(daemon.stderr).toBe('');
  });
});
