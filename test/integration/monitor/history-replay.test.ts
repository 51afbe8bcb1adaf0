/**
 * Replays of real sites' weekly robots.txt versions (test/fixtures/history, from
 * shared/corpus/history): each version is served in turn and checked once. The number
 * of snapshots must equal the number of distinct consecutive states, every state must
 * be there in order, and each body must be stored exactly once.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { checkSite } from '../../../src/monitor/check/site.js';
import { createCheckStore } from '../../../src/store/index.js';
import { listSnapshots } from '../../../src/store/history.js';
import { countRows } from '../../../src/store/sites.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import { fixturePath } from '../../support/fixtures.js';
import { useLoopbackSite } from '../../support/loopback-site.js';

interface Version {
  file: string;
  /** What the server answers: a body with a status, or a dropped connection. */
  status: number | null;
  body: Uint8Array;
}

function versionsOf(domain: string): Version[] {
  const dir = fixturePath(`history/${domain}`);
  return readdirSync(dir)
    .sort()
    .map((file) => {
      const bytes = new Uint8Array(readFileSync(`${dir}/${file}`));
      if (!file.endsWith('.error.json')) return { file, status: 200, body: bytes };
      // The archive's fetch failed: an HTTP error page (status kept) or a request error.
      const error = JSON.parse(new TextDecoder().decode(bytes)) as { status_code?: number };
      return {
        file,
        status: error.status_code ?? null,
        body: new TextEncoder().encode('<html>error</html>'),
      };
    });
}

/** The state robowatch should record for a version: status or error, and the body of a 2xx. */
function stateOf(version: Version): string {
  if (version.status === null) return 'reset';
  const ok = version.status >= 200 && version.status <= 299;
  return `${version.status}|${ok ? createHash('sha256').update(version.body).digest('hex') : ''}`;
}

/** The sites marked for replay (the others serve the explanation invariant, a pure test). */
const domains = Object.entries(
  (
    JSON.parse(readFileSync(fixturePath('history/MANIFEST.json'), 'utf8')) as {
      domains: Record<string, { replay: boolean }>;
    }
  ).domains,
)
  .filter(([, site]) => site.replay)
  .map(([domain]) => domain);

const { server, fetcher } = useLoopbackSite();

describe.each(databaseKinds())('history replays on %s', (kind) => {
  it('has sites to replay', () => expect(domains.length).toBeGreaterThanOrEqual(5));

  it.each(domains)('%s', async (domain) => {
    const versions = versionsOf(domain);
    const database = await createTestDatabase(kind);
    try {
      const site = parseConfig(
        `sites:\n  - url: ${server.origin}\n    watch: [/, /admin/, /search?q=x]\n    agents: ['*', Googlebot, GPTBot]\n`,
        { file: 'replay.yaml', cwd: '/tmp', env: {}, version: 'test' },
      ).sites[0]!;
      const store = createCheckStore(database.handle.db);
      let now = new Date('2021-01-01T00:00:00Z');
      const deps = {
        fetchRobots: (origin: string) => fetcher.fetchRobots(origin),
        store,
        now: () => now,
        sleep: () => Promise.resolve(),
        confirmRetries: 1,
        confirmDelayMs: 0,
      };
      let [stored] = await store.syncSites([site.origin]);
      for (const version of versions) {
        server.routes.set('/robots.txt', (req, res) => {
          if (version.status === null) {
            req.socket.destroy();
            return;
          }
          res.writeHead(version.status);
          res.end(version.body);
        });
        const { current } = await checkSite(deps, site, stored!);
        stored = { ...stored!, current };
        now = new Date(now.getTime() + 60 * 60 * 1000); // an hour apart: no 30-day rule here
      }

      // Expected: versions collapsed into runs of the same state.
      const runs: { state: string; versions: number }[] = [];
      for (const version of versions) {
        const state = stateOf(version);
        if (runs.at(-1)?.state === state) runs.at(-1)!.versions++;
        else runs.push({ state, versions: 1 });
      }
      const snapshots = (await listSnapshots(database.handle.db, stored!.id, 10_000)).reverse();
      expect(
        snapshots.map((s) => (s.error === 'reset' ? 'reset' : `${s.status}|${s.sha256 ?? ''}`)),
      ).toEqual(runs.map((r) => r.state));
      expect(snapshots.map((s) => s.checks)).toEqual(runs.map((r) => r.versions));
      const distinctBodies = new Set(
        runs.map((r) => r.state.split('|')[1]).filter((h) => h !== undefined && h !== ''),
      );
      expect(await countRows(database.handle.db)).toMatchObject({
        snapshots: runs.length,
        checks: versions.length,
        bodies: distinctBodies.size,
      });
    } finally {
      await database.close();
    }
  });
});
