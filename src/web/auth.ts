import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';
import type { Accounts, Actor, Principal } from '../monitor/accounts.js';
import { allows } from '../policy/access-roles.js';
import type { Scope } from '../policy/access-roles.js';
import { reachesEverySite, requiredScope, SCOPE_WORDS } from './scopes.js';

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
 * The read-only key of the Atom feeds (`?key=`): feed readers rarely send headers, so a
 * feed's link carries this instead of the token. It opens the feeds and nothing else, and
 * changes when the token does.
 */
export function feedKey(token: string): string {
  return createHmac('sha256', token).update('robowatch feed key v1').digest('hex').slice(0, 32);
}

const isFeed = (path: string) => path === '/feed.atom' || /^\/sites\/\d+\/feed\.atom$/.test(path);

/** How a request's principal is found: the tokens of the configuration and the accounts. */
export interface AuthOptions {
  readonly token: string | undefined;
  /** The running daemon's own commands' token (a file only the data directory's owner reads). */
  readonly localToken?: string | undefined;
  /** Users, sessions and keys; absent: web.token alone, as before users. */
  readonly accounts?: Accounts | undefined;
  /** Take the client's address from the last X-Forwarded-For entry (web.trustProxy). */
  readonly trustProxy?: boolean;
  /** Single sign-on is configured: people sign in, so nothing is open to nobody. */
  readonly sso?: boolean;
}

/** The client's address: the socket's, or behind a trusted proxy the one it forwarded. */
export function clientAddress(c: Context, trustProxy = false): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded !== undefined && forwarded !== '' && forwarded.length <= 64) return forwarded;
  }
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket.remoteAddress ?? 'unknown';
}

const ADMIN = (name: string, via: Actor['via'], address: string): Principal => ({
  actor: { name, userId: null, via, address },
  scope: 'admin',
  tags: [],
});

/**
 * Who a request is: the daemon's own command (its local token), web.token (Bearer or its
 * session cookie), a user's API key (Bearer) or session (cookie), or nobody. A request with
 * an Authorization header is judged by it alone, never by its cookie: `invalid` when it
 * is no token or key robowatch knows (or one expired or revoked).
 */
async function principalOf(
  c: Context,
  options: AuthOptions,
  address: string,
): Promise<Principal | null | 'invalid'> {
  const { token, localToken, accounts } = options;
  if (c.req.header('authorization') !== undefined) {
    const bearer = bearerOf(c);
    if (bearer !== undefined) {
      if (localToken !== undefined && tokenMatches(bearer, localToken))
        return ADMIN('robowatch', 'local', address);
      if (token !== undefined && tokenMatches(bearer, token))
        return ADMIN('web.token', 'token', address);
      const key = await accounts?.key(bearer, address);
      if (key !== undefined) return key;
    }
    return 'invalid';
  }
  const cookie = getCookie(c, SESSION_COOKIE);
  if (cookie === undefined) return null;
  if (token !== undefined && tokenMatches(cookie, sessionValue(token)))
    return ADMIN('web.token', 'token', address);
  return (await accounts?.session(cookie, address)) ?? null;
}

/** Nobody signed in, where robowatch has neither web.token nor users: it reads, read-only. */
const ANONYMOUS = (address: string): Principal => ({
  actor: { name: 'anonymous', userId: null, via: 'session', address },
  scope: 'read',
  tags: [],
});

/**
 * Finds who each request is and lets it through only with the scope its route needs
 * (scopes.ts). With web.token or any user, every route but signing in needs someone: a
 * browser is sent to the sign-in form, anything else gets a 401 (JSON under /api).
 * Without either, anyone reads and nobody changes anything (403).
 */
export function authenticate(options: AuthOptions): MiddlewareHandler<WebEnv> {
  return async (c, next) => {
    const address = clientAddress(c, options.trustProxy);
    c.set('address', address);
    const found = await principalOf(c, options, address);
    const needed = requiredScope(c.req.method, c.req.path);
    // A wrong header is refused where credentials count; an open route (a prober's
    // /healthz, the sign-in form) answers as to nobody.
    if (found === 'invalid' && needed !== null)
      throw new HTTPException(401, {
        message:
          'the Authorization header is not a valid token or API key (wrong, expired or revoked): send Authorization: Bearer <key>',
      });
    let principal = found === 'invalid' ? null : found;
    const guarded =
      options.token !== undefined ||
      options.sso === true ||
      ((await options.accounts?.hasUsers()) ?? false);
    c.set('guarded', guarded);
    if (principal === null && !guarded) principal = ANONYMOUS(address);
    c.set('principal', principal);
    c.set('signedIn', principal !== null && principal.actor.name !== 'anonymous');
    c.set('local', principal?.actor.via === 'local');
    if (needed === null) return next();
    if (principal === null) {
      const key = c.req.query('key');
      if (isFeed(c.req.path) && key !== undefined) {
        const feed = options.token !== undefined && tokenMatches(key, feedKey(options.token));
        const reader = feed ? undefined : await options.accounts?.key(key, address);
        if (feed || reader !== undefined) {
          c.set('principal', reader ?? ADMIN('web.token', 'token', address));
          return next();
        }
      }
      const wantsHtml =
        c.req.method === 'GET' &&
        !c.req.path.startsWith('/api/') &&
        (c.req.header('accept') ?? '').includes('text/html');
      if (wantsHtml) return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
      throw new HTTPException(401, {
        message:
          'sign in first: send Authorization: Bearer <API key or web.token>, or sign in at /login',
      });
    }
    if (!allows(principal.scope, needed)) {
      throw new HTTPException(403, {
        message: !guarded
          ? 'the web UI and API are read-only: set web.token in the configuration, or add a user (robowatch users add), to allow checking and editing sites'
          : `${principal.actor.name}${principal.actor.keyName === undefined ? '' : ` (key "${principal.actor.keyName}")`} may not do this: it needs the ${needed} scope, to ${SCOPE_WORDS[needed]}`,
      });
    }
    if (principal.tags.length > 0 && reachesEverySite(c.req.method, c.req.path))
      throw new HTTPException(403, {
        message: `${principal.actor.name} sees only the sites tagged ${principal.tags.join(', ')}: this reaches every site (the metrics, crawler presets), so it needs someone who sees them all`,
      });
    return next();
  };
}

/** The principal of a request that got past `authenticate`. */
export function principal(c: Context<WebEnv>): Principal {
  const found = c.get('principal');
  if (found === null) throw new HTTPException(401, { message: 'sign in first' });
  return found;
}

/** Whether the request's principal may do what `scope` allows (to show a form or not). */
export function may(c: Context<WebEnv>, scope: Scope): boolean {
  return allows(c.get('principal')?.scope ?? null, scope);
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
  Variables: {
    /** Who the request is; null: nobody (on an open route). */
    principal: Principal | null;
    /** Someone is signed in (a token, a key or a session). */
    signedIn: boolean;
    /** The running daemon's own command. */
    local: boolean;
    /** robowatch has web.token or users: nothing but signing in is open. */
    guarded: boolean;
    address: string;
  };
}
