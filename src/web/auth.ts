import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';

/** The browser's session cookie: an HMAC of the token, never the token itself. */
export const SESSION_COOKIE = 'robowatch_session';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares in constant time (over SHA-256 digests, so lengths do not leak either). */
export function tokenMatches(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('robowatch web session v1').digest('hex');
}

/** The Bearer token of the request's Authorization header, if it has one. */
export function bearerOf(c: Context): string | undefined {
  return c.req
    .header('authorization')
    ?.match(/^Bearer\s+(.+)$/i)?.[1]
    ?.trim();
}

/**
 * Whether the request carries the token: Authorization: Bearer, or the session cookie.
 * A request with an Authorization header is judged by it alone, never by its cookie.
 */
export function isAuthenticated(c: Context, token: string): boolean {
  if (c.req.header('authorization') !== undefined) {
    const bearer = bearerOf(c);
    return bearer !== undefined && tokenMatches(bearer, token);
  }
  const cookie = getCookie(c, SESSION_COOKIE);
  return cookie !== undefined && tokenMatches(cookie, sessionValue(token));
}

/**
 * The read-only key of the Atom feeds (`?key=`): feed readers rarely send headers, so a
 * feed's link carries this instead of the token. It opens the feeds and nothing else, and
 * changes when the token does.
 */
export function feedKey(token: string): string {
  return createHmac('sha256', token).update('robowatch feed key v1').digest('hex').slice(0, 32);
}

const isFeed = (path: string) => path === '/feed.atom' || /^\/sites\/\d+\/feed\.atom$/.test(path);

/**
 * Paths served without the token: signing in needs the form and its stylesheet; a
 * prober needs /healthz's status (the rest of its answer needs the token).
 */
const OPEN = new Set(['/login', '/static/style.css', '/healthz']);

/**
 * With `web.token` set, every request needs it; a browser without it is sent to the
 * sign-in form, anything else gets a 401 (JSON under /api).
 */
export function requireToken(
  token: string | undefined,
  localToken?: string,
): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    // The running daemon's own commands (`robowatch history` beside it) carry its local
    // token, which it wrote to a file only the data directory's owner can read.
    const bearer = bearerOf(c);
    const local =
      localToken !== undefined && bearer !== undefined && tokenMatches(bearer, localToken);
    const signedIn = local || (token !== undefined && isAuthenticated(c, token));
    c.set('signedIn', signedIn);
    c.set('local', local);
    if (token === undefined || signedIn || OPEN.has(c.req.path)) return next();
    const key = c.req.query('key');
    if (isFeed(c.req.path) && key !== undefined && tokenMatches(key, feedKey(token))) return next();
    const wantsHtml =
      c.req.method === 'GET' &&
      !c.req.path.startsWith('/api/') &&
      (c.req.header('accept') ?? '').includes('text/html');
    if (wantsHtml) return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
    throw new HTTPException(401, {
      message: 'this robowatch needs its access token: send Authorization: Bearer <web.token>',
    });
  };
}

/**
 * Anything that changes something (checking a site now) needs the token, always: with
 * no token configured, the web cannot change anything.
 */
export function requireWriteAccess(c: Context<WebEnv>, token: string | undefined): void {
  if (c.get('local')) return;
  if (token === undefined) {
    throw new HTTPException(403, {
      message:
        'the web UI and API are read-only: set web.token in the configuration to allow checking and editing sites',
    });
  }
  if (!c.get('signedIn')) throw new HTTPException(401, { message: 'sign in first' });
}

/**
 * Where to go after signing in: a path on this site, never another site. Browsers drop
 * tabs and line breaks from URLs (so "/\t/evil.example" is "//evil.example") and a line
 * break cannot go into a Location header at all: any control character means "/".
 */
export function safeNext(next: string | undefined): string {
  const control = [...(next ?? '')].some((ch) => ch <= '\u001f' || ch === '\u007f' || ch === '\\');
  if (next === undefined || !/^\/(?![/\\])/.test(next) || control) return '/';
  const base = 'http://robowatch.invalid';
  const url = new URL(next, base);
  return url.origin === base ? url.pathname + url.search + url.hash : '/';
}

export interface WebEnv {
  Variables: { signedIn: boolean; local: boolean };
}
