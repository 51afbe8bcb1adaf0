/** The tester, the digests sent, and signing in and out. */
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';
import { startingFile, testRobots } from '../../monitor/test-robots.js';
import { TesterRefused } from '../../monitor/threads/tester-thread.js';
import { SESSION_COOKIE, may, safeNext, sessionValue, tokenMatches } from '../auth.js';
import { DigestPageView, DigestPreviewPageView, DigestsPageView } from '../pages/digests.js';
import { digestWindow, sendDigestsNow } from '../notifications.js';
import { LoginPageView } from '../pages/errors.js';
import type { LoginFailure } from '../pages/errors.js';
import { SESSION_DAYS, SignInRefused } from '../../monitor/accounts.js';
import type { SsoPending } from '../../monitor/records-accounts.js';
import { SsoFailed } from '../../lib/errors.js';
import { TesterPageView } from '../pages/tester.js';
import { testerIntent } from '../../policy/tester-intent.js';
import type { TesterIntent } from '../../policy/tester-intent.js';
import type { TesterForm } from '../pages/tester.js';
import type { SiteRefusal } from '../pages/components.js';
import { optionalId, parseId, tagLimit } from '../sites.js';
import { checkTestSize, lines, parseAgents, parseUrls, refusal } from '../tester-input.js';
import type { Context, Hono } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Render } from './render.js';
import type { WebEnv } from '../auth.js';
import type { ConfiguredSites } from '../sites.js';
import type { TesterThread } from '../../monitor/threads/tester-thread.js';
import type { WebDeps } from '../deps.js';
import { postedForm } from './form.js';

const decoder = new TextDecoder('utf-8', { fatal: false });

