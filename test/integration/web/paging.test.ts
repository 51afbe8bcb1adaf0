/**
 * The site list at scale: /api/v1/sites a page at a time (by id, with a `next` link),
 * filtered, on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import type { createApp } from '../../../src/web/app.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { buildHistory, historyApp } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();
const OTHERS = Array.from({ length: 24 }, (_, i) => `https://shop-${i + 1}.example.invalid`);

describe.each(databaseKinds())('the site list on %s', (kind) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = parseConfig(
      `agents: [Googlebot, GPTBot]
sites:
  - url: ${server.origin}
    watch: [/, /pricing]
${OTHERS.map((o) => `  - {url: '${o}', watch: [/]}`).join('\n')}
fetch: {allowPrivateAddresses: 'loopback', confirmRetries: 0, timeoutMs: 3000}
`,
      { file: 'paging.yaml', cwd: '/tmp', env: {}, version: 'test' },
    );
    const { deps, clock } = await buildHistory(database.handle.db, server, fetcher, config);
    app = historyApp(database.handle.db, config, deps, clock);
  });
  afterAll(async () => {
    server.routes.clear();
    await database.close();
  });

  type Page = {
    sites: { id: number; origin: string; access: string | null }[];
    next: string | null;
  };
  const get = async (path: string) => {
    const response = await app.request(path);
    expect(response.status).toBe(200);
    return (await response.json()) as Page;
  };

  it('pages through every site once, in id order, following next', async () => {
    const seen: Page['sites'] = [];
    let path: string | null = '/api/v1/sites?limit=10';
    let pages = 0;
    while (path !== null) {
      const page = await get(path);
      expect(page.sites.length).toBeLessThanOrEqual(10);
      seen.push(...page.sites);
      path = page.next;
      pages++;
    }
    expect(pages).toBe(3);
    expect(seen.map((s) => s.id)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(seen.map((s) => s.origin)).toEqual([server.origin, ...OTHERS]);
    // Each with its state (the loopback site answers; the others cannot be resolved).
    expect(seen[0]!.access).toBe('ok');
    expect(seen.slice(1).every((s) => s.access !== 'ok')).toBe(true);
  });

  it('keeps the filter in the next link, and says what is wrong with a bad cursor', async () => {
    const first = await get('/api/v1/sites?q=shop-1&limit=5');
    // shop-1, shop-10 … shop-19: eleven sites.
    expect(first.sites.map((s) => s.origin)).toEqual(
      OTHERS.filter((o) => o.includes('shop-1')).slice(0, 5),
    );
    expect(first.next).toBe(`/api/v1/sites?q=shop-1&limit=5&after=${first.sites[4]!.id}`);
    const rest = await get(first.next!);
    expect(rest.sites).toHaveLength(5);
    const last = await get(rest.next!);
    expect(last.sites).toHaveLength(1);
    expect(last.next).toBeNull();
    const bad = await app.request('/api/v1/sites?after=x');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { status: 400, message: 'after must be a positive whole number, not "x"' },
    });
  });
});
