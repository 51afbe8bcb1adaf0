/**
 * The daemon with the address guard on (the default) and a site on loopback: each
 * scheduled check is refused, said in the log and on the site's API as robowatch not
 * being able to check, alerted once (not once per check), and never recorded as a state
 * of the site.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logged, startDaemon, expectCleanExit } from '../support/daemon.js';
import { FixtureServer } from '../support/fixture-server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const site = new FixtureServer();
beforeAll(() => site.start());
afterAll(() => site.stop());

describe('robowatch start with a site on a private address', () => {
  it('says it cannot check it, alerts once, and records no state', async () => {
    site.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /\n');
    const hook = await new WebhookReceiver('refused-daemon-secret').start();
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-refused-'));
    const file = join(dir, 'robowatch.yaml');
    writeFileSync(
      file,
      `dataDir: ${join(dir, 'data')}
agents: [Googlebot]
watch: [/]
sitemaps: off
sites:
  - url: ${site.origin}
schedule: {check: '*/2 * * * * *'}
fetch: {confirmRetries: 0, timeoutMs: 3000}
notify: {webhooks: [{url: ${hook.url}, secret: ${hook.secret}}]}
web: {listen: 0}
`,
    );
    const daemon = startDaemon(file, { DATABASE_URL: '' });
    const wait = { timeout: 60_000, interval: 100 };
    const refusals = () =>
      daemon.logs.filter((l) =>
        String(l['msg']).startsWith(
          'robowatch could not check this site: it resolves to a private address',
        ),
      );
    try {
      await vi.waitFor(() => expect(logged(daemon, 'web listening')).toBe(true), wait);
      const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
      // Several periods refused: one alert, sent.
      await vi.waitFor(() => expect(refusals().length).toBeGreaterThanOrEqual(3), wait);
      await vi.waitFor(() => expect(hook.received).toHaveLength(1), wait);
      expect(refusals()[0]).toMatchObject({ level: 40, site: site.origin });
      // An incident: robowatch refused the site (never that crawlers are blocked).
      const alert = JSON.parse(hook.received[0]!.body) as {
        subject: string;
        incident: { transition: string; state: string; causes: string[] };
      };
      expect(alert.incident).toMatchObject({ transition: 'opened', state: 'cannot-check' });
      expect(alert.subject).toBe(
        `${new URL(site.origin).host}: robowatch refused to fetch its robots.txt (127.0.0.1 is a private or reserved address); fetch.allowPrivateAddresses allows it`,
      );
      expect(alert.subject).not.toMatch(/disallowed|blocked/);
      // Operators read it in the log too.
      expect(
        daemon.logs.find((l) => l['msg'] === 'incident opened: not as intended'),
      ).toMatchObject({ level: 40, site: site.origin, state: 'cannot-check' });
      expect(site.requests).toHaveLength(0);
      const document = (await (await fetch(`${base}/api/v1/sites/1`)).json()) as {
        current: unknown;
        refused: { reason: string } | null;
      };
      expect(document.current).toBeNull();
      expect(document.refused?.reason).toBe('127.0.0.1 is a private or reserved address');
      expect(daemon.logs.some((l) => String(l['msg']).startsWith('checked'))).toBe(false);
      expect(hook.received).toHaveLength(1);
    } finally {
      daemon.child.kill('SIGTERM');
      await hook.stop();
    }
    await expectCleanExit(daemon);
    expect(daemon.stderr).toBe('');
  });
});
