/** Your account, the users and the audit log, as pages (the API: api/accounts.ts). */
import type { Context, Hono } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { UsageError } from '../../lib/errors.js';
import type { Accounts } from '../../monitor/accounts.js';
import { SESSION_DAYS } from '../../monitor/accounts.js';
import { SESSION_COOKIE, principal } from '../auth.js';
import type { WebEnv } from '../auth.js';
import type { WebDeps } from '../deps.js';
import { AccountPageView, AuditPageView, UsersPageView } from '../pages/accounts.js';
import type { PageNotice } from '../pages/accounts.js';
import { optionalId, parseId } from '../sites.js';
import type { Render } from './render.js';
import { postedForm } from './form.js';

const AUDIT_PAGE = 100;

export function registerAccountPages(app: Hono<WebEnv>, deps: WebDeps, render: Render): void {
  const accounts = (): Accounts => {
    if (deps.accounts === undefined)
      throw new HTTPException(503, { message: 'users and keys are not kept by this process' });
    return deps.accounts;
  };
  const text = (body: Record<string, unknown>, name: string) =>
    typeof body[name] === 'string' ? body[name].trim() : '';
  const from = (c: Context<WebEnv>) => ({
    address: c.get('address'),
    userAgent: c.req.header('user-agent') ?? null,
  });
  const cookie = (c: Context<WebEnv>, secret: string) =>
    setCookie(c, SESSION_COOKIE, secret, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      secure: new URL(c.req.url).protocol === 'https:',
      maxAge: SESSION_DAYS * 24 * 3600,
    });
  /** A refusal in the accounts' words, shown on the page it came from (400). */
  const refused = async (
    page: (notice: PageNotice, status: ContentfulStatusCode) => Promise<Response>,
    change: () => Promise<Response>,
  ) => {
    try {
      return await change();
    } catch (error) {
      if (error instanceof UsageError) return page({ text: error.message, error: true }, 400);
      throw error;
    }
  };

  const accountPage = async (
    c: Context<WebEnv>,
    notice?: PageNotice,
    status?: ContentfulStatusCode,
  ) => {
    const p = principal(c);
    const keys = p.user === undefined ? null : await accounts().listKeys(p.user.id);
    return render(
      c,
      <AccountPageView
        name={p.actor.name}
        role={p.user?.role ?? null}
        scope={p.scope}
        via={p.actor.keyName === undefined ? p.actor.via : `key “${p.actor.keyName}”`}
        keys={keys}
        notice={notice}
      />,
      status,
    );
  };
  const own = (c: Context<WebEnv>) => {
    const user = principal(c).user;
    if (user === undefined)
      throw new HTTPException(400, { message: 'web.token is not a user: it has no account' });
    return user;
  };

  app.get('/account', (c) => accountPage(c));

  app.post('/account/keys', async (c) => {
    const body = await postedForm(c);
    const days = text(body, 'days');
    return refused(
      (n, s) => accountPage(c, n, s),
      async () => {
        const n = days === '' ? null : Number(days);
        if (n !== null && (!Number.isInteger(n) || n < 1 || n > 3650))
          throw new UsageError('expires after: a number of days from 1 to 3650, or empty');
        const made = await accounts().createKey(principal(c).actor, {
          user: own(c).name,
          scope: text(body, 'scope'),
          ...(text(body, 'name') === '' ? {} : { name: text(body, 'name') }),
          expiresInMs: n === null ? null : n * 86_400_000,
        });
        return accountPage(c, {
          text: `Key “${made.record.name}” made (${made.record.scope}). Copy it now: it is not shown again.`,
          key: made.key,
        });
      },
    );
  });

  app.post('/account/keys/:id/revoke', async (c) => {
    const id = parseId(c.req.param('id'), 'key');
    return refused(
      (n, s) => accountPage(c, n, s),
      async () => {
        const key = await accounts().revokeKey(principal(c).actor, id, own(c).id);
        return accountPage(c, { text: `Key “${key.name}” revoked: it no longer works.` });
      },
    );
  });

  app.post('/account/password', async (c) => {
    const body = await postedForm(c);
    return refused(
      (n, s) => accountPage(c, n, s),
      async () => {
        const secret = await accounts().changeOwnPassword(
          principal(c).actor,
          own(c).name,
          text(body, 'current'),
          typeof body['password'] === 'string' ? body['password'] : '',
          from(c),
        );
        cookie(c, secret);
        return accountPage(c, { text: 'Password changed: your other sessions have ended.' });
      },
    );
  });

  app.post('/account/sign-out-everywhere', async (c) => {
    await accounts().signOutEverywhere(principal(c).actor, own(c).name);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/login', 303);
  });

  const usersPage = async (
    c: Context<WebEnv>,
    notice?: PageNotice,
    status?: ContentfulStatusCode,
  ) =>
    render(
      c,
      <UsersPageView
        users={await accounts().listUsers()}
        keys={await accounts().listKeys()}
        notice={notice}
      />,
      status,
    );

  app.get('/users', (c) => usersPage(c));

  app.post('/users', async (c) => {
    const body = await postedForm(c);
    return refused(
      (n, s) => usersPage(c, n, s),
      async () => {
        const user = await accounts().addUser(principal(c).actor, {
          name: text(body, 'name'),
          role: text(body, 'role'),
          tags: tagsField(body),
          password: typeof body['password'] === 'string' ? body['password'] : '',
        });
        return usersPage(c, { text: `Added ${user.name} (${user.role}).` });
      },
    );
  });

  app.post('/users/:name/role', async (c) => {
    const body = await postedForm(c);
    const name = c.req.param('name');
    return refused(
      (n, s) => usersPage(c, n, s),
      async () => {
        const user = await accounts().updateUser(principal(c).actor, name, {
          role: text(body, 'role'),
          ...(typeof body['tags'] === 'string' ? { tags: tagsField(body) } : {}),
        });
        const sees =
          user.tags.length === 0 ? 'every site' : `the sites tagged ${user.tags.join(', ')}`;
        return usersPage(c, {
          text: `${user.name} is now ${/^[aeiou]/.test(user.role) ? 'an' : 'a'} ${user.role} and sees ${sees}.`,
        });
      },
    );
  });

  app.post('/users/:name/sign-out', async (c) => {
    const name = c.req.param('name');
    return refused(
      (n, s) => usersPage(c, n, s),
      async () => {
        const ended = await accounts().signOutEverywhere(principal(c).actor, name);
        return usersPage(c, {
          text: `Signed ${name} out everywhere (${ended} session${ended === 1 ? '' : 's'}).`,
        });
      },
    );
  });

  app.post('/users/:name/remove', async (c) => {
    const name = c.req.param('name');
    return refused(
      (n, s) => usersPage(c, n, s),
      async () => {
        if (principal(c).user?.name === name)
          throw new UsageError('you cannot remove yourself: another admin can');
        await accounts().removeUser(principal(c).actor, name);
        return usersPage(c, { text: `Removed ${name}: their sessions and keys no longer work.` });
      },
    );
  });

  app.post('/keys/:id/revoke', async (c) => {
    const id = parseId(c.req.param('id'), 'key');
    return refused(
      (n, s) => usersPage(c, n, s),
      async () => {
        const key = await accounts().revokeKey(principal(c).actor, id);
        return usersPage(c, { text: `Key “${key.name}” of ${key.user} revoked.` });
      },
    );
  });

  app.get('/audit', async (c) => {
    const site = optionalId(c.req.query('site'), 'site');
    const before = optionalId(c.req.query('before'), 'before');
    const actor = c.req.query('actor') || undefined;
    const entries = await accounts().listAudit({
      ...(site === undefined ? {} : { siteId: site }),
      ...(actor === undefined ? {} : { actor }),
      ...(before === undefined ? {} : { before }),
      limit: AUDIT_PAGE + 1,
    });
    const page = entries.slice(0, AUDIT_PAGE);
    const params = new URLSearchParams({
      ...(site === undefined ? {} : { site: String(site) }),
      ...(actor === undefined ? {} : { actor }),
      before: String(page.at(-1)?.id ?? 0),
    });
    return render(
      c,
      <AuditPageView
        entries={page}
        site={site}
        actor={actor}
        next={entries.length > AUDIT_PAGE ? `/audit?${params.toString()}` : null}
      />,
    );
  });
}

/** A form's comma-separated tags (empty: every site). */
function tagsField(body: Record<string, unknown>): string[] {
  const given = body['tags'];
  return typeof given === 'string'
    ? given
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
    : [];
}
