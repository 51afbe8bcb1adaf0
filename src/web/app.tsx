import { Hono } from 'hono';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie } from 'hono/cookie';
import { csrf } from 'hono/csrf';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { nothingAt, oneLine } from '../lib/errors.js';
import { SESSION_COOKIE, authenticate, bearerOf } from './auth.js';
import type { WebEnv } from './auth.js';
import type { WebDeps } from './deps.js';
import { ErrorPageView } from './pages/errors.js';
import { TesterThread } from '../monitor/threads/tester-thread.js';
import { apiApp } from './api/index.js';
import { registerOps } from './routes/ops.js';
import { registerPages } from './routes/pages.js';
import { configuredSites } from './sites.js';
import { STYLESHEET } from './style.js';

/** A tested robots.txt may be 500 KiB; the form encodes it, so allow some more. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

/**
 * The web UI, the JSON API and the operations endpoints, as one Hono app. main.ts (via
 * the CLI) listens; tests call `app.request()`.
 */
export function createApp(deps: WebDeps): Hono<WebEnv> {
  const app = new Hono<WebEnv>();
  const sites = configuredSites(deps);

  app.use(
    secureHeaders({
      // No script at all, styles from /static only, nothing framed; a route may set its own.
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
      referrerPolicy: 'no-referrer',
      // HTTPS, and so HSTS, is the business of whatever terminates TLS in front.
      strictTransportSecurity: false,
      xFrameOptions: 'DENY',
      overwrite: false,
    }),
  );
  // A form posted from another site with the browser's session cookie is refused (its
  // Origin or Sec-Fetch-Site header gives it away). Without that cookie there is nothing
  // to forge: a Bearer token is never sent by a browser on its own.
  const crossSite = csrf();
  app.use(async (c, next) => {
    // Only a request that signs in by its Bearer token skips the check: any other
    // Authorization header is judged by the cookie's rules.
    if (bearerOf(c) !== undefined || getCookie(c, SESSION_COOKIE) === undefined) return next();
    try {
      return await crossSite(c, next);
    } catch (error) {
      if (error instanceof HTTPException && error.status === 403 && error.message === '')
        throw new HTTPException(403, {
          message: 'refused: this form was posted from another site',
        });
      throw error;
    }
  });
  app.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new HTTPException(413, {
          message: `the request body is over ${MAX_BODY_BYTES} bytes`,
        });
      },
    }),
  );
  // A NUL byte fits no path, id, URL or crawler name here (and PostgreSQL text refuses it).
  app.use(async (c, next) => {
    if (/%00|\0/.test(c.req.url))
      throw new HTTPException(400, { message: 'the address contains a NUL byte (%00)' });
    return next();
  });
  app.use(
    authenticate({
      token: deps.config.web.token,
      localToken: deps.localToken,
      accounts: deps.accounts,
      trustProxy: deps.config.web.trustProxy,
      sso: deps.sso !== undefined,
    }),
  );

  app.get('/static/style.css', (c) =>
    c.body(STYLESHEET, 200, {
      'content-type': 'text/css; charset=utf-8',
      'cache-control': 'max-age=3600',
    }),
  );
  const tester = deps.tester ?? new TesterThread();
  registerPages(app, deps, sites, tester);
  app.route('/', apiApp({ deps, sites, tester }));
  registerOps(app, deps);

  const respond = (c: Context<WebEnv>, status: ContentfulStatusCode, message: string) => {
    if (status === 401) c.header('www-authenticate', 'Bearer realm="robowatch"');
    if (c.req.path.startsWith('/api/') || c.req.path === '/metrics' || c.req.path === '/healthz')
      return c.json({ error: { status, message } }, status);
    return c.html(
      <ErrorPageView status={status} message={message} signedIn={c.get('signedIn') ?? false} />,
      status,
    );
  };
  app.notFound((c) => respond(c, 404, nothingAt(c.req.path)));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return respond(c, error.status, error.message);
    deps.logger.error({ path: c.req.path, error: oneLine(error) }, 'web request failed');
    return respond(c, 500, 'internal error; the logs say more');
  });
  return app;
}
