/**
 * Who may do what (DESIGN.md: "user", "scope"). Pure. A user has a role; an API key has
 * a scope; a request carries the lesser of its key's scope and its user's role. The three
 * scopes are ordered: `read` sees everything it may see, `write` also changes sites,
 * intent, presets and incidents, `admin` also users, keys, recipients and settings.
 */
import { clip } from './wording/format.js';

export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = ['read', 'write', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What each role may do. */
export const ROLE_SCOPE: Readonly<Record<Role, Scope>> = {
  viewer: 'read',
  editor: 'write',
  admin: 'admin',
};

/** Whether `held` allows what `needed` asks. */
export function allows(held: Scope | null, needed: Scope): boolean {
  return held !== null && SCOPES.indexOf(held) >= SCOPES.indexOf(needed);
}

/** The lesser of two scopes (a key never grants more than its user's role). */
export function lesser(a: Scope, b: Scope): Scope {
  return SCOPES.indexOf(a) <= SCOPES.indexOf(b) ? a : b;
}

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** A user's name: what they sign in with, and how the audit log names them. */
export const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,99}$/;

/** Why a name cannot be a user's, or null when it can. */
export function userNameProblem(name: string): string | null {
  return USER_NAME.test(name)
    ? null
    : `"${clip(name, 40)}" is not a user name: 1 to 100 letters, digits and . _ @ + -, starting with a letter or digit`;
}

/** The fewest characters a password may have (NIST SP 800-63B: at least 8; we ask more). */
export const MIN_PASSWORD_CHARS = 12;
/** The most: a longer one is a mistake, or an attempt to make hashing slow. */
export const MAX_PASSWORD_CHARS = 256;

/** Why a password cannot be used, or null when it can. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_CHARS)
    return `the password is too short: at least ${MIN_PASSWORD_CHARS} characters`;
  if (password.length > MAX_PASSWORD_CHARS)
    return `the password is too long: at most ${MAX_PASSWORD_CHARS} characters`;
  return null;
}

/** A site's tag, as the configuration allows it. */
const TAG = /^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,39}$/u;
/** The most tags a user may be limited to (as many as a site may carry). */
export const MAX_USER_TAGS = 20;

/**
 * Why a user cannot be limited to these tags, or null when they can. Admins manage
 * people, keys and recipients for every site: only viewers and editors are limited.
 */
export function tagsProblem(role: Role, tags: readonly string[]): string | null {
  const bad = tags.find((t) => !TAG.test(t));
  if (bad !== undefined)
    return `"${bad.slice(0, 40)}" is not a tag: letters, digits, "-", "_" or "." (at most 40)`;
  if (tags.length > MAX_USER_TAGS) return `a user may be limited to at most ${MAX_USER_TAGS} tags`;
  if (tags.length > 0 && role === 'admin')
    return 'an admin manages people, keys and recipients of every site and cannot be limited to tags: limit a viewer or an editor';
  return null;
}

/**
 * Whether someone limited to `limit` (empty: every site) sees a site with these tags:
 * when the site has at least one of them.
 */
export function seesSite(limit: readonly string[], siteTags: readonly string[]): boolean {
  return limit.length === 0 || siteTags.some((t) => limit.includes(t));
}

/** Which groups give which role, and which groups limit people to which tags (web.sso). */
export interface SsoMapping {
  /** Per role, the groups that give it; `*` gives it to anyone the provider signs in. */
  readonly roles: Readonly<Record<Role, readonly string[]>>;
  /** Per group, the tags of the sites its members see (admins see every site). */
  readonly tags: Readonly<Record<string, readonly string[]>>;
}

/**
 * What someone signed in by single sign-on may do, from their groups: the highest role a
 * group of theirs gives, limited to the tags their groups give (none: every site); null
 * when no group of theirs gives a role.
 */
export function ssoAccess(
  groups: readonly string[],
  mapping: SsoMapping,
): { role: Role; tags: string[] } | null {
  const role = [...ROLES]
    .reverse()
    .find((r) => mapping.roles[r].some((g) => g === '*' || groups.includes(g)));
  if (role === undefined) return null;
  if (role === 'admin') return { role, tags: [] };
  const tags = [...new Set(groups.flatMap((g) => mapping.tags[g] ?? []))].sort();
  return { role, tags };
}
