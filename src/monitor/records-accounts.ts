/**
 * Users, sessions, API keys and the audit log as records, and the port that keeps them
 * (store/accounts.ts implements it; monitor/accounts.ts uses it).
 */
import type { Role, Scope } from '../policy/access-roles.js';

export interface UserRecord {
  readonly id: number;
  readonly name: string;
  readonly role: Role;
  /** Only the sites with one of these tags; empty: every site. */
  readonly tags: readonly string[];
  readonly hasPassword: boolean;
  readonly oidc: { readonly issuer: string; readonly subject: string } | null;
  readonly createdAt: Date;
}

export interface ApiKeyRecord {
  readonly id: number;
  readonly userId: number;
  readonly user: string;
  readonly name: string;
  readonly scope: Scope;
  readonly prefix: string;
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

export interface SessionRecord {
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly method: string;
}

/** Who did something, as the audit log records them. */
export interface Actor {
  /** The user's name, `web.token`, or `robowatch` (a command run on this machine). */
  readonly name: string;
  readonly userId: number | null;
  readonly via: 'session' | 'key' | 'token' | 'local' | 'cli' | 'sso';
  readonly keyName?: string;
  readonly address: string | null;
}

export interface AuditInput {
  readonly action: string;
  readonly siteId?: number | null;
  readonly target?: string | null;
  readonly before?: unknown;
  readonly after?: unknown;
}

export interface AuditEntry {
  readonly id: number;
  readonly at: Date;
  readonly actor: string;
  readonly userId: number | null;
  readonly via: string;
  readonly address: string | null;
  readonly action: string;
  readonly siteId: number | null;
  readonly origin: string | null;
  readonly target: string | null;
  readonly before: unknown;
  readonly after: unknown;
}

export interface AuditQuery {
  readonly siteId?: number;
  readonly actor?: string;
  /** Only entries older than this id (paging, newest first). */
  readonly before?: number;
  readonly limit: number;
}

/** Where users, sessions, keys, sign-in attempts and the audit log are kept. */
export interface AccountStore {
  hasUsers(): Promise<boolean>;
  listUsers(): Promise<UserRecord[]>;
  findUser(name: string): Promise<(UserRecord & { passwordHash: string | null }) | undefined>;
  /** The user who signs in by single sign-on as this subject of this issuer. */
  findUserBySso(issuer: string, subject: string): Promise<UserRecord | undefined>;
  /** Adds a user; undefined when the name is taken. */
  addUser(
    user: {
      name: string;
      role: Role;
      tags: readonly string[];
      passwordHash: string | null;
      oidc?: { issuer: string; subject: string };
    },
    at: Date,
  ): Promise<UserRecord | undefined>;
  updateUser(
    id: number,
    change: { role?: Role; tags?: readonly string[]; passwordHash?: string | null },
  ): Promise<UserRecord | undefined>;
  removeUser(id: number): Promise<boolean>;
  createSession(session: {
    id: string;
    userId: number;
    at: Date;
    expiresAt: Date;
    method: string;
    address: string | null;
    userAgent: string | null;
  }): Promise<void>;
  /** The live session with this id (not expired at `now`) and its user. */
  findSession(
    id: string,
    now: Date,
  ): Promise<{ user: UserRecord; session: SessionRecord } | undefined>;
  deleteSession(id: string): Promise<void>;
  /** Signs a user out everywhere: how many sessions ended. */
  deleteSessions(userId: number): Promise<number>;
  createKey(key: {
    userId: number;
    name: string;
    scope: Scope;
    hash: string;
    prefix: string;
    at: Date;
    expiresAt: Date | null;
  }): Promise<ApiKeyRecord>;
  /** The usable key with this hash at `now` (not revoked, not expired), its use recorded. */
  useKey(hash: string, now: Date): Promise<{ user: UserRecord; key: ApiKeyRecord } | undefined>;
  listKeys(userId?: number): Promise<ApiKeyRecord[]>;
  revokeKey(id: number, at: Date): Promise<ApiKeyRecord | undefined>;
  recordSignIn(attempt: { name: string; address: string; ok: boolean; at: Date }): Promise<void>;
  /** Failed sign-ins since `since`: for the name from the address, from the address, for the name. */
  signInFailures(
    name: string,
    address: string,
    since: Date,
  ): Promise<{ pair: number; address: number; name: number }>;
  audit(actor: Actor, entry: AuditInput, at: Date): Promise<void>;
  listAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** Forgets entries before `before`, and sign-in attempts before `attemptsBefore`; how many entries. */
  pruneAudit(before: Date, attemptsBefore: Date): Promise<number>;
}

/** What a sign-in started: kept by the browser (a cookie) until the provider sends it back. */
export interface SsoPending {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

/** Who the provider says signed in. */
export interface SsoIdentity {
  readonly issuer: string;
  readonly subject: string;
  /** The ID token's claims, then the userinfo's (which add to them). */
  readonly claims: Readonly<Record<string, unknown>>;
}

export interface SsoClient {
  readonly label: string;
  /** The provider's authorization URL to send the browser to, and what to keep until it returns. */
  start(redirectUri: string): Promise<{ url: string; pending: SsoPending }>;
  /** The provider's answer (the callback URL as requested) checked and exchanged for who signed in. */
  finish(callback: URL, pending: SsoPending): Promise<SsoIdentity>;
}
