/**
 * /api/v1/openapi.json describes exactly the routes the app serves, with the request
 * bodies the routes validate with, and the API page's table (docs/api.md) lists exactly those routes
 * and says the error format the API answers with.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as documents from '../../../src/monitor/documents/index.js';
import { Accounts } from '../../../src/monitor/accounts.js';
import { createAccountStore } from '../../../src/store/accounts.js';
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
        parameters?: { name: string; in: string; required?: boolean }[];
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
  let auth: Record<string, string> = {};
  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    // A webhook nobody answers: the history's incident alerts wait in the alert log.
    const config = historyConfig(
      server.origin,
      `notify: {webhooks: [{url: 'http://127.0.0.1:9/hook'}]}`,
    );
    const { deps, clock } = await buildHistory(database.handle.db, server, fetcher, config);
    // An admin's key: every route answers it, /api/v1/account/keys and the audit log too.
    const accounts = new Accounts(createAccountStore(database.handle.db), () => clock.now);
    const setup = { name: 'test', userId: null, via: 'cli' as const, address: null };
    await accounts.addUser(setup, { name: 'ada', role: 'admin' });
    auth = {
      authorization: `Bearer ${(await accounts.createKey(setup, { user: 'ada', scope: 'admin' })).key}`,
    };
    app = historyApp(database.handle.db, config, deps, clock, undefined, { accounts });
    const response = await app.request('/api/v1/openapi.json', { headers: auth });
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
      headers: { ...auth, 'content-type': 'application/json' },
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

  /** Every document schema the module exports, by the name the OpenAPI document gives it. */
  const schemas = new Map(
    Object.values(documents as Record<string, unknown>)
      .filter((s): s is z.ZodType => s instanceof z.ZodType)
      .flatMap((s) => {
        const id = s.meta()?.['id'];
        return typeof id === 'string' ? [[id, s] as const] : [];
      }),
  );

  it('answers every documented GET with exactly its documented schema: no field more, none missing', async () => {
    const get = async (path: string) => {
      const response = await app.request(path, { headers: auth });
      expect(response.status, path).toBe(200);
      return response.json();
    };
    const sites = (await get('/api/v1/sites')) as { sites: { id: number }[] };
    const site = sites.sites[0]!.id;
    const snapshots = (await get(`/api/v1/sites/${site}/snapshots`)) as {
      snapshots: { id: number }[];
    };
    const snapshot = snapshots.snapshots[0]!.id;
    // The history blocks a watched page for Googlebot: the site was not as intended once.
    const incidents = (await get('/api/v1/incidents')) as { incidents: { id: number }[] };
    const incident = incidents.incidents[0]!.id;
    const alerts = (await get('/api/v1/alerts')) as { alerts: { id: number }[] };
    const alert = alerts.alerts[0]!.id;
    const example: Record<string, string> = { url: `${server.origin}/pricing`, agent: 'Googlebot' };
    const checked: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      const content = (
        methods['get']?.responses['200'] as
          { content?: Record<string, { schema?: { $ref?: string } }> } | undefined
      )?.content?.['application/json'];
      if (content === undefined || path.endsWith('/openapi.json')) continue;
      // The history has no sitemaps: coverage-api.test.ts checks that document.
      if (path.endsWith('/coverage')) continue;
      const ref = content.schema?.$ref;
      expect(ref, `${path} answers a named document`).toMatch(/^#\/components\/schemas\//);
      const schema = schemas.get(ref!.replace('#/components/schemas/', ''));
      expect(schema, `${ref} is a schema of src/monitor/documents`).toBeDefined();
      const concrete = path
        .replace('/sites/{id}', `/sites/${site}`)
        .replace('/snapshots/{id}', `/snapshots/${snapshot}`)
        .replace('/incidents/{id}', `/incidents/${incident}`)
        .replace('/alerts/{id}', `/alerts/${alert}`)
        .replace('{agent}', 'GPTBot');
      const required = (methods['get']!.parameters ?? [])
        .filter((p) => p.in === 'query' && p.required === true)
        .map((p) => `${p.name}=${encodeURIComponent(example[p.name]!)}`);
      const body = await get(
        required.length === 0 ? concrete : `${concrete}?${required.join('&')}`,
      );
      const parsed = schema!.safeParse(body);
      expect(parsed.error?.issues ?? [], concrete).toEqual([]);
      // Parsing drops what the schema does not name: an answer with more differs.
      expect(parsed.data, concrete).toEqual(body);
      checked.push(path);
    }
    expect(checked).toEqual(
      expect.arrayContaining(['/api/v1/sites', '/api/v1/sites/{id}', '/api/v1/snapshots/{id}']),
    );
    expect(checked.length).toBeGreaterThanOrEqual(18);
  });

  it('answers POST /api/v1/test with exactly its documented schema, the intent judgement included', async () => {
    const sites = (await (await app.request('/api/v1/sites', { headers: auth })).json()) as {
      sites: { id: number }[];
    };
    const response = await app.request('/api/v1/test', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        robotstxt: 'User-agent: *\nDisallow: /\n',
        agents: ['Googlebot', 'GPTBot'],
        urls: ['/pricing', '/'],
        site: sites.sites[0]!.id,
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { intent: { violations: unknown[] } };
    expect(body.intent.violations.length).toBeGreaterThan(0);
    const parsed = documents.TestResultDocument.safeParse(body);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data).toEqual(body);
  });
});
