/**
 * Users, sessions, API keys, sign-in attempts and the audit log (monitor/accounts.ts
 * says what they are). Secrets are never stored: sessions and keys by their SHA-256,
 * passwords by their scrypt hash.
 */
import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type {
  AccountStore,
  Actor,
  ApiKeyRecord,
  AuditEntry,
  AuditInput,
  AuditQuery,
  UserRecord,
} from '../monitor/records-accounts.js';
import { isRole, isScope } from '../policy/access-roles.js';
import type { Database } from './db.js';
import { queryRows } from './db.js';
import { apiKeys, auditLog, sessions, signInAttempts, users } from './schema.js';

type UserRow = typeof users.$inferSelect;
type KeyRow = typeof apiKeys.$inferSelect;

function userOf(row: UserRow): UserRecord {
  return {
    id: row.id,
    name: row.name,
    // A role written by a later version reads as the least one.
    role: isRole(row.role) ? row.role : 'viewer',
    tags: row.tags,
    hasPassword: row.passwordHash !== null,
    oidc:
      row.oidcIssuer === null || row.oidcSubject === null
        ? null
        : { issuer: row.oidcIssuer, subject: row.oidcSubject },
    createdAt: row.createdAt,
  };
}

function keyOf(row: KeyRow, user: string): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.userId,
    user,
    name: row.name,
    scope: isScope(row.scope) ? row.scope : 'read',
    prefix: row.prefix,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  };
}

/** A session's or key's last use is written at most this often (not at every request). */
const TOUCH_MS = 60_000;

/** Secrets never reach the audit log: any key that names one has its value masked. */
const SECRET_KEY = /secret|password|token|routing_?key|smtp|authorization|key$/i;

export function maskSecrets(value: unknown, depth = 0): unknown {
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      SECRET_KEY.test(k) && (typeof v === 'string' || typeof v === 'number') && v !== ''
        ? '(hidden)'
        : maskSecrets(v, depth + 1),
    ]),
  );
}

/** URLs carry secrets too (a webhook's path, PagerDuty's key in the fragment, user:password@). */
export function maskUrlSecrets(text: string): string {
  return text.replace(/\bhttps?:\/\/[^\s"']+/gi, (url) => {
    if (!URL.canParse(url)) return url;
    const u = new URL(url);
    if (u.password !== '') u.password = 'hidden';
    if (u.hash !== '') u.hash = '#(hidden)';
    // Webhook URLs are secrets in their path (Slack, Discord, Teams): keep the host.
    if (u.pathname.length > 1 || u.search !== '') return `${u.origin}/(hidden)${u.hash}`;
    return u.toString();
  });
}

function masked(value: unknown): unknown {
  if (value === undefined) return null;
  const json = JSON.stringify(maskSecrets(value));
  return JSON.parse(maskUrlSecrets(json)) as unknown;
}