export function registerToolPages(
  app: Hono<WebEnv>,
  deps: WebDeps,
  sites: ConfiguredSites,
  tester: TesterThread,
  render: Render,
): void {
  const token = deps.config.web.token;
  app.get('/tester', async (c) => {
    const typed = c.req.query('site');
    const { site: chosen, refused } = await sites.chosen(c, typed);
    const site = chosen === undefined ? undefined : await sites.resolve(c, String(chosen));
    let robots = '';
    const snapshotId = optionalId(c.req.query('snapshot'), 'snapshot');
    if (site !== undefined) {
      const file = await startingFile(deps.store, site.id, snapshotId);
      if (file === undefined)
        throw new HTTPException(404, { message: `${site.origin} has no snapshot ${snapshotId}` });
      if (file !== null) robots = decoder.decode(file);
    }
    const agents = site?.config?.agents ?? deps.config.sites[0]?.agents ?? [];
    const form: TesterForm = {
      siteId: site === undefined ? '' : String(site.id),
      robots,
      agents: agents.map((a) => `${a.token} ${a.profile}`).join('\n'),
      urls: (site?.config?.watches ?? [])
        .map((u) => new URL(u).pathname + new URL(u).search)
        .join('\n'),
    };
    return render(
      c,
      <TesterPageView
        sites={await sites.choices(c, site?.id, refused === undefined ? '' : typed)}
        form={form}
        result={undefined}
        error={refused?.message}
        refused={refused}
        chooses
        signedIn={c.get('signedIn')}
      />,
      refused === undefined ? 200 : 400,
    );
  });

  app.post('/tester', async (c) => {
    const body = await postedForm(c, { stored: false }); // a file to test, kept nowhere
    const text = (name: string) => (typeof body[name] === 'string' ? body[name] : '');
    let form: TesterForm = {
      siteId: text('site'),
      robots: text('robots'),
      agents: text('agents'),
      urls: text('urls'),
    };
    let result;
    let intent: TesterIntent | undefined;
    let error: string | undefined;
    let status: 200 | 400 | 413 | 422 | 503 = 200;
    let refused: SiteRefusal | undefined;
    try {
      const named = await sites.chosen(c, form.siteId);
      refused = named.refused;
      if (refused !== undefined) throw new HTTPException(400, { message: refused.message });
      const chosen = named.site;
      const site = chosen === undefined ? undefined : await sites.resolve(c, String(chosen));
      form = { ...form, siteId: site === undefined ? '' : String(site.id) };
      const input = {
        origin: site?.origin,
        body: new TextEncoder().encode(form.robots),
        agents: parseAgents(lines(form.agents)),
        urls: parseUrls(lines(form.urls), site?.origin),
      };
      checkTestSize(input.body.length, input.urls.length, input.agents.length);
      result = await testRobots(deps.store, input, (i) => tester.evaluate(i)).catch(
        (e: unknown) => {
          throw e instanceof TesterRefused ? refusal(c, e) : e;
        },
      );
      // Against what the site's owner intends, as a deploy of it would be judged.
      if (site?.config !== undefined)
        intent = testerIntent(
          site.config.intent.rules,
          site.config.profile,
          input.body,
          result.rows,
        );
    } catch (e) {
      if (!(e instanceof HTTPException) || ![400, 413, 422, 503].includes(e.status)) throw e;
      error = e.message;
      status = e.status as typeof status;
    }
    return render(
      c,
      <TesterPageView
        sites={
          await (/^\d+$/.test(form.siteId)
            ? sites.choices(c, Number(form.siteId))
            : sites.choices(c, undefined, form.siteId))
        }
        form={form}
        result={result}
        intent={intent}
        error={error}
        refused={refused}
        signedIn={c.get('signedIn')}
      />,
      status,
    );
  });

  app.get('/digests', async (c) =>
    render(
      c,
      <DigestsPageView
        digests={tagLimit(c).length === 0 ? await deps.store.listDigests(100) : []}
        limited={tagLimit(c).length > 0}
        signedIn={c.get('signedIn')}
      />,
    ),
  );

  // What the next digest will say, per recipient, with Send now.
  app.get('/digests/preview', async (c) => {
    const since = c.req.query('since')?.trim() || '7d';
    const period = digestWindow(deps, since);
    const digests = await deps.previewDigests(period, undefined, sites.filter(c));
    return render(
      c,
      <DigestPreviewPageView
        previews={digests.map((d) => ({
          recipient: d.recipient,
          subject: d.rendered.subject,
          text: d.rendered.text,
        }))}
        chosen={c.req.query('to')}
        since={since}
        period={period}
        canSend={deps.sendDigests !== undefined && may(c, 'admin')}
        done={c.req.query('done')}
        signedIn={c.get('signedIn')}
      />,
    );
  });

  app.get('/digests/preview/email.html', async (c) => {
    const to = c.req.query('to');
    if (to === undefined || to.trim() === '')
      throw new HTTPException(400, {
        message:
          'whose digest? Add ?to= and a recipient of digests (The next digest links each one’s email)',
      });
    const [digest] = await deps.previewDigests(
      digestWindow(deps, c.req.query('since')),
      to,
      sites.filter(c),
    );
    if (digest === undefined)
      throw new HTTPException(404, { message: `${to.slice(0, 200)} receives no digest` });
    c.header('content-security-policy', "sandbox; default-src 'none'; style-src 'unsafe-inline'");
    return c.html(digest.rendered.html);
  });

  app.post('/digests/send', async (c) => {
    const body = await postedForm(c);
    const to = typeof body.to === 'string' && body.to !== '' ? body.to : undefined;
    const since = typeof body.since === 'string' ? body.since : undefined;
    const sent = await sendDigestsNow(deps, digestWindow(deps, since), to);
    const params = new URLSearchParams({
      ...(to === undefined ? {} : { to }),
      since: since?.trim() || '7d',
      // Under `robowatch serve` the daemon sends what is queued, when it runs.
      done: sent.every((d) => d.id === null)
        ? 'already'
        : deps.scheduler === undefined
          ? 'queued'
          : 'sent',
    });
    return c.redirect(`/digests/preview?${params.toString()}`, 303);
  });

  const digestById = async (c: Context<WebEnv>, param: string | undefined) => {
    const id = parseId(param, 'digest');
    // A digest sent covers every site its recipient follows, theirs or not.
    if (tagLimit(c).length > 0)
      throw new HTTPException(403, {
        message: `a digest as sent covers sites you do not see: read your sites' digest at /digests/preview`,
      });
    // Only a digest that is not there is a 404; a store that fails is a 500.
    const digest = await deps.store.loadDigest(id);
    if (digest === undefined) throw new HTTPException(404, { message: `there is no digest ${id}` });
    return digest;
  };

  app.get('/digests/:id', async (c) =>
    render(
      c,
      <DigestPageView
        digest={await digestById(c, c.req.param('id'))}
        signedIn={c.get('signedIn')}
      />,
    ),
  );

  // The email's own HTML, as sent: robowatch rendered and escaped it; the sandbox keeps it inert.
  app.get('/digests/:id/email.html', async (c) => {
    const digest = await digestById(c, c.req.param('id'));
    c.header('content-security-policy', "sandbox; default-src 'none'; style-src 'unsafe-inline'");
    return c.html(digest.html);
  });

  const cookieOptions = (c: Context<WebEnv>) => ({
    httpOnly: true,
    sameSite: 'Strict' as const,
    path: '/',
    secure: new URL(c.req.url).protocol === 'https:',
    maxAge: SESSION_DAYS * 24 * 3600,
  });
  const loginPage = async (
    c: Context<WebEnv>,
    failed: LoginFailure | undefined,
    next: string,
    status?: ContentfulStatusCode,
    message?: string,
  ) =>
    render(
      c,
      <LoginPageView
        failed={failed}
        next={next}
        withUsers={(await deps.accounts?.hasUsers()) ?? false}
        withToken={token !== undefined}
        message={message}
        sso={deps.sso?.label}
      />,
      status,
    );

  app.get('/login', (c) => {
    const failed = c.req.query('failed');
    return loginPage(
      c,
      failed === '1' || failed === 'token' ? 'token' : failed === 'user' ? 'user' : undefined,
      safeNext(c.req.query('next')),
    );
  });

  app.post('/login', async (c) => {
    const body = await postedForm(c, { stored: false }); // a name no user has fails as a wrong one
    const next = safeNext(typeof body['next'] === 'string' ? body['next'] : undefined);
    const field = (name: string) => (typeof body[name] === 'string' ? body[name] : undefined);
    const given = field('token');
    if (given !== undefined) {
      if (token === undefined || !tokenMatches(given, token))
        return c.redirect(`/login?failed=1&next=${encodeURIComponent(next)}`, 303);
      setCookie(c, SESSION_COOKIE, sessionValue(token), cookieOptions(c));
      return c.redirect(next, 303);
    }
    const accounts = deps.accounts;
    if (accounts === undefined) return c.redirect(next, 303);
    try {
      const { secret, user } = await accounts.signIn(field('name') ?? '', field('password') ?? '', {
        address: c.get('address'),
        userAgent: c.req.header('user-agent') ?? null,
      });
      setCookie(c, SESSION_COOKIE, secret, cookieOptions(c));
      deps.logger.info({ user: user.name, address: c.get('address') }, 'signed in');
      return c.redirect(next, 303);
    } catch (error) {
      if (!(error instanceof SignInRefused)) throw error;
      if (error.status === 401)
        return c.redirect(`/login?failed=user&next=${encodeURIComponent(next)}`, 303);
      return loginPage(c, 'throttled', next, 429, error.message);
    }
  });

  // Single sign-on: to the provider with PKCE, state and nonce kept in a short-lived
  // cookie that only this path reads; back with a code, exchanged for who signed in.
  const ssoBase = (c: Context<WebEnv>) => deps.config.web.publicUrl ?? new URL(c.req.url).origin;
  const ssoCookie = (c: Context<WebEnv>) => ({
    httpOnly: true,
    // The provider sends the browser back by a top-level GET: Lax lets the cookie come along.
    sameSite: 'Lax' as const,
    path: '/login/oidc',
    secure: new URL(c.req.url).protocol === 'https:',
    maxAge: SSO_MINUTES * 60,
  });
  app.get('/login/oidc', async (c) => {
    if (deps.sso === undefined)
      throw new HTTPException(404, { message: 'single sign-on is not configured (web.sso)' });
    const next = safeNext(c.req.query('next'));
    let started;
    try {
      started = await deps.sso.start(`${ssoBase(c)}/login/oidc/callback`);
    } catch (error) {
      if (!(error instanceof SsoFailed)) throw error;
      deps.logger.warn({ error: error.message }, 'single sign-on could not start');
      return loginPage(c, 'sso', next, 502, error.message);
    }
    const kept = Buffer.from(JSON.stringify({ ...started.pending, next })).toString('base64url');
    setCookie(c, SSO_COOKIE, kept, ssoCookie(c));
    return c.redirect(started.url, 302);
  });
  app.get('/login/oidc/callback', async (c) => {
    if (deps.sso === undefined || deps.accounts === undefined)
      throw new HTTPException(404, { message: 'single sign-on is not configured (web.sso)' });
    const kept = keptSignIn(getCookie(c, SSO_COOKIE));
    deleteCookie(c, SSO_COOKIE, { path: '/login/oidc' });
    const next = kept?.next ?? '/';
    const refused = (message: string, status: ContentfulStatusCode) => {
      deps.logger.warn({ address: c.get('address'), reason: message }, 'single sign-on refused');
      return loginPage(c, 'sso', next, status, message);
    };
    const providerError = c.req.query('error');
    if (providerError !== undefined)
      return refused(
        `the single sign-on provider did not sign you in: ${(c.req.query('error_description') ?? providerError).slice(0, 200)}`,
        403,
      );
    if (kept === undefined)
      return refused(
        `this sign-in began more than ${SSO_MINUTES} minutes ago or in another browser: sign in again`,
        400,
      );
    try {
      const identity = await deps.sso.finish(
        new URL(`/login/oidc/callback${new URL(c.req.url).search}`, ssoBase(c)),
        kept,
      );
      const { secret, user } = await deps.accounts.signInBySso(identity, deps.config.web.sso!, {
        address: c.get('address'),
        userAgent: c.req.header('user-agent') ?? null,
      });
      setCookie(c, SESSION_COOKIE, secret, cookieOptions(c));
      deps.logger.info(
        { user: user.name, role: user.role, address: c.get('address') },
        'signed in by single sign-on',
      );
      return c.redirect(next, 303);
    } catch (error) {
      if (error instanceof SsoFailed) return refused(error.message, 502);
      if (error instanceof SignInRefused) return refused(error.message, error.status);
      throw error;
    }
  });

  app.post('/logout', async (c) => {
    const cookie = getCookie(c, SESSION_COOKIE);
    if (cookie !== undefined) await deps.accounts?.signOut(cookie);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/login', 303);
  });
}

/** The cookie that keeps a single sign-on under way, and how long it may take. */
const SSO_COOKIE = 'robowatch_sso';
const SSO_MINUTES = 10;

/** What the cookie kept of a sign-in under way, or undefined when it is missing or not ours. */
function keptSignIn(
  value: string | undefined,
): (SsoPending & { readonly next: string }) | undefined {
  if (value === undefined || value.length > 2000) return undefined;
  try {
    const kept = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
    const text = (key: string) => (typeof kept[key] === 'string' ? kept[key] : undefined);
    const state = text('state');
    const nonce = text('nonce');
    const verifier = text('verifier');
    if (state === undefined || nonce === undefined || verifier === undefined) return undefined;
    return { state, nonce, verifier, next: safeNext(text('next')) };
  } catch {
    return undefined;
  }
}
