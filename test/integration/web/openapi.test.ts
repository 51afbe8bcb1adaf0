/**
 * /api/v1/openapi.json describes exactly the routes the app serves, with the request
 * bodies the routes validate with, and the API page's table (docs/api.md) lists exactly those routes
 * and says the error format the API answers with.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { buildHistory, historyApp, historyConfig } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();

interface OpenApi {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { content: { 'application/json': { schema: Record<string, unknown> } } };
        responses: Record<string, unknown>;
      }
    >
  >;
}

/** "GET /api/v1/sites/:id" from either form of a path. */
const route = (method: string, path: string) =>
  `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;

describe('the OpenAPI document', () => {
  let database: TestDatabase;
  let app: ReturnType<typeof historyApp>;
  let doc: OpenApi;
  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    const config = historyConfig(server.origin);
    const { deps, clock } = await buildHistory(database.handle.db, server, fetcher, config);
    app = historyApp(database.handle.db, config, deps, clock);
    const response = await app.request('/api/v1/openapi.json');
    expect(response.status).toBe(200);
    doc = (await response.json()) as OpenApi;
  });
  afterAll(async () => {
    server.routes.clear();
    await database.close();
  });

  const documented = () =>
    Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((m) => route(m, path)))
      .sort();

  it('lists every route the app serves under /api/v1, and no other', () => {
    expect(doc.openapi).toBe('3.1.0');
    const served = [
      ...new Set(
        app.routes
          .filter((r) => r.path.startsWith('/api/v1/') && r.method !== 'ALL')
          .map((r) => route(r.method, r.path)),
      ),
    ].sort();
    expect(documented()).toEqual(served);
  });

  it('gives request bodies the schemas the routes validate with', async () => {
    const add = doc.paths['/api/v1/sites']!['post']!.requestBody!.content['application/json']
      .schema as {
      required: string[];
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    expect(add.required).toEqual(['url']);
    expect(Object.keys(add.properties)).toEqual(
      expect.arrayContaining(['url', 'name', 'tags', 'watch', 'agents', 'schedule', 'notify']),
    );
    expect(add.additionalProperties).toBe(false);
    // What the document says is refused is refused, in the error form it declares.
    const response = await app.request('/api/v1/test', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ robotstxt: 1, agents: [], urls: [] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { status: number; message: string } };
    expect(body).toEqual({
      error: { status: 400, message: 'robotstxt: must be the robots.txt to test, as a string' },
    });
    const test = doc.paths['/api/v1/test']!['post']!;
    expect(test.requestBody!.content['application/json'].schema['required']).toEqual([
      'robotstxt',
      'agents',
      'urls',
    ]);
    expect(test.responses['400']).toEqual({
      description: 'a bad parameter or body',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  });

  it('is what the API page’s table (docs/api.md) lists, with the error format the API answers', () => {
    const readme = readFileSync('docs/api.md', 'utf8');
    const section = readme.slice(readme.indexOf('**API**'), readme.indexOf('**Operations.**'));
    expect(section.replace(/\s+/g, ' ')).toContain(
      '`{"error": {"status": 404, "message": "one line saying what is wrong"}}`',
    );
    const listed = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => {
        const cell = line.split('|')[1]!;
        const [first, ...more] = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
        const [method, path] = first!.split(' ');
        const base = path!.split('?')[0]!;
        // "`POST /api/v1/sites/ID/pause`, `…/resume`": the same route with another ending.
        const paths = [base, ...more.map((m) => base.replace(/\/[^/]+$/, m.replace('…', '')))];
        return paths.map((p) =>
          route(
            method!,
            p
              .replace(/\/(ID|N)(?=\/|$)/g, '/:id')
              .replace(/\/AGENT$/, '/:agent')
              .replace(/\/NAME$/, '/:name'),
          ),
        );
      })
      .sort();
    expect(listed).toEqual(documented());
  });
});
