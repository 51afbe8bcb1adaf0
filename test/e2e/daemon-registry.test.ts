/**
 * The daemon keeps its AI crawler registry current: it fetches registry.url at the start
 * (a loopback server plays the registry), records it, watches the registry's training
 * crawlers on a site that keeps some of them out by name, and, when the registry gains
 * crawlers, alerts that the new ones may crawl the site through `*` (registry_changed is
 * one of the site's topics), uses them from then on, and says so on /api/v1/registry.
 * A registry that cannot be fetched leaves the one in use.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { logged, startDaemon, expectCleanExit } from '../support/daemon.js';
import { FixtureServer } from '../support/fixture-server.js';
import { fixturePath } from '../support/fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const site = new FixtureServer();
const registry = new FixtureServer();
const OLD = readFileSync(fixturePath('registry/ai-robots.2026-02.json'), 'utf8');
const NEW = readFileSync(new URL('../../registry/ai-robots.json', import.meta.url), 'utf8');
const ROBOTS =
  'User-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\nDisallow: /admin/\n';

beforeAll(async () => {
  await site.start();
  await registry.start();
  site.serve('/robots.txt', 200, ROBOTS);
  registry.serve('/robots.json', 200, OLD, { 'content-type': 'application/json' });
});
afterAll(async () => {
  await site.stop();
  await registry.stop();
});

const registryFetches = () => registry.requests.filter((r) => r.path === '/robots.json').length;

describe('robowatch start with registry.url', () => {
  it('fetches the registry, alerts what an update lets in, and watches its new crawlers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-registry-'));
    const file = join(dir, 'robowatch.yaml');
    const hook = await new WebhookReceiver('registry-hook-secret').start();
    writeFileSync(
      file,
      `dataDir: ${join(dir, 'data')}
agents: ['@ai-training', '*']
watch: [/, /admin/x]
registry: {url: ${registry.origin}/robots.json, refresh: '*/2 * * * * *'}
sites:
  - url: ${site.origin}
schedule: {check: '*/2 * * * * *'}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
notify:
  events: [newly_disallowed, registry_changed]
  webhooks: [{url: ${hook.url}, secret: ${hook.secret}}]
web: {listen: 0}
`,
    );
    const daemon = startDaemon(file, { DATABASE_URL: '' });
    const wait = { timeout: 60_000, interval: 100 };
    try {
      await vi.waitFor(() => expect(logged(daemon, 'web listening')).toBe(true), wait);
      const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
      const api = async (path: string): Promise<unknown> => (await fetch(`${base}${path}`)).json();

      // At the start: fetched, recorded as the first registry (nothing to compare with), used.
      await vi.waitFor(
        () => expect(logged(daemon, 'AI crawler registry recorded')).toBe(true),
        wait,
      );
      const first = (await api('/api/v1/registry')) as {
        version: { source: string; agents: number; sha256: string };
        url: string;
      };
      expect(first.version.source).toBe(`${registry.origin}/robots.json`);
      expect(first.url).toBe(`${registry.origin}/robots.json`);
      await vi.waitFor(
        () => expect(daemon.logs.some((l) => String(l['msg']).startsWith('checked'))).toBe(true),
        wait,
      );

      // A refresh that fails (the registry answers 503) keeps it, said in one line.
      registry.serve('/robots.json', 503, 'busy');
      await vi.waitFor(
        () =>
          expect(
            daemon.logs.some(
              (l) =>
                String(l['msg']).startsWith('AI crawler registry not refreshed') &&
                l['error'] === `${registry.origin}/robots.json answered 503`,
            ),
          ).toBe(true),
        wait,
      );
      expect(hook.received).toHaveLength(0);

      // The registry gains 36 crawlers: the site keeps three training crawlers out by name,
      // and * lets the new ones in. One alert, signed, that says so.
      registry.serve('/robots.json', 200, NEW, { 'content-type': 'application/json' });
      await vi.waitFor(() => expect(hook.received.length).toBeGreaterThanOrEqual(1), wait);
      const alert = hook.received[0]!;
      expect(alert.signatureValid).toBe(true);
      const body = JSON.parse(alert.body) as {
        site: string;
        subject: string;
        causes: { type: string; title: string }[];
      };
      expect(body.site).toBe(site.origin);
      expect(body.causes.map((c) => c.type)).toEqual(['registry']);
      expect(body.subject).toMatch(
        /: \d+ new AI training crawlers may crawl this site through `\*`, though the file blocks 3 by name$/,
      );
      const updated = daemon.logs.find(
        (l) => l['msg'] === 'AI crawler registry updated: what it means for each site recorded',
      )!;
      expect(updated).toMatchObject({ sites: 1, alerting: 1 });

      // From then on the new registry's training crawlers are watched, and /api/v1/registry
      // names it.
      await vi.waitFor(async () => {
        const now = (await api('/api/v1/registry')) as { version: { agents: number } };
        expect(now.version.agents).toBe(160);
      }, wait);
      let groups: { preset: string; blocked: number; partly: number; allowed: number }[] = [];
      await vi.waitFor(async () => {
        const crawlers = (await api('/api/v1/crawlers')) as {
          crawlers: { agent: string }[];
          groups: { preset: string; blocked: number; partly: number; allowed: number }[];
        };
        expect(crawlers.crawlers.map((c) => c.agent)).toContain('HenkBot');
        // Across sites: training crawlers partly blocked on the one site (some by name).
        expect(crawlers.groups.find((g) => g.preset === '@ai-training')).toMatchObject({
          blocked: 0,
          partly: 1,
          allowed: 0,
        });
        groups = crawlers.groups;
      }, wait);
      // Each snapshot names the registry its verdicts were made with, to reproduce them.
      const history = (await api(`/api/v1/sites/1/snapshots`)) as {
        snapshots: { registry: { sha256: string; agents: number } | null }[];
      };
      expect(history.snapshots[0]!.registry).toMatchObject({ agents: 160 });
      // The crawlers page says where each purpose and operator stands across sites.
      const page = await (await fetch(`${base}/crawlers`)).text();
      expect(page).toContain('AI crawlers by purpose and operator');
      expect(page).toMatch(
        /<strong>AI training<\/strong><\/td><td class="nowrap"><code>@ai-training<\/code>/,
      );
      // A purpose or operator none of whose crawlers the site watches says so, not 0 / 0 / 0.
      const unwatched = groups.filter((g) => g.blocked + g.partly + g.allowed === 0);
      expect(unwatched.length).toBeGreaterThan(0);
      expect(page.split('no checked site watches any of them').length - 1).toBe(unwatched.length);
      // The site's verdict matrix folds the 76 crawlers into the few ways they stand.
      const sitePage = await (await fetch(`${base}/sites/1`)).text();
      expect(sitePage).toMatch(
        /76 crawlers in 2 columns: crawlers with the same verdicts, for the same\s+reasons, share one/,
      );
      const fetchesSoFar = registryFetches();
      await vi.waitFor(() => expect(registryFetches()).toBeGreaterThan(fetchesSoFar + 1), wait);
      expect(hook.received).toHaveLength(1); // the same registry again says nothing
    } finally {
      daemon.child.kill('SIGTERM');
      await hook.stop();
    }
    await expectCleanExit(daemon);
    expect(daemon.stderr).toBe('');
  });

  it('keeps the registry in use when SIGHUP points registry.url at one that cannot be read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-registry-'));
    const file = join(dir, 'robowatch.yaml');
    const configText = (path: string) => `dataDir: ${join(dir, 'data')}
