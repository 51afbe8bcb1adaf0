/**
 * A daemon and a web process of its own on one PostgreSQL (`robowatch start --no-web` beside
 * `robowatch serve`, as a deployment that scales its web apart runs them): a site added
 * through the web process's API is checked by the daemon on its schedule from the daemon's
 * next upkeep round, and a site paused there is no longer checked. The daemon learns of
 * both from the database's count of catalogue changes, which it reads every round instead
 * of the whole site list.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  expectCleanExit,
  expectNoLongerChecked,
  robotsFetches,
  startDaemon,
  webApi,
} from '../support/daemon.js';
import type { DaemonProcess } from '../support/daemon.js';
import { createTestDatabase, postgresUrl } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { FixtureServer } from '../support/fixture-server.js';
import { runInProcess } from '../support/cli.js';

const TOKEN = 'web-process-token-0123456789';
const ROBOTS = 'User-agent: *\nDisallow: /private/\n';

describe.runIf(postgresUrl() !== undefined)('a daemon and a web process of its own', () => {
  const [fileSite, apiSite] = [new FixtureServer(), new FixtureServer()];
  let database: TestDatabase;
  beforeAll(async () => {
    for (const site of [fileSite, apiSite]) {
      await site.start();
      site.serve('/robots.txt', 200, ROBOTS);
    }
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await fileSite.stop();
    await apiSite.stop();
    await database.close();
  });

  const changesSeen = (daemon: DaemonProcess) =>
    daemon.logs.filter((l) => l['msg'] === 'watched sites changed').length;

  it('checks a site added in the web process, and stops checking it once paused there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-web-process-'));
    const config = join(dir, 'robowatch.yaml');
    // leaseMs 2 s: an upkeep round every second, where the default is every 15 s.
    writeFileSync(
      config,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot]
watch: [/, /private/x]
sites:
  - url: ${fileSite.origin}
schedule: {check: '*/2 * * * * *', digest: '0 0 1 1 *', leaseMs: 2000}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: 0, token: ${TOKEN}}
`,
    );
    const env = { DATABASE_URL: database.url };
    const daemon = startDaemon(config, env, 'start', ['--no-web']);
    const web = startDaemon(config, env, 'serve');
    const wait = { timeout: 60_000, interval: 100 };
    try {
      const api = await webApi(web, TOKEN);
      await vi.waitFor(() => expect(robotsFetches(fileSite)).toBeGreaterThanOrEqual(2), wait);
      expect(robotsFetches(apiSite)).toBe(0);
      // Both processes take reloads of the file: `config check` names each.
      const checked = await runInProcess(['config', 'check', '--config', config], { env });
      const running = checked.stdout.split('\n').filter((l) => l.startsWith('  running: '));
      const processes: [number, string][] = [
        [daemon.child.pid!, 'start'],
        [web.child.pid!, 'serve'],
      ];
      expect(running).toHaveLength(2);
      processes
        .sort(([a], [b]) => a - b)
        .forEach(([pid, command], i) =>
          expect(running[i]).toMatch(
            new RegExp(
              `^ {2}running: process ${pid} \\(robowatch ${command}\\), started .* UTC: a reload \\(kill -HUP ${pid}\\) applies all of the file$`,
            ),
          ),
        );

      // Added in the web process: its baseline there, then the daemon's checks every period.
      const added = await api('POST', '/api/v1/sites', { url: apiSite.origin });
      expect(added.status).toBe(201);
      const { id } = (await added.json()) as { id: number };
      await vi.waitFor(() => expect(changesSeen(daemon)).toBe(1), wait);
      await vi.waitFor(() => expect(robotsFetches(apiSite)).toBeGreaterThanOrEqual(4), wait);

      // Paused in the web process: once the daemon has seen it, at most the check already
      // under way reaches the site, while the file's site is checked on.
      expect((await api('POST', `/api/v1/sites/${id}/pause`)).status).toBe(200);
      await vi.waitFor(() => expect(changesSeen(daemon)).toBe(2), wait);
      await expectNoLongerChecked(apiSite, fileSite);
    } finally {
      web.child.kill('SIGTERM');
      daemon.child.kill('SIGTERM');
    }
    await expectCleanExit(web);
    await expectCleanExit(daemon);
  });
});
