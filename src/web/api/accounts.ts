/**
 * People and keys under /api/v1: who is asking (`/account`, and one's own keys), the
 * users and every key (admins), and the audit log of who changed what (admins).
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { UsageError } from '../../lib/errors.js';
import type { Accounts } from '../../monitor/accounts.js';
import {
  AccountDocument,
  ApiKeyCreatedDocument,
  ApiKeyListDocument,
  ApiKeyRequest,
  AuditListDocument,
  UserChangeRequest,
  UserDocument,
  UserListDocument,
  UserRequest,
  apiKeyDocument,
  auditEntryDocument,
  userDocument,
} from '../../monitor/documents/index.js';
import type { WebEnv } from '../auth.js';
import { principal } from '../auth.js';
import { optionalId } from '../sites.js';
import {
  API,
  ID,
  answer,
  apiPart,
  errors,
  jsonBody,
  limitOf,
  parseBody,
  query,
  readJson,
  route,
} from './route.js';
import type { ApiContext } from './route.js';

const USER_NAME = z.object({
  name: z.string().meta({ param: { name: 'name', in: 'path' }, description: 'the user’s name' }),
});

/** A refusal of the accounts (a name taken, a bad role) as a 400, or 404 for who is not there. */
async function accountChange<T>(change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if (error instanceof UsageError)
      throw new HTTPException(/^there is no /.test(error.message) ? 404 : 400, {
        message: error.message,
      });
    throw error;
  }
}