agents: ['@ai-training', '*']
watch: [/]
registry: {url: ${registry.origin}${path}, refresh: '*/2 * * * * *'}
sites:
  - url: ${site.origin}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
web: {listen: 0}
`;
    registry.serve('/old.json', 200, OLD, { 'content-type': 'application/json' });
    // Over the 5 MiB a registry may have: refused before it is read whole.
    registry.serve('/big.json', 200, `{"x": "${'y'.repeat(6 * 1024 * 1024)}"}`);
    writeFileSync(file, configText('/old.json'));
    const daemon = startDaemon(file, { DATABASE_URL: '' });
    const wait = { timeout: 60_000, interval: 100 };
    try {
      await vi.waitFor(() => expect(logged(daemon, 'web listening')).toBe(true), wait);
      const base = String(daemon.logs.find((l) => l['msg'] === 'web listening')!['url']);
      const inUse = async () =>
        (
          (await (await fetch(`${base}/api/v1/registry`)).json()) as {
            version: { source: string; agents: number };
          }
        ).version;
      await vi.waitFor(
        () => expect(logged(daemon, 'AI crawler registry recorded')).toBe(true),
        wait,
      );
      const old = await inUse();
      expect(old.source).toBe(`${registry.origin}/old.json`);
      expect(old.agents).toBeLessThan(160);

      writeFileSync(file, configText('/big.json'));
      daemon.child.kill('SIGHUP');
      await vi.waitFor(() => expect(logged(daemon, 'configuration reloaded')).toBe(true), wait);
      const refusals = () =>
        daemon.logs.filter((l) => String(l['msg']).startsWith('AI crawler registry not refreshed'));
      await vi.waitFor(() => expect(refusals().length).toBeGreaterThanOrEqual(2), wait);
      // Each refusal names the URL it read and that URL's own error.
      for (const line of refusals())
        expect(line).toMatchObject({
          url: `${registry.origin}/big.json`,
          error: `${registry.origin}/big.json is over 5 MiB`,
        });
      expect(await inUse()).toEqual(old);
      const crawlers = (await (await fetch(`${base}/api/v1/crawlers`)).json()) as {
        crawlers: { agent: string }[];
      };
      expect(crawlers.crawlers.map((c) => c.agent)).not.toContain('HenkBot');

      // Once the new URL serves a registry, it is the one in use.
      registry.serve('/big.json', 200, NEW, { 'content-type': 'application/json' });
      await vi.waitFor(async () => expect((await inUse()).agents).toBe(160), wait);
      expect((await inUse()).source).toBe(`${registry.origin}/big.json`);
    } finally {
      daemon.child.kill('SIGTERM');
    }
    await expectCleanExit(daemon);
    expect(daemon.stderr).toBe('');
  });
});
