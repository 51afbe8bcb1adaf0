/**
 * Users, their sessions and API keys, sign-in and its throttle, and the audit of what
 * people change (DESIGN.md: "user", "scope", "audit log"). The store keeps them
 * (store/accounts.ts); the web and the command line act through this module, so that a
 * user added by `robowatch users add` and one added on the Users page are the same thing,
 * audited the same way.
 */
import { createHash, randomBytes } from 'node:crypto';
import { hashPassword, NO_PASSWORD, verifyPassword } from '../lib/passwords.js';
import { UsageError } from '../lib/errors.js';
import { unstorableText } from '../config/text.js';
import { clip, hasControls } from '../policy/wording/format.js';
import {
  allows,
  isRole,
  isScope,
  lesser,
  passwordProblem,
  ROLE_SCOPE,
  ROLES,
  SCOPES,
  ssoAccess,
  tagsProblem,
  USER_NAME,
  userNameProblem,
} from '../policy/access-roles.js';
import type { Role, Scope, SsoMapping } from '../policy/access-roles.js';
import type {
  AccountStore,
  Actor,
  ApiKeyRecord,
  AuditEntry,
  AuditInput,
  AuditQuery,
  UserRecord,
} from './records-accounts.js';

export type * from './records-accounts.js';

/** How long a browser stays signed in. */
export const SESSION_DAYS = 30;

/** Sign-in throttle: failures within the window that refuse further attempts. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_LIMITS = { pair: 5, address: 20, name: 100 } as const;

/** An API key as shown once: `rwk_` and 43 characters. */
const KEY_PREFIX = 'rwk_';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** What a request is allowed, once its credentials are known. */
export interface Principal {
  readonly actor: Actor;
  readonly scope: Scope;
  /** Only the sites with one of these tags; empty: every site. */
  readonly tags: readonly string[];
  /** The signed-in user (absent for web.token and the daemon's own commands). */
  readonly user?: UserRecord;
}

export class SignInRefused extends Error {
  constructor(
    message: string,
    readonly status: 401 | 403 | 429,
  ) {
    super(message);
  }
}

/** Users, keys and sessions, and the audit of their changes. */
export class Accounts {
  constructor(
    private readonly store: AccountStore,
    private readonly now: () => Date,
  ) {}

  /** Once a user exists, robowatch is guarded for good: no query per request after that. */
  #guarded = false;