export function createAccountStore(db: Database): AccountStore {
  return {
    async hasUsers() {
      const rows = await db.select({ id: users.id }).from(users).limit(1);
      return rows.length > 0;
    },

    async listUsers() {
      return (await db.select().from(users).orderBy(users.name)).map(userOf);
    },

    async findUser(name) {
      const [row] = await db.select().from(users).where(eq(users.name, name));
      return row === undefined ? undefined : { ...userOf(row), passwordHash: row.passwordHash };
    },

    async findUserBySso(issuer, subject) {
      const [row] = await db
        .select()
        .from(users)
        .where(and(eq(users.oidcIssuer, issuer), eq(users.oidcSubject, subject)));
      return row === undefined ? undefined : userOf(row);
    },

    async addUser(user, at) {
      const [row] = await db
        .insert(users)
        .values({
          name: user.name,
          role: user.role,
          tags: [...user.tags],
          passwordHash: user.passwordHash,
          oidcIssuer: user.oidc?.issuer ?? null,
          oidcSubject: user.oidc?.subject ?? null,
          createdAt: at,
        })
        .onConflictDoNothing()
        .returning();
      return row === undefined ? undefined : userOf(row);
    },

    async updateUser(id, change) {
      const [row] = await db
        .update(users)
        .set({
          ...(change.role === undefined ? {} : { role: change.role }),
          ...(change.tags === undefined ? {} : { tags: [...change.tags] }),
          ...(change.passwordHash === undefined ? {} : { passwordHash: change.passwordHash }),
        })
        .where(eq(users.id, id))
        .returning();
      return row === undefined ? undefined : userOf(row);
    },

    async removeUser(id) {
      const rows = await db.delete(users).where(eq(users.id, id)).returning({ id: users.id });
      return rows.length > 0;
    },

    async createSession(session) {
      await db.insert(sessions).values({
        id: session.id,
        userId: session.userId,
        createdAt: session.at,
        expiresAt: session.expiresAt,
        lastSeenAt: session.at,
        method: session.method,
        address: session.address,
        userAgent: session.userAgent,
      });
    },

    async findSession(id, now) {
      const [row] = await db
        .select()
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.id, id), gt(sessions.expiresAt, now)));
      if (row === undefined) return undefined;
      if (now.getTime() - row.sessions.lastSeenAt.getTime() > TOUCH_MS)
        await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, id));
      return {
        user: userOf(row.users),
        session: {
          createdAt: row.sessions.createdAt,
          expiresAt: row.sessions.expiresAt,
          method: row.sessions.method,
        },
      };
    },

    async deleteSession(id) {
      await db.delete(sessions).where(eq(sessions.id, id));
    },

    async deleteSessions(userId) {
      const rows = await db
        .delete(sessions)
        .where(eq(sessions.userId, userId))
        .returning({ id: sessions.id });
      return rows.length;
    },

    async createKey(key) {
      const [row] = await db
        .insert(apiKeys)
        .values({
          userId: key.userId,
          name: key.name,
          scope: key.scope,
          hash: key.hash,
          prefix: key.prefix,
          createdAt: key.at,
          expiresAt: key.expiresAt,
        })
        .returning();
      const [owner] = await db
        .select({ name: users.name })
        .from(users)
        .where(eq(users.id, key.userId));
      return keyOf(row!, owner?.name ?? '');
    },

    async useKey(hash, now) {
      const [row] = await db
        .select()
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.userId))
        .where(
          and(
            eq(apiKeys.hash, hash),
            isNull(apiKeys.revokedAt),
            or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
          ),
        );
      if (row === undefined) return undefined;
      const last = row.api_keys.lastUsedAt;
      if (last === null || now.getTime() - last.getTime() > TOUCH_MS)
        await db.update(apiKeys).set({ lastUsedAt: now }).where(eq(apiKeys.id, row.api_keys.id));
      return { user: userOf(row.users), key: keyOf(row.api_keys, row.users.name) };
    },

    async listKeys(userId) {
      const rows = await db
        .select()
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.userId))
        .where(userId === undefined ? undefined : eq(apiKeys.userId, userId))
        .orderBy(users.name, apiKeys.id);
      return rows.map((r) => keyOf(r.api_keys, r.users.name));
    },

    async revokeKey(id, at) {
      const [row] = await db
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .returning();
      if (row === undefined) return undefined;
      const [owner] = await db
        .select({ name: users.name })
        .from(users)
        .where(eq(users.id, row.userId));
      return keyOf(row, owner?.name ?? '');
    },

    async recordSignIn(attempt) {
      await db.insert(signInAttempts).values({
        at: attempt.at,
        name: attempt.name.slice(0, 200),
        address: attempt.address,
        ok: attempt.ok,
      });
    },

    async signInFailures(name, address, since) {
      const [row] = await queryRows<{ pair: number; address: number; name: number }>(
        db,
        sql`SELECT
            count(*) FILTER (WHERE name = ${name} AND address = ${address})::int AS pair,
            count(*) FILTER (WHERE address = ${address})::int AS address,
            count(*) FILTER (WHERE name = ${name})::int AS name
          FROM sign_in_attempts
          WHERE NOT ok AND at >= ${since.toISOString()}::timestamptz
            AND (name = ${name} OR address = ${address})`,
      );
      return row ?? { pair: 0, address: 0, name: 0 };
    },

    async audit(actor: Actor, entry: AuditInput, at: Date) {
      await db.insert(auditLog).values({
        at,
        actor: actor.name,
        userId: actor.userId,
        via: actor.keyName === undefined ? actor.via : `${actor.via}: ${actor.keyName}`,
        address: actor.address,
        action: entry.action,
        siteId: entry.siteId ?? null,
        target: entry.target ?? null,
        before: masked(entry.before),
        after: masked(entry.after),
      });
    },

    async listAudit(query: AuditQuery): Promise<AuditEntry[]> {
      const rows = await queryRows<{
        id: string | number;
        at: string | Date;
        actor: string;
        user_id: number | null;
        via: string;
        address: string | null;
        action: string;
        site_id: number | null;
        origin: string | null;
        target: string | null;
        before: unknown;
        after: unknown;
      }>(
        db,
        sql`SELECT a.*, s.origin FROM audit_log a LEFT JOIN sites s ON s.id = a.site_id
          WHERE true
          ${query.siteId === undefined ? sql`` : sql`AND a.site_id = ${query.siteId}`}
          ${query.actor === undefined ? sql`` : sql`AND a.actor = ${query.actor}`}
          ${query.before === undefined ? sql`` : sql`AND a.id < ${query.before}`}
          ORDER BY a.id DESC LIMIT ${query.limit}`,
      );
      return rows.map((r) => ({
        id: Number(r.id),
        at: new Date(r.at),
        actor: r.actor,
        userId: r.user_id,
        via: r.via,
        address: r.address,
        action: r.action,
        siteId: r.site_id,
        origin: r.origin,
        target: r.target,
        before: r.before,
        after: r.after,
      }));
    },

    async pruneAudit(before, attemptsBefore) {
      // Sign-in attempts matter for the throttle's window only.
      await db.delete(signInAttempts).where(lt(signInAttempts.at, attemptsBefore));
      const rows = await db
        .delete(auditLog)
        .where(lt(auditLog.at, before))
        .returning({ id: auditLog.id });
      return rows.length;
    },
  };
}