export function accountsApi({ deps }: ApiContext) {
  const app = apiPart();
  const accounts = (): Accounts => {
    if (deps.accounts === undefined)
      throw new HTTPException(503, { message: 'users and keys are not kept by this process' });
    return deps.accounts;
  };
  const own = (c: Context<WebEnv>) => {
    const user = principal(c).user;
    if (user === undefined)
      throw new HTTPException(400, {
        message:
          'web.token is not a user: it has no keys of its own (POST /api/v1/keys makes one for a user)',
      });
    return user;
  };

  /** A key made for `user` as the body asks: 201 with the key, shown this once. */
  const makeKey = async (
    c: Context<WebEnv>,
    user: string,
    body: { scope: string; name?: string | undefined; expiresInDays?: number | undefined },
  ) => {
    const made = await accountChange(() =>
      accounts().createKey(principal(c).actor, {
        user,
        scope: body.scope,
        ...(body.name === undefined ? {} : { name: body.name }),
        expiresInMs: body.expiresInDays === undefined ? null : body.expiresInDays * 86_400_000,
      }),
    );
    return c.json({ ...apiKeyDocument(made.record), key: made.key }, 201);
  };

  app.openapi(
    route({
      method: 'get',
      path: `${API}/account`,
      summary: 'Who is asking: the user (or web.token), its role, scope and tags.',
      responses: { 200: answer('who is asking', AccountDocument), ...errors([]) },
    }),
    (c) => {
      const p = principal(c);
      return c.json(
        {
          name: p.actor.name,
          role: p.user?.role ?? null,
          scope: p.scope,
          tags: p.tags,
          via: p.actor.keyName === undefined ? p.actor.via : `${p.actor.via}: ${p.actor.keyName}`,
        },
        200,
      );
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/account/keys`,
      summary:
        'Makes an API key for yourself, with a scope no wider than your role; the key is in this answer only.',
      request: { body: jsonBody(ApiKeyRequest) },
      responses: { 201: answer('the key, shown once', ApiKeyCreatedDocument), ...errors([400]) },
    }),
    async (c) => {
      const body = parseBody(ApiKeyRequest, await readJson(c, '{"scope": "read", "name": "…"}'));
      const user = own(c);
      return makeKey(c, user.name, body);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/account/keys`,
      summary: 'Your API keys (never the keys themselves).',
      responses: { 200: answer('your keys', ApiKeyListDocument), ...errors([400]) },
    }),
    async (c) => {
      const keys = await accounts().listKeys(own(c).id);
      return c.json({ keys: keys.map(apiKeyDocument) }, 200);
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: `${API}/account/keys/{id}`,
      summary: 'Revokes one of your API keys: it stops working at once.',
      request: { params: ID },
      responses: { 204: { description: 'revoked' }, ...errors([400, 404]) },
    }),
    async (c) => {
      const id = optionalId(c.req.param('id'), 'key')!;
      await accountChange(() => accounts().revokeKey(principal(c).actor, id, own(c).id));
      return c.body(null, 204);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/users`,
      summary: 'The users: their roles, the tags they are limited to, how they sign in.',
      responses: { 200: answer('the users', UserListDocument), ...errors([], true) },
    }),
    async (c) => c.json({ users: (await accounts().listUsers()).map(userDocument) }, 200),
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/users`,
      summary:
        'Adds a user: a role (viewer, editor, admin), optionally only the sites with some tags, and a password (12 characters or more) unless it signs in by single sign-on.',
      request: { body: jsonBody(UserRequest) },
      responses: { 201: answer('the user', UserDocument), ...errors([400], true) },
    }),
    async (c) => {
      const body = parseBody(
        UserRequest,
        await readJson(c, '{"name": "…", "role": "viewer", "password": "…"}'),
      );
      const user = await accountChange(() =>
        accounts().addUser(principal(c).actor, {
          name: body.name,
          role: body.role,
          ...(body.tags === undefined ? {} : { tags: body.tags }),
          ...(body.password === undefined ? {} : { password: body.password }),
        }),
      );
      return c.json(userDocument(user), 201);
    },
  );

  app.openapi(
    route({
      method: 'patch',
      path: `${API}/users/{name}`,
      summary:
        'Changes a user’s role, tags or password; a new password or a lesser role signs them out everywhere.',
      request: { params: USER_NAME, body: jsonBody(UserChangeRequest) },
      responses: { 200: answer('the user', UserDocument), ...errors([400, 404], true) },
    }),
    async (c) => {
      const body = parseBody(UserChangeRequest, await readJson(c, '{"role": "editor"}'));
      const user = await accountChange(() =>
        accounts().updateUser(principal(c).actor, c.req.param('name') ?? '', {
          ...(body.role === undefined ? {} : { role: body.role }),
          ...(body.tags === undefined ? {} : { tags: body.tags }),
          ...(body.password === undefined ? {} : { password: body.password }),
        }),
      );
      return c.json(userDocument(user), 200);
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: `${API}/users/{name}`,
      summary: 'Removes a user: their sessions and keys stop working at once.',
      request: { params: USER_NAME },
      responses: { 204: { description: 'removed' }, ...errors([404], true) },
    }),
    async (c) => {
      await accountChange(() =>
        accounts().removeUser(principal(c).actor, c.req.param('name') ?? ''),
      );
      return c.body(null, 204);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/keys`,
      summary: 'Every API key, or one user’s (never the keys themselves).',
      request: { query: z.object({ user: query('only this user’s') }) },
      responses: { 200: answer('the keys', ApiKeyListDocument), ...errors([404], true) },
    }),
    async (c) => {
      const name = c.req.query('user');
      const owner =
        name === undefined ? undefined : await accountChange(() => accounts().requireUser(name));
      const keys = await accounts().listKeys(owner?.id);
      return c.json({ keys: keys.map(apiKeyDocument) }, 200);
    },
  );

  app.openapi(
    route({
      method: 'post',
      path: `${API}/keys`,
      summary:
        'Makes an API key for a user, with a scope no wider than their role; the key is in this answer only.',
      request: { body: jsonBody(ApiKeyRequest) },
      responses: {
        201: answer('the key, shown once', ApiKeyCreatedDocument),
        ...errors([400, 404], true),
      },
    }),
    async (c) => {
      const body = parseBody(
        ApiKeyRequest,
        await readJson(c, '{"user": "…", "scope": "read", "name": "…"}'),
      );
      return makeKey(c, body.user ?? own(c).name, body);
    },
  );

  app.openapi(
    route({
      method: 'delete',
      path: `${API}/keys/{id}`,
      summary: 'Revokes an API key: it stops working at once.',
      request: { params: ID },
      responses: { 204: { description: 'revoked' }, ...errors([400, 404], true) },
    }),
    async (c) => {
      const id = optionalId(c.req.param('id'), 'key')!;
      await accountChange(() => accounts().revokeKey(principal(c).actor, id));
      return c.body(null, 204);
    },
  );

  app.openapi(
    route({
      method: 'get',
      path: `${API}/audit`,
      summary:
        'The audit log, newest first: who changed what (sites, intent, presets, recipients, acknowledgments, users, keys, backfills), when, from where, with the values before and after (secrets hidden).',
      request: {
        query: z.object({
          site: query('only this site’s (its id)'),
          actor: query('only this person’s (a user’s name, or web.token)'),
          limit: query('how many (1 to 500; 100)'),
          before: query('the last id of the previous page'),
        }),
      },
      responses: { 200: answer('the entries', AuditListDocument), ...errors([400], true) },
    }),
    async (c) => {
      const siteId = optionalId(c.req.query('site'), 'site');
      const before = optionalId(c.req.query('before'), 'before');
      const actor = c.req.query('actor');
      const limit = limitOf(c, 100);
      const entries = await accounts().listAudit({
        ...(siteId === undefined ? {} : { siteId }),
        ...(actor === undefined ? {} : { actor }),
        ...(before === undefined ? {} : { before }),
        limit: limit + 1,
      });
      const page = entries.slice(0, limit);
      const params = new URLSearchParams({
        ...(siteId === undefined ? {} : { site: String(siteId) }),
        ...(actor === undefined ? {} : { actor }),
        limit: String(limit),
      });
      const last = page[page.length - 1];
      if (last !== undefined) params.set('before', String(last.id));
      return c.json(
        {
          entries: page.map(auditEntryDocument),
          next: entries.length > limit ? `${API}/audit?${params.toString()}` : null,
        },
        200,
      );
    },
  );

  return app;
}
