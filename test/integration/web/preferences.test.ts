/**
 * Usage preferences (Content-Usage, Content-Signal) where people look at verdicts: the
 * site's verdict matrix after a real check, and the tester's rows, on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSites } from '../../../src/monitor/check/batch.js';
import type { createApp } from '../../../src/web/app.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { checkDepsOn, historyApp, historyConfig, START } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();

// Cloudflare's line in the * group, and the AIPREF rule with a path (lines 2, 4, 5).
const ROBOTS = `User-agent: *
Content-Signal: search=yes, ai-train=no
Disallow: /private/
Content-Usage: train-ai=n
Content-Usage: /blog/ train-ai=y

User-agent: GPTBot
Disallow: /
`;

describe.each(databaseKinds())('usage preferences on %s', (kind) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = historyConfig(server.origin, 'sitemaps: off');
    const clock = { now: START };
    const deps = checkDepsOn(database.handle.db, fetcher, clock);
    server.serve('/robots.txt', 200, ROBOTS);
    const summary = await checkSites(deps, config.sites, { concurrency: 1 });
    expect(summary.failures).toEqual([]);
    app = historyApp(database.handle.db, config, deps, clock);
  });
  afterAll(async () => {
    server.routes.clear();
    await database.close();
  });

  it('shows them in the verdict matrix, for the cells a crawler may fetch', async () => {
    const html = await (await app.request('/sites/1', { headers: { accept: 'text/html' } })).text();
    const start = html.indexOf('<table class="matrix">');
    const matrix = html.slice(start, html.indexOf('</table>', start));
    const row = (path: string) =>
      matrix.slice(matrix.indexOf(`class="path">${path}</span>`)).split('</tr>')[0]!;
    // Googlebot may fetch / and /blog/post; GPTBot may fetch nothing: no preference.
    expect(row('/')).toContain(
      'usage: train-ai=n (line 4), search=yes (line 2), ai-train=no (line 2)',
    );
    expect(row('/blog/post')).toContain('usage: train-ai=y (line 5)');
    expect(row('/private/x')).not.toContain('usage:');
    expect(matrix.match(/usage:/g)).toHaveLength(3); // /, /pricing, /blog/post for Googlebot
  });

  it('gives them per row in the tester, for the proposed file', async () => {
    const response = await app.request('/api/v1/test', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        robotstxt: ROBOTS.replace('train-ai=n', 'train-ai=n, search=n'),
        agents: ['Googlebot', 'GPTBot'],
        urls: ['https://e.com/'],
      }),
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { rows: { agent: string; preferences: unknown }[] };
    expect(result.rows.map((r) => [r.agent, r.preferences])).toEqual([
      [
        'Googlebot',
        {
          preferences: { 'train-ai': 'n', search: 'n', 'signal:search': 'yes', 'ai-train': 'no' },
          preferenceLines: { 'train-ai': 4, search: 4, 'signal:search': 2, 'ai-train': 2 },
        },
      ],
      ['GPTBot', { preferences: null, preferenceLines: {} }],
    ]);
    // A file without such lines: the rows say nothing of them.
    const plain = await app.request('/api/v1/test', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        robotstxt: 'User-agent: *\n',
        agents: ['Googlebot'],
        urls: ['https://e.com/'],
      }),
    });
    expect(((await plain.json()) as { rows: object[] }).rows[0]).not.toHaveProperty('preferences');
  });
});