  /** Whether any user exists (asked on each request until one does). */
  async hasUsers(): Promise<boolean> {
    if (!this.#guarded) this.#guarded = await this.store.hasUsers();
    return this.#guarded;
  }

  listUsers(): Promise<UserRecord[]> {
    return this.store.listUsers();
  }

  /** A user by name, or a usage error that names it. */
  async requireUser(name: string): Promise<UserRecord> {
    const user = await this.store.findUser(name);
    if (user === undefined) throw new UsageError(`there is no user "${name}"`);
    const { passwordHash: _hash, ...record } = user;
    return record;
  }

  async addUser(
    actor: Actor,
    input: {
      name: string;
      role: string;
      tags?: readonly string[];
      password?: string | undefined;
      oidc?: { issuer: string; subject: string };
    },
  ): Promise<UserRecord> {
    const problem = userNameProblem(input.name);
    if (problem !== null) throw new UsageError(problem);
    const role = roleOf(input.role);
    const tags = tagsOf(input.tags ?? []);
    const limited = tagsProblem(role, tags);
    if (limited !== null) throw new UsageError(limited);
    if (input.password !== undefined) {
      const bad = passwordProblem(input.password);
      if (bad !== null) throw new UsageError(bad);
    }
    const user = await this.store.addUser(
      {
        name: input.name,
        role,
        tags,
        passwordHash: input.password === undefined ? null : await hashPassword(input.password),
        ...(input.oidc === undefined ? {} : { oidc: input.oidc }),
      },
      this.now(),
    );
    if (user === undefined) throw new UsageError(`there is already a user "${input.name}"`);
    await this.store.audit(
      actor,
      { action: 'user.add', target: user.name, after: { role: user.role, tags: user.tags } },
      this.now(),
    );
    return user;
  }

  async updateUser(
    actor: Actor,
    name: string,
    change: { role?: string; tags?: readonly string[]; password?: string },
  ): Promise<UserRecord> {
    const before = await this.requireUser(name);
    const tags = change.tags === undefined ? before.tags : tagsOf(change.tags);
    const limited = tagsProblem(
      change.role === undefined ? before.role : roleOf(change.role),
      tags,
    );
    if (limited !== null) throw new UsageError(limited);
    if (change.password !== undefined) {
      const bad = passwordProblem(change.password);
      if (bad !== null) throw new UsageError(bad);
    }
    const after = await this.store.updateUser(before.id, {
      ...(change.role === undefined ? {} : { role: roleOf(change.role) }),
      ...(change.tags === undefined ? {} : { tags }),
      ...(change.password === undefined
        ? {}
        : { passwordHash: await hashPassword(change.password) }),
    });
    if (after === undefined) throw new UsageError(`there is no user "${name}"`);
    await this.store.audit(
      actor,
      {
        action: 'user.edit',
        target: name,
        before: { role: before.role, tags: before.tags },
        after: {
          role: after.role,
          tags: after.tags,
          ...(change.password === undefined ? {} : { password: '(changed)' }),
        },
      },
      this.now(),
    );
    // A new password, or fewer rights: the sessions opened before end now.
    if (change.password !== undefined || !allows(ROLE_SCOPE[after.role], ROLE_SCOPE[before.role]))
      await this.store.deleteSessions(after.id);
    return after;
  }

  /**
   * A user changes their own password, giving the current one: every session ends, and a
   * new one is opened for the browser that asked (its secret).
   */
  async changeOwnPassword(
    actor: Actor,
    name: string,
    current: string,
    password: string,
    from: { address: string; userAgent: string | null },
  ): Promise<string> {
    const user = await this.store.findUser(name);
    if (
      user === undefined ||
      user.passwordHash === null ||
      current.length > 256 ||
      !(await verifyPassword(current, user.passwordHash))
    )
      throw new UsageError('the current password is not right');
    const updated = await this.updateUser(actor, name, { password });
    return this.openSession(updated, 'password', from);
  }

  async removeUser(actor: Actor, name: string): Promise<void> {
    const user = await this.requireUser(name);
    await this.store.removeUser(user.id);
    await this.store.audit(
      actor,
      { action: 'user.remove', target: name, before: { role: user.role, tags: user.tags } },
      this.now(),
    );
  }

  /**
   * Checks a name and password from `address`, slowed down by the throttle; a new
   * session's secret (for the cookie) when they match.
   */
  async signIn(
    name: string,
    password: string,
    from: { address: string; userAgent: string | null },
  ): Promise<{ secret: string; user: UserRecord }> {
    const now = this.now();
    // A name no user can have (a NUL the database refuses, a megabyte) fails as a wrong
    // password does, after the same work; its tries are counted under a short, escaped
    // form of it, so that guessing with it is throttled and nothing unstorable is kept.
    const possible = USER_NAME.test(name);
    if (!possible) name = `(not a user name) ${JSON.stringify(name.slice(0, 40))}`;
    const failures = await this.store.signInFailures(
      name,
      from.address,
      new Date(now.getTime() - SIGN_IN_WINDOW_MS),
    );
    if (
      failures.pair >= SIGN_IN_LIMITS.pair ||
      failures.address >= SIGN_IN_LIMITS.address ||
      failures.name >= SIGN_IN_LIMITS.name
    ) {
      await this.store.recordSignIn({ name, address: from.address, ok: false, at: now });
      throw new SignInRefused(
        `too many failed sign-ins for "${name.slice(0, 100)}" from this address: wait ${SIGN_IN_WINDOW_MS / 60_000} minutes and try again`,
        429,
      );
    }
    const user = possible ? await this.store.findUser(name) : undefined;
    // The same work whether or not the name exists: the answer's time tells nothing.
    const ok =
      password.length <= 256 && (await verifyPassword(password, user?.passwordHash ?? NO_PASSWORD));
    await this.store.recordSignIn({ name, address: from.address, ok, at: now });
    if (user === undefined || !ok)
      throw new SignInRefused('that name and password do not match a user', 401);
    const { passwordHash: _hash, ...record } = user;
    const secret = await this.openSession(record, 'password', from);
    return { secret, user: record };
  }

  /**
   * Signs in someone the single sign-on provider vouched for: the user of that provider's
   * subject, made at the first sign-in (named by `nameClaim`, else their email, else the
   * subject) and given, at each sign-in, the role and tags their groups give now. Refused
   * (403) when no group of theirs gives a role, or when their name is another user's.
   */
  async signInBySso(
    identity: {
      readonly issuer: string;
      readonly subject: string;
      readonly claims: Readonly<Record<string, unknown>>;
    },
    sso: SsoMapping & { readonly nameClaim: string; readonly groupsClaim: string },
    from: { address: string; userAgent: string | null },
  ): Promise<{ secret: string; user: UserRecord }> {
    const { claims } = identity;
    // The subject is kept to know the person again: one the database cannot keep (a NUL)
    // would fail the sign-in with a server error instead of saying what is wrong.
    const unkeepable = unstorableText(identity.subject);
    if (unkeepable !== undefined)
      throw new SignInRefused(
        `the single sign-on provider gave a subject (sub) robowatch cannot keep: it ${unkeepable}`,
        403,
      );
    const groupClaim = claims[sso.groupsClaim];
    const groups = (Array.isArray(groupClaim) ? groupClaim : [groupClaim]).filter(
      (g): g is string => typeof g === 'string',
    );
    const access = ssoAccess(groups, sso);
    const actor: Actor = {
      name: 'single sign-on',
      userId: null,
      via: 'sso',
      address: from.address,
    };
    let user = await this.store.findUserBySso(identity.issuer, identity.subject);
    const name = [claims[sso.nameClaim], claims['email'], identity.subject].find(
      (n): n is string => typeof n === 'string' && userNameProblem(n) === null,
    );
    if (access === null) {
      if (user !== undefined) await this.store.deleteSessions(user.id);
      throw new SignInRefused(
        `${user?.name ?? name ?? 'this person'} may not use robowatch: none of their groups (${sso.groupsClaim}: ${groups.join(', ').slice(0, 200) || 'none'}) is given a role in web.sso.roles`,
        403,
      );
    }
    if (user === undefined) {
      if (name === undefined)
        throw new SignInRefused(
          `the single sign-on provider gave no name robowatch can use (${sso.nameClaim}, email or the subject: letters, digits and . _ @ + -)`,
          403,
        );
      user = await this.store.addUser(
        { name, role: access.role, tags: access.tags, passwordHash: null, oidc: identity },
        this.now(),
      );
      if (user === undefined)
        throw new SignInRefused(
          `there is already a user "${name}" who signs in another way: an admin must remove that user first`,
          403,
        );
      await this.store.audit(
        actor,
        {
          action: 'user.add',
          target: name,
          after: { role: user.role, tags: user.tags, sso: identity.issuer },
        },
        this.now(),
      );
    } else if (user.role !== access.role || user.tags.join(',') !== access.tags.join(',')) {
      const before = user;
      user = (await this.store.updateUser(user.id, { role: access.role, tags: access.tags }))!;
      await this.store.audit(
        actor,
        {
          action: 'user.edit',
          target: user.name,
          before: { role: before.role, tags: before.tags },
          after: { role: user.role, tags: user.tags },
        },
        this.now(),
      );
    }
    const secret = await this.openSession(user, 'oidc', from);
    return { secret, user };
  }

  /** A new session for a user (signed in by password or single sign-on): its secret. */
  async openSession(
    user: UserRecord,
    method: 'password' | 'oidc',
    from: { address: string; userAgent: string | null },
  ): Promise<string> {
    const secret = randomBytes(32).toString('base64url');
    const at = this.now();
    await this.store.createSession({
      id: sha256(secret),
      userId: user.id,
      at,
      expiresAt: new Date(at.getTime() + SESSION_DAYS * 86_400_000),
      method,
      address: from.address,
      userAgent: from.userAgent?.slice(0, 300) ?? null,
    });
    return secret;
  }

  /** Who a session cookie's secret signs in, if it is a live session. */
  async session(secret: string, address: string | null): Promise<Principal | undefined> {
    if (secret.length > 100) return undefined;
    const found = await this.store.findSession(sha256(secret), this.now());
    if (found === undefined) return undefined;
    const { user } = found;
    return {
      actor: { name: user.name, userId: user.id, via: 'session', address },
      scope: ROLE_SCOPE[user.role],
      tags: user.tags,
      user,
    };
  }

  async signOut(secret: string): Promise<void> {
    if (secret.length <= 100) await this.store.deleteSession(sha256(secret));
  }

  /** Ends every session of a user ("sign out everywhere"): how many. */
  async signOutEverywhere(actor: Actor, name: string): Promise<number> {
    const user = await this.requireUser(name);
    const ended = await this.store.deleteSessions(user.id);
    await this.store.audit(
      actor,
      { action: 'user.sign-out-everywhere', target: name, after: { sessions: ended } },
      this.now(),
    );
    return ended;
  }

  /** Who an API key signs in, if it is usable now. */
  async key(key: string, address: string | null): Promise<Principal | undefined> {
    if (!key.startsWith(KEY_PREFIX) || key.length > 100) return undefined;
    const found = await this.store.useKey(sha256(key), this.now());
    if (found === undefined) return undefined;
    const { user } = found;
    return {
      actor: { name: user.name, userId: user.id, via: 'key', keyName: found.key.name, address },
      // A key never grants more than its user's role, even one lowered since.
      scope: lesser(found.key.scope, ROLE_SCOPE[user.role]),
      tags: user.tags,
      user,
    };
  }

  /** Makes an API key for a user: the key, shown once, and its record. */
  async createKey(
    actor: Actor,
    input: { user: string; scope: string; name?: string; expiresInMs?: number | null },
  ): Promise<{ key: string; record: ApiKeyRecord }> {
    const user = await this.requireUser(input.user);
    if (!isScope(input.scope))
      throw new UsageError(`the scope must be one of ${SCOPES.join(', ')}, not "${input.scope}"`);
    if (!allows(ROLE_SCOPE[user.role], input.scope))
      throw new UsageError(
        `${user.name} is ${article(user.role)} ${user.role}: a key of theirs can have at most the ${ROLE_SCOPE[user.role]} scope`,
      );
    const name = (input.name ?? '').trim() || `${input.scope} key`;
    // Shown in lists and terminals and stored: text, not control characters, and whole.
    if (name.length > 100 || hasControls(name) || unstorableText(name) !== undefined)
      throw new UsageError(
        `a key's name is at most 100 characters, with no control characters: not ${JSON.stringify(clip(name, 40))}`,
      );
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const at = this.now();
    const record = await this.store.createKey({
      userId: user.id,
      name,
      scope: input.scope,
      hash: sha256(key),
      prefix: key.slice(0, KEY_PREFIX.length + 8),
      at,
      expiresAt:
        input.expiresInMs === undefined || input.expiresInMs === null
          ? null
          : new Date(at.getTime() + input.expiresInMs),
    });
    await this.store.audit(
      actor,
      {
        action: 'key.create',
        target: `${user.name}: ${name}`,
        after: { scope: record.scope, prefix: record.prefix, expiresAt: record.expiresAt },
      },
      at,
    );
    return { key, record };
  }

  listKeys(userId?: number): Promise<ApiKeyRecord[]> {
    return this.store.listKeys(userId);
  }

  async revokeKey(actor: Actor, id: number, owner?: number): Promise<ApiKeyRecord> {
    const keys = await this.store.listKeys(owner);
    const key = keys.find((k) => k.id === id);
    if (key === undefined) throw new UsageError(`there is no API key ${id}`);
    const revoked = await this.store.revokeKey(id, this.now());
    await this.store.audit(
      actor,
      {
        action: 'key.revoke',
        target: `${key.user}: ${key.name}`,
        before: { scope: key.scope, prefix: key.prefix },
      },
      this.now(),
    );
    return revoked ?? key;
  }

  audit(actor: Actor, entry: AuditInput): Promise<void> {
    return this.store.audit(actor, entry, this.now());
  }

  listAudit(query: AuditQuery): Promise<AuditEntry[]> {
    return this.store.listAudit(query);
  }
}

function roleOf(value: string): Role {
  if (!isRole(value))
    throw new UsageError(`the role must be one of ${ROLES.join(', ')}, not "${value}"`);
  return value;
}

/** Tags as given (a list from a comma-separated flag or a form): trimmed, once each. */
function tagsOf(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter(Boolean))];
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');
