/**
 * Single sign-on against a real OpenID provider (oidc-provider, started on loopback by
 * the test): the authorization code flow with PKCE, the person made at their first
 * sign-in with the role and tags their groups give, given the new ones at the next, and
 * refused, in one line on the sign-in page, when no group of theirs has a role, when their
 * name is another user's, when the sign-in is not the one this browser began, or when the
 * provider says no. On both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/config.js';
import { createSsoClient } from '../../../src/fetch/oidc.js';
import { Accounts } from '../../../src/monitor/accounts.js';
import type { Actor } from '../../../src/monitor/accounts.js';
import { createAccountStore } from '../../../src/store/accounts.js';
import { createTestDatabase, databaseKinds } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';
import { useLoopbackSite } from '../../support/loopback-site.js';
import { CLIENT_SECRET, startTestProvider } from '../../support/oidc-provider.js';
import type { TestProvider } from '../../support/oidc-provider.js';
import { START, checkDepsOn, historyApp, historyConfig } from '../../support/site-history.js';

const { server, fetcher } = useLoopbackSite();
const SETUP: Actor = { name: 'test setup', userId: null, via: 'cli', address: null };
/** Where robowatch says it is: the provider sends browsers back there (the test reads the URL). */
const PUBLIC = 'https://robowatch.test';

/** The provider's people: their subject, and the claims it gives. */
const people: Record<string, { preferred_username: string; groups: string[] }> = {
  'sub-ana': { preferred_username: 'ana', groups: ['seo-admins'] },
  'sub-sam': { preferred_username: 'sam', groups: ['agency', 'staff'] },
  'sub-zed': { preferred_username: 'zed', groups: ['sales'] },
  'sub-bob': { preferred_username: 'bob', groups: ['seo-team'] },
  // A provider's subject with a NUL in it, which no database column can keep.
  'sub-\u0000nul': { preferred_username: 'nul', groups: ['seo-team'] },
};

let idp: TestProvider;
let issuer = '';
beforeAll(async () => {
  idp = await startTestProvider((subject) => people[subject]);
  issuer = idp.issuer;
  idp.serve(`${PUBLIC}/login/oidc/callback`);
});
afterAll(() => idp.stop());

