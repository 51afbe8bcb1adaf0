/**
 * A deploy gate whose live file robowatch's own address guard will not fetch has nothing
 * to compare the draft with: it stops in one line that says where the file is and what
 * allows it, without touching the guarded address. Over real loopback HTTP, 127.0.0.1
 * plays a public address and 127.0.0.2 a private one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { UsageError } from '../../../src/lib/errors.js';
import { DEFAULT_DISCOVERY_LIMITS } from '../../../src/monitor/check/sitemaps.js';
import { runGate } from '../../../src/monitor/gate.js';
import { FixtureServer } from '../../support/fixture-server.js';

const site = new FixtureServer();
const intranet = new FixtureServer();
const fetcher = createRobotsFetcher({
  userAgent: 'robowatch-test',
  timeoutMs: 3_000,
  allowPrivateAddresses: false,
  isAddressAllowed: (address) => address === '127.0.0.1',
});

beforeAll(async () => {
  await site.start('127.0.0.1');
  await intranet.start('127.0.0.2');
  intranet.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /\n');
});
afterAll(async () => {
  await fetcher.close();
  await site.stop();
  await intranet.stop();
});

describe('the deploy gate, when the live file is where robowatch does not fetch', () => {
  it('stops at a redirect to a private address, naming it, before asking that address anything', async () => {
    site.serve('/robots.txt', 301, '', { location: `${intranet.origin}/robots.txt` });
    const config = parseConfig(
      `agents: [Googlebot]\nsites:\n  - url: ${site.origin}\n    watch: [/, /pricing]\n`,
      { file: 'robowatch.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const run = runGate(fetcher, {
      site: config.sites[0]!,
      draft: new TextEncoder().encode('User-agent: *\nAllow: /\n'),
      liveOrigin: site.origin,
      sitemaps: false,
      limits: DEFAULT_DISCOVERY_LIMITS,
      thresholds: config.notify.coverage,
    });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(
      `cannot read the live robots.txt ${site.origin}/robots.txt: it redirects to ${intranet.origin}/robots.txt, and 127.0.0.2 is a private or reserved address, which robowatch does not fetch, so what crawlers find there is not known; --allow-loopback fetches it if it is on this machine, --allow-private-addresses (or fetch.allowPrivateAddresses: true) if it is on this network (a staging site)`,
    );
    expect(site.requests.map((r) => r.path)).toEqual(['/robots.txt']);
    expect(intranet.requests).toEqual([]);
    expect(intranet.connections).toBe(0);
  });
});
