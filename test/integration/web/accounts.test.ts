/**
 * A team, not a token: users with roles sign in with a password (throttled), API keys
 * carry a scope no wider than their user's role, every route and form of the app needs
 * the scope the OpenAPI document says, and a removed user, a revoked key or an ended
 * session stops working at once. On both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../../src/monitor/accounts.js';
import type { Actor } from '../../../src/monitor/accounts.js';
import { allows, SCOPES } from '../../../src/policy/access-roles.js';
import type { Scope } from '../../../src/policy/access-roles.js';
import { createAccountStore } from '../../../src/store/accounts.js';
import type { createApp } from '../../../src/web/app.js';
import { requiredScope } from '../../../src/web/scopes.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { buildHistory, DAY_MS, historyApp, historyConfig } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();
const SETUP: Actor = { name: 'test setup', userId: null, via: 'cli', address: null };
const PASSWORD = 'correct horse battery staple';

interface Operation {
  'x-robowatch-scope'?: string;
}

describe.each(databaseKinds())('users, keys and scopes on %s', (kind) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let accounts: Accounts;
  let clock: { now: Date };
  const keys: Record<Scope, string> = { read: '', write: '', admin: '' };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // No web.token: users alone guard it. Behind a proxy that says who the client is.
    const config = historyConfig(server.origin, 'web: {trustProxy: true}');
    const built = await buildHistory(database.handle.db, server, fetcher, config);
    clock = built.clock;
    accounts = new Accounts(createAccountStore(database.handle.db), () => clock.now);
    app = historyApp(database.handle.db, config, built.deps, clock, undefined, { accounts });
    for (const [name, role, scope] of [
      ['vera', 'viewer', 'read'],
      ['ed', 'editor', 'write'],
      ['ada', 'admin', 'admin'],
    ] as const) {
      await accounts.addUser(SETUP, { name, role, password: PASSWORD });
      keys[scope] = (await accounts.createKey(SETUP, { user: name, scope })).key;
    }
  });
  afterAll(async () => {
    server.routes.clear();
    await database.close();
  });

  const as = (key: string) => ({ authorization: `Bearer ${key}` });
  const request = (method: string, path: string, headers: Record<string, string> = {}) =>
    app.request(path, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{}' }),
    });

  it('walks every route of the OpenAPI document with each scope: 401 without a key, 403 below its scope, served at or above it', async () => {
    const doc = (await (await request('GET', '/api/v1/openapi.json', as(keys.read))).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
    );
    expect(operations.length).toBeGreaterThan(40);
    const seen = new Set<string>();
    for (const { path, method, op } of operations) {
      if (path === '/api/v1/openapi.json') continue;
      // An id no row has: a route that may act answers 404, never changes anything here.
      const concrete = path
        .replace('{id}', '999999')
        .replace('{name}', 'nobody')
        .replace('{agent}', 'Googlebot');
      const scope = op['x-robowatch-scope'] as Scope;
      expect(SCOPES, `${method} ${path}`).toContain(scope);
      expect(requiredScope(method, concrete), `${method} ${path}`).toBe(scope);
      seen.add(scope);
      expect((await request(method, concrete)).status, `${method} ${path} without a key`).toBe(401);
      for (const held of SCOPES) {
        const status = (await request(method, concrete, as(keys[held]))).status;
        if (allows(held, scope))
          expect([401, 403], `${method} ${path} as ${held}`).not.toContain(status);
        else expect(status, `${method} ${path} as ${held}`).toBe(403);
      }
    }
    expect([...seen].sort()).toEqual(['admin', 'read', 'write']);
  });

  it('needs the scope each page, form and API route is meant to need', async () => {
    const cases: [string, string, Scope][] = [
      ['GET', '/', 'read'],
      ['GET', '/sites/1', 'read'],
      ['POST', '/tester', 'read'],
      ['GET', '/sites/new', 'write'],
      ['POST', '/sites/1/check', 'write'],
      ['POST', '/sites/1/intent/reset', 'write'],
      ['POST', '/incidents/1/ack', 'write'],
      ['POST', '/crawlers/presets', 'write'],
      ['GET', '/notifications', 'read'],
      ['POST', '/notifications/defaults', 'admin'],
      ['POST', '/digests/send', 'admin'],
      ['GET', '/api/v1/sites', 'read'],
      ['POST', '/api/v1/test', 'read'],
      ['POST', '/api/v1/sites', 'write'],
      ['POST', '/api/v1/incidents/1/ack', 'write'],
      ['PUT', '/api/v1/presets/shop-bots', 'write'],
      ['POST', '/api/v1/notifications/test', 'admin'],
      ['GET', '/api/v1/users', 'admin'],
      ['POST', '/api/v1/keys', 'admin'],
      ['GET', '/api/v1/audit', 'admin'],
      ['POST', '/api/v1/account/keys', 'read'],
    ];
    for (const [method, path, scope] of cases) {
      expect(requiredScope(method, path), `${method} ${path}`).toBe(scope);
      for (const held of SCOPES) {
        const status = (
          await app.request(path, { method, headers: { ...as(keys[held]), accept: 'text/html' } })
        ).status;
        if (allows(held, scope))
          expect([401, 403], `${method} ${path} as ${held}`).not.toContain(status);
        else expect(status, `${method} ${path} as ${held}`).toBe(403);
      }
    }
  });

  it('refuses a wrong key where credentials count, and answers a prober with one as nobody', async () => {
    const wrong = as('rwk_not-a-key-robowatch-made-0000000000000000000');
    const api = await request('GET', '/api/v1/sites', wrong);
    expect(api.status).toBe(401);
    expect(await api.json()).toEqual({
      error: {
        status: 401,
        message:
          'the Authorization header is not a valid token or API key (wrong, expired or revoked): send Authorization: Bearer <key>',
      },
    });
    const health = await request('GET', '/healthz', wrong);
    expect(Object.keys((await health.json()) as object)).toEqual(['status']);
  });

  it.each([
    [
      () => accounts.addUser(SETUP, { name: 'bo', role: 'boss' }),
      'the role must be one of viewer, editor, admin, not "boss"',
    ],
    [() => accounts.addUser(SETUP, { name: 'bad name', role: 'viewer' }), 'is not a user name'],
    [
      () => accounts.addUser(SETUP, { name: 'bo', role: 'viewer', password: 'short' }),
      'the password is too short: at least 12 characters',
    ],
    [
      () => accounts.createKey(SETUP, { user: 'nobody', scope: 'read' }),
      'there is no user "nobody"',
    ],
    [
      () => accounts.createKey(SETUP, { user: 'ada', scope: 'root' }),
      'the scope must be one of read, write, admin, not "root"',
    ],
    [() => accounts.revokeKey(SETUP, 999), 'there is no API key 999'],
  ] as const)('refuses a bad request to the accounts in one line (%#)', async (act, message) => {
    await expect(act()).rejects.toThrow(message);
  });

  it('says who is asking, and refuses a key wider than its user’s role', async () => {
    const me = (await (await request('GET', '/api/v1/account', as(keys.read))).json()) as object;
    expect(me).toEqual({
      name: 'vera',
      role: 'viewer',
      scope: 'read',
      tags: [],
      via: 'key: read key',
    });
    const wide = await app.request('/api/v1/keys', {
      method: 'POST',
      headers: { ...as(keys.admin), 'content-type': 'application/json' },
      body: JSON.stringify({ user: 'vera', scope: 'write' }),
    });
    expect(wide.status).toBe(400);
    expect(await wide.json()).toEqual({
      error: {
        status: 400,
        message: 'vera is a viewer: a key of theirs can have at most the read scope',
      },
    });
  });

  const signIn = (name: string, password: string, address = '192.0.2.10') =>
    app.request('/login', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'http://localhost',
        'x-forwarded-for': address,
      },
      body: new URLSearchParams({ name, password, next: '/' }),
    });
  const cookieOf = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;
  const whoami = async (headers: Record<string, string>) =>
    (await app.request('/api/v1/account', { headers })).status;

  it('signs a user in with a password, keeps only a hash of the session, and signs out at once', async () => {
    const wrong = await signIn('ed', 'not the password');
    expect(wrong.headers.get('location')).toBe('/login?failed=user&next=%2F');
    const right = await signIn('ed', PASSWORD);
    expect(right.status).toBe(303);
    const cookie = cookieOf(right);
    expect(cookie).toMatch(/^robowatch_session=[A-Za-z0-9_-]{43}$/);
    expect(await whoami({ cookie })).toBe(200);
    // A second browser, then "sign out everywhere": both end at once.
    const other = cookieOf(await signIn('ed', PASSWORD));
    expect(await accounts.signOutEverywhere(SETUP, 'ed')).toBe(2);
    expect(await whoami({ cookie })).toBe(401);
    expect(await whoami({ cookie: other })).toBe(401);
    // Signing out ends that session only.
    const third = cookieOf(await signIn('ed', PASSWORD));
    const out = await app.request('/logout', {
      method: 'POST',
      headers: { cookie: third, origin: 'http://localhost' },
    });
    expect(out.status).toBe(303);
    expect(await whoami({ cookie: third })).toBe(401);
  });

  it('throttles guessing: the sixth try for a name from one address is refused, even with the right password', async () => {
    await accounts.addUser(SETUP, { name: 'gus', role: 'viewer', password: PASSWORD });
    for (let i = 0; i < 5; i++)
      expect((await signIn('gus', `guess ${i}`, '198.51.100.7')).status).toBe(303);
    const refused = await signIn('gus', PASSWORD, '198.51.100.7');
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain(
      'too many failed sign-ins for &quot;gus&quot; from this address: wait 15 minutes and try again',
    );
    // From elsewhere the right password still works; after the window, from there too.
    expect(cookieOf(await signIn('gus', PASSWORD, '198.51.100.8'))).toMatch(/^robowatch_session=/);
    clock.now = new Date(clock.now.getTime() + 16 * 60_000);
    expect((await signIn('gus', PASSWORD, '198.51.100.7')).status).toBe(303);
  });

  it('answers a name no user can have (a NUL, 100,000 characters) as a wrong password, and still counts it', async () => {
    for (const name of ['ed\u0000', 'e'.repeat(100_000)]) {
      for (let i = 0; i < 5; i++) {
        const wrong = await signIn(name, PASSWORD, '198.51.100.9');
        expect([wrong.status, wrong.headers.get('location')]).toEqual([
          303,
          '/login?failed=user&next=%2F',
        ]);
      }
      // The sixth try of the same name from that address is throttled, as any name's is.
      const throttled = await signIn(name, PASSWORD, '198.51.100.9');
      expect(throttled.status).toBe(429);
    }
    // Ed, from the same address, is not held up by them.
    expect(cookieOf(await signIn('ed', PASSWORD, '198.51.100.9'))).toMatch(/^robowatch_session=/);
  });

  it('stops a revoked or expired key, and every key and session of a removed user, at once', async () => {
    await accounts.addUser(SETUP, { name: 'tmp', role: 'editor', password: PASSWORD });
    const { key, record } = await accounts.createKey(SETUP, { user: 'tmp', scope: 'write' });
    const soon = await accounts.createKey(SETUP, {
      user: 'tmp',
      scope: 'read',
      expiresInMs: DAY_MS,
    });
    const session = cookieOf(await signIn('tmp', PASSWORD));
    expect(await whoami(as(key))).toBe(200);
    expect(await whoami(as(soon.key))).toBe(200);
    const revoke = await app.request(`/api/v1/keys/${record.id}`, {
      method: 'DELETE',
      headers: as(keys.admin),
    });
    expect(revoke.status).toBe(204);
    expect(await whoami(as(key))).toBe(401);
    clock.now = new Date(clock.now.getTime() + 2 * DAY_MS);
    expect(await whoami(as(soon.key))).toBe(401);
    expect(await whoami({ cookie: session })).toBe(200);
    const removed = await app.request('/api/v1/users/tmp', {
      method: 'DELETE',
      headers: as(keys.admin),
    });
    expect(removed.status).toBe(204);
    expect(await whoami({ cookie: session })).toBe(401);
  });

  it('records who changed users and keys, from where, with secrets hidden', async () => {
    const added = await app.request('/api/v1/users', {
      method: 'POST',
      headers: {
        ...as(keys.admin),
        'content-type': 'application/json',
        'x-forwarded-for': '203.0.113.5',
      },
      body: JSON.stringify({ name: 'newbie', role: 'viewer', password: PASSWORD }),
    });
    expect(added.status).toBe(201);
    const made = await app.request('/api/v1/account/keys', {
      method: 'POST',
      headers: { ...as(keys.read), 'content-type': 'application/json' },
      body: JSON.stringify({ scope: 'read', name: 'dashboard' }),
    });
    expect(made.status).toBe(201);
    // A name with a control character is the sender's to mend: an ESC (that would recolour
    // `keys list`) by the key's rule, a NUL (that the database refuses) by every body's.
    const refusal = async (name: string) => {
      const refused = await app.request('/api/v1/account/keys', {
        method: 'POST',
        headers: { ...as(keys.read), 'content-type': 'application/json' },
        body: JSON.stringify({ scope: 'read', name }),
      });
      return [
        refused.status,
        ((await refused.json()) as { error: { message: string } }).error.message,
      ];
    };
    expect(await refusal('dash\u001b[31mboard')).toEqual([
      400,
      `a key's name is at most 100 characters, with no control characters: not "dash\\u001b[31mboard"`,
    ]);
    expect(await refusal('dash\u0000board')).toEqual([
      400,
      'name: must not contain a NUL character (\\u0000)',
    ]);
    const { key } = (await made.json()) as { key: string };
    const audit = (await (
      await request('GET', '/api/v1/audit?limit=5', as(keys.admin))
    ).json()) as {
      entries: {
        actor: string;
        via: string;
        address: string | null;
        action: string;
        target: string;
        after: unknown;
      }[];
    };
    expect(audit.entries.slice(0, 2)).toEqual([
      expect.objectContaining({
        actor: 'vera',
        via: 'key: read key',
        action: 'key.create',
        target: 'vera: dashboard',
      }),
      expect.objectContaining({
        actor: 'ada',
        via: 'key: admin key',
        address: '203.0.113.5',
        action: 'user.add',
        target: 'newbie',
        after: { role: 'viewer', tags: [] },
      }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(PASSWORD);
    expect(JSON.stringify(audit)).not.toContain(key);
    // A viewer may not read the audit log.
    expect((await request('GET', '/api/v1/audit', as(keys.read))).status).toBe(403);
  });

  it('records every change to a site with who made it, before and after, secrets hidden', async () => {
    const send = async (method: string, path: string, body: unknown, key = keys.write) => {
      const response = await app.request(path, {
        method,
        headers: { ...as(key), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
    };
    const other = server.origin.replace('127.0.0.1', 'localhost');
    const added = await send('POST', '/api/v1/sites', {
      url: other,
      watch: ['/'],
      notify: {
        webhooks: [
          { url: 'https://hooks.example.com/T000/B000/secretpath', secret: 'hmac-secret-value' },
        ],
      },
    });
    expect(added.status).toBe(201);
    const id = (added.body as { id: number }).id;
    expect((await send('PATCH', `/api/v1/sites/${id}`, { name: 'Other' })).status).toBe(200);
    expect((await send('POST', `/api/v1/sites/${id}/pause`, {})).status).toBe(200);
    expect(
      (
        await send('PUT', `/api/v1/sites/${id}/intent`, [
          { watch: '/*', agents: ['Googlebot'], expect: 'allowed' },
        ])
      ).status,
    ).toBe(200);
    const log = (
      (await (await request('GET', `/api/v1/audit?site=${id}`, as(keys.admin))).json()) as {
        entries: {
          actor: string;
          action: string;
          origin: string;
          before: unknown;
          after: unknown;
        }[];
      }
    ).entries;
    expect(log.map((e) => [e.actor, e.action, e.origin])).toEqual([
      ['ed', 'intent.set', other],
      ['ed', 'site.pause', other],
      ['ed', 'site.edit', other],
      ['ed', 'site.add', other],
    ]);
    expect(log[2]!.after).toMatchObject({ settings: { name: 'Other' } });
    expect(log[0]!.after).toEqual({
      from: 'web',
      entries: [{ watch: '/*', agents: ['Googlebot'], expect: 'allowed' }],
    });
    const text = JSON.stringify(log);
    expect(text).not.toContain('hmac-secret-value');
    expect(text).not.toContain('secretpath');
    expect(text).toContain('https://hooks.example.com/(hidden)');
    // An acknowledgment is the signed-in user's, whatever the body says.
    const incidents = (await (await request('GET', '/api/v1/incidents', as(keys.read))).json()) as {
      incidents: { id: number }[];
    };
    const incident = incidents.incidents[0]!.id;
    const ack = await send('POST', `/api/v1/incidents/${incident}/ack`, {
      note: 'on it',
      by: 'someone else',
    });
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ acknowledgedBy: 'ed', note: 'on it' });
    const acks = (
      (await (await request('GET', '/api/v1/audit?actor=ed&limit=1', as(keys.admin))).json()) as {
        entries: { action: string; after: unknown }[];
      }
    ).entries;
    expect(acks[0]).toMatchObject({ action: 'incident.ack', after: { by: 'ed', note: 'on it' } });
  });

  it('lets an admin manage users and keys on the Users page, and anyone their own key and password', async () => {
    const admin = cookieOf(await signIn('ada', PASSWORD));
    const form = (path: string, fields: Record<string, string>, cookie = admin) =>
      app.request(path, {
        method: 'POST',
        headers: {
          cookie,
          origin: 'http://localhost',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams(fields),
      });
    const added = await form('/users', { name: 'pat', role: 'viewer', password: PASSWORD });
    expect(added.status).toBe(200);
    expect(await added.text()).toContain('Added pat (viewer).');
    const short = await form('/users', { name: 'pip', role: 'viewer', password: 'short' });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('the password is too short: at least 12 characters');
    expect(await (await form('/users/pat/role', { role: 'editor' })).text()).toContain(
      'pat is now an editor and sees every site.',
    );

    // Pat signs in, makes a read key (shown once), and changes the password.
    const pat = cookieOf(await signIn('pat', PASSWORD));
    const account = await (await app.request('/account', { headers: { cookie: pat } })).text();
    expect(account).toContain('Signed in as <strong>pat</strong>, editor');
    const made = await (
      await form('/account/keys', { name: 'grafana', scope: 'read', days: '' }, pat)
    ).text();
    const key = /<code class="secret">(rwk_[A-Za-z0-9_-]{43})<\/code>/.exec(made)?.[1];
    expect(key).toBeDefined();
    expect(await whoami(as(key!))).toBe(200);
    const again = await (await app.request('/account', { headers: { cookie: pat } })).text();
    expect(again).not.toContain(key!);
    const wrong = await form(
      '/account/password',
      { current: 'nope', password: 'another long password' },
      pat,
    );
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('the current password is not right');
    const other = cookieOf(await signIn('pat', PASSWORD));
    const changed = await form(
      '/account/password',
      { current: PASSWORD, password: 'another long password' },
      pat,
    );
    expect(changed.status).toBe(200);
    const renewed = cookieOf(changed);
    expect(await whoami({ cookie: other })).toBe(401);
    expect(await whoami({ cookie: renewed })).toBe(200);

    // An editor may not open the Users page; the admin removes pat and its key stops.
    expect(
      (await app.request('/users', { headers: { cookie: renewed, accept: 'text/html' } })).status,
    ).toBe(403);
    expect(await (await form('/users/pat/remove', {})).text()).toContain('Removed pat');
    expect(await whoami(as(key!))).toBe(401);
    const audit = await (
      await app.request('/audit?actor=pat', { headers: { cookie: admin } })
    ).text();
    expect(audit).toContain('key.create');
    expect(audit).toContain('user.edit');
  });
});