/** A browser's cookies for the provider, kept by name. */
class Jar {
  readonly #cookies = new Map<string, string>();
  keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.#cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }
  get header(): string {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * A person going through the provider's sign-in pages (its development login form and
 * consent), from its authorization URL to where it sends the browser back to robowatch.
 */
async function throughProvider(authorization: string, subject: string): Promise<string> {
  const jar = new Jar();
  let url = authorization;
  let form: { action: string; fields: Record<string, string> } | undefined;
  for (let step = 0; step < 20; step += 1) {
    if (url.startsWith(PUBLIC)) return url;
    const response = await fetch(url, {
      method: form === undefined ? 'GET' : 'POST',
      redirect: 'manual',
      headers: {
        cookie: jar.header,
        ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(form === undefined ? {} : { body: new URLSearchParams(form.fields).toString() }),
    });
    jar.keep(response);
    form = undefined;
    const location = response.headers.get('location');
    if (location !== null) {
      url = new URL(location, url).href;
      continue;
    }
    const html = await response.text();
    expect(response.status, html.slice(0, 300)).toBe(200);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    expect(action, 'a form to go on with').toBeDefined();
    const fields: Record<string, string> = {};
    for (const [, name, value] of html.matchAll(
      /<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g,
    ))
      fields[name!] = value!;
    if (html.includes('name="login"')) Object.assign(fields, { login: subject, password: 'x' });
    form = { action: new URL(action!, url).href, fields };
    url = form.action;
  }
  throw new Error('the provider never sent the browser back');
}

describe.each(databaseKinds())('single sign-on on %s', (kind) => {
  let database: TestDatabase;
  let accounts: Accounts;
  let app: ReturnType<typeof historyApp>;
  const clock = { now: START };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = historyConfig(
      server.origin,
      `web:
  publicUrl: ${PUBLIC}
  sso:
    issuer: '${issuer}'
    clientId: robowatch
    clientSecret: '${CLIENT_SECRET}'
    label: Acme login
    scopes: [openid, profile, groups]
    roles: {admin: [seo-admins], editor: [seo-team], viewer: [agency]}
    tags: {agency: [client-a]}`,
    );
    accounts = new Accounts(createAccountStore(database.handle.db), () => clock.now);
    app = appOf(config);
  });
  afterAll(async () => {
    await database.close();
  });

  /** robowatch's web app with single sign-on as `config` says, over the test's database. */
  const appOf = (config: Config) =>
    historyApp(
      database.handle.db,
      config,
      checkDepsOn(database.handle.db, fetcher, clock),
      clock,
      undefined,
      { accounts, sso: createSsoClient(config.web.sso!) },
    );

  /** Signs `subject` in from robowatch's button to its callback: the callback's answer. */
  async function signIn(subject: string, next = '/') {
    const start = await app.request(`/login/oidc?next=${encodeURIComponent(next)}`);
    expect(start.status).toBe(302);
    const authorization = start.headers.get('location')!;
    const kept = /robowatch_sso=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')?.[1];
    const back = await throughProvider(authorization, subject);
    const callback = new URL(back);
    return {
      authorization: new URL(authorization),
      kept: kept!,
      callback: `${callback.pathname}${callback.search}`,
      answer: await app.request(`${callback.pathname}${callback.search}`, {
        headers: { cookie: `robowatch_sso=${kept}` },
      }),
    };
  }
  const sessionOf = (response: Response) =>
    /robowatch_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  const account = async (session: string) =>
    (await (
      await app.request('/api/v1/account', { headers: { cookie: `robowatch_session=${session}` } })
    ).json()) as { name: string; role: string; tags: string[]; via: string };

  it('guards everything once single sign-on is configured, and offers it on the sign-in page', async () => {
    expect((await app.request('/api/v1/sites')).status).toBe(401);
    const login = await (await app.request('/login')).text();
    expect(login).toContain('Sign in with Acme login');
  });

  it('signs a person in with the authorization code and PKCE, made an admin by their group', async () => {
    const { authorization, answer } = await signIn('sub-ana', '/sites/1');
    expect(authorization.origin).toBe(issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${PUBLIC}/login/oidc/callback`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/sites/1');
    const session = sessionOf(answer)!;
    expect(await account(session)).toMatchObject({ name: 'ana', role: 'admin', tags: [] });
    const ana = (await accounts.listUsers()).find((u) => u.name === 'ana')!;
    expect(ana).toMatchObject({ hasPassword: false, oidc: { issuer, subject: 'sub-ana' } });
    const [made] = await accounts.listAudit({ actor: 'single sign-on', limit: 1 });
    expect(made).toMatchObject({ action: 'user.add', target: 'ana', via: 'sso' });
  });

  it('limits a person to the tags their groups give, and follows their groups at each sign-in', async () => {
    const sam = sessionOf((await signIn('sub-sam')).answer)!;
    expect(await account(sam)).toMatchObject({ name: 'sam', role: 'viewer', tags: ['client-a'] });
    people['sub-sam']!.groups = ['seo-team'];
    const again = sessionOf((await signIn('sub-sam')).answer)!;
    expect(await account(again)).toMatchObject({ name: 'sam', role: 'editor', tags: [] });
    const [changed] = await accounts.listAudit({ actor: 'single sign-on', limit: 1 });
    expect(changed).toMatchObject({
      action: 'user.edit',
      target: 'sam',
      before: { role: 'viewer', tags: ['client-a'] },
      after: { role: 'editor', tags: [] },
    });
    people['sub-sam']!.groups = ['agency', 'staff'];
  });

  it('refuses, in one line, a person no group of theirs gives a role, and one whose name is taken', async () => {
    const zed = (await signIn('sub-zed')).answer;
    expect(zed.status).toBe(403);
    expect(sessionOf(zed)).toBeUndefined();
    expect(await zed.text()).toContain(
      'zed may not use robowatch: none of their groups (groups: sales) is given a role',
    );
    expect((await accounts.listUsers()).map((u) => u.name)).not.toContain('zed');

    await accounts.addUser(SETUP, { name: 'bob', role: 'viewer', password: 'bob has a password' });
    const bob = (await signIn('sub-bob')).answer;
    expect(bob.status).toBe(403);
    expect(await bob.text()).toContain(
      'there is already a user &quot;bob&quot; who signs in another way',
    );
  });

  it('refuses, in one line, a subject from the provider that cannot be kept', async () => {
    const nul = (await signIn('sub-\u0000nul')).answer;
    expect(nul.status).toBe(403);
    expect(sessionOf(nul)).toBeUndefined();
    expect(await nul.text()).toContain(
      'the single sign-on provider gave a subject (sub) robowatch cannot keep: it must not contain a NUL character (\\u0000)',
    );
    expect((await accounts.listUsers()).map((u) => u.name)).not.toContain('nul');
  });

  it('refuses a callback this browser did not begin, one without its cookie, and the provider’s refusal', async () => {
    const first = await signIn('sub-ana');
    expect(first.answer.status).toBe(303);
    // The code again, with another sign-in's state and verifier: not this browser's.
    const other = await app.request('/login/oidc');
    const otherKept = /robowatch_sso=([^;]+)/.exec(other.headers.get('set-cookie')!)![1];
    const replayed = await app.request(first.callback, {
      headers: { cookie: `robowatch_sso=${otherKept}` },
    });
    expect(replayed.status).toBe(502);
    expect(sessionOf(replayed)).toBeUndefined();
    expect(await replayed.text()).toContain('the single sign-on provider refused the sign-in');

    const cookieless = await app.request(first.callback);
    expect(cookieless.status).toBe(400);
    expect(await cookieless.text()).toContain('sign in again');

    const denied = await app.request(
      '/login/oidc/callback?error=access_denied&error_description=End-User+aborted',
      { headers: { cookie: `robowatch_sso=${first.kept}` } },
    );
    expect(denied.status).toBe(403);
    expect(await denied.text()).toContain('did not sign you in: End-User aborted');
  });

  it('says so in one line when the provider cannot be reached', async () => {
    const config = historyConfig(
      server.origin,
      `web: {sso: {issuer: 'http://127.0.0.1:9', clientId: robowatch, roles: {viewer: ['*']}}}`,
    );
    const unreachable = appOf(config);
    const answer = await unreachable.request('/login/oidc');
    expect(answer.status).toBe(502);
    expect(await answer.text()).toContain(
      'the single sign-on provider http://127.0.0.1:9 could not be reached or described',
    );
  });
});
