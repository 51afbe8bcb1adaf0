/** Users, API keys, who is signed in, and the audit log, as the API answers them. */
import { z } from 'zod';
import { ROLES, SCOPES } from '../../policy/access-roles.js';
import type { ApiKeyRecord, AuditEntry, UserRecord } from '../records-accounts.js';
import { Id, list, Next, Timestamp } from './common.js';

export const UserDocument = z
  .object({
    id: Id,
    name: z.string(),
    role: z.enum(ROLES),
    tags: list(z.string()).meta({
      description: 'only the sites with one of these tags; empty: every site',
    }),
    password: z.boolean().meta({ description: 'signs in with a password' }),
    sso: z.boolean().meta({ description: 'signs in by single sign-on (OpenID Connect)' }),
    createdAt: Timestamp,
  })
  .meta({ id: 'User' });

export function userDocument(user: UserRecord): z.input<typeof UserDocument> {
  return {
    id: user.id,
    name: user.name,
    role: user.role,
    tags: user.tags,
    password: user.hasPassword,
    sso: user.oidc !== null,
    createdAt: user.createdAt.toISOString(),
  };
}

export const UserListDocument = z.object({ users: list(UserDocument) }).meta({ id: 'UserList' });

export const UserRequest = z
  .strictObject({
    name: z.string(),
    role: z.enum(ROLES),
    tags: z.array(z.string().max(100)).max(20).optional(),
    password: z.string().optional(),
  })
  .meta({ id: 'UserRequest' });

export const UserChangeRequest = z
  .strictObject({
    role: z.enum(ROLES).optional(),
    tags: z.array(z.string().max(100)).max(20).optional(),
    password: z.string().optional(),
  })
  .meta({ id: 'UserChangeRequest' });

export const ApiKeyDocument = z
  .object({
    id: Id,
    user: z.string(),
    name: z.string(),
    scope: z.enum(SCOPES),
    prefix: z.string().meta({ description: 'the key’s first characters, to tell keys apart' }),
    createdAt: Timestamp,
    expiresAt: Timestamp.nullable(),
    lastUsedAt: Timestamp.nullable(),
    revokedAt: Timestamp.nullable(),
  })
  .meta({ id: 'ApiKey' });

export function apiKeyDocument(key: ApiKeyRecord): z.input<typeof ApiKeyDocument> {
  return {
    id: key.id,
    user: key.user,
    name: key.name,
    scope: key.scope,
    prefix: key.prefix,
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}

export const ApiKeyListDocument = z
  .object({ keys: list(ApiKeyDocument) })
  .meta({ id: 'ApiKeyList' });

export const ApiKeyRequest = z
  .strictObject({
    user: z.string().optional().meta({ description: 'whose key (admins; default: yours)' }),
    scope: z.enum(SCOPES),
    name: z.string().max(100).optional(),
    expiresInDays: z.number().int().min(1).max(3650).optional(),
  })
  .meta({ id: 'ApiKeyRequest' });

export const ApiKeyCreatedDocument = ApiKeyDocument.extend({
  key: z.string().meta({ description: 'the key itself: shown this once, never again' }),
}).meta({ id: 'ApiKeyCreated' });

export const AccountDocument = z
  .object({
    name: z.string().meta({ description: 'the user, or web.token' }),
    role: z.enum(ROLES).nullable(),
    scope: z.enum(SCOPES),
    tags: list(z.string()),
    via: z.string().meta({ description: 'session, key, token or local' }),
  })
  .meta({ id: 'Account' });

export const AuditEntryDocument = z
  .object({
    id: Id,
    at: Timestamp,
    actor: z.string(),
    via: z.string(),
    address: z.string().nullable(),
    action: z.string(),
    site: Id.nullable(),
    origin: z.string().nullable(),
    target: z.string().nullable(),
    before: z.unknown(),
    after: z.unknown(),
  })
  .meta({ id: 'AuditEntry' });

export function auditEntryDocument(entry: AuditEntry): z.input<typeof AuditEntryDocument> {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor: entry.actor,
    via: entry.via,
    address: entry.address,
    action: entry.action,
    site: entry.siteId,
    origin: entry.origin,
    target: entry.target,
    before: entry.before,
    after: entry.after,
  };
}

export const AuditListDocument = z
  .object({ entries: list(AuditEntryDocument), next: Next })
  .meta({ id: 'AuditList' });
