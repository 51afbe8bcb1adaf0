/**
 * The scope each route needs, said once for every page, form and API route: reading
 * needs `read`; changing sites, intent, presets, incidents, backfills and checks needs
 * `write`; users, keys, recipients, the audit log and sending digests need `admin`. A
 * few forms only read (testing a draft) or act on the user's own account; recipients are
 * read by all and changed by admins. The OpenAPI
 * document states each API route's scope from here (`x-robowatch-scope`).
 */
import type { Scope } from '../policy/access-roles.js';

/** Needs no credentials: signing in, its stylesheet, the probe's liveness answer. */
const OPEN = [/^\/login(\/oidc(\/callback)?)?$/, /^\/static\/style\.css$/, /^\/healthz$/];

/** Only for admins, whatever the method: people, keys, the audit log. */
const ADMIN = [/^(\/api\/v1)?\/(users|keys|audit)(\/|$)/];

/** Read by anyone who reads; changed (or sent) by admins only: recipients, digests sent now. */
const ADMIN_CHANGES = [/^(\/api\/v1)?\/notifications(\/|$)/, /^(\/api\/v1)?\/digests\/send$/];

/** Pages that are forms to change sites: shown to those who may change them. */
const WRITE_FORMS = [/^\/sites\/(new|bulk)$/, /^\/sites\/\d+\/(edit|remove)$/];

/** Forms and calls that change nothing shared: any signed-in person may. */
const READ_POSTS = [
  /^\/tester$/,
  /^\/api\/v1\/test$/,
  /^\/logout$/,
  /^(\/api\/v1)?\/account(\/|$)/,
];

/**
 * What acts on, or counts, every site at once: refused to a person limited to some tags
 * (Prometheus's counts of every site; crawler presets, which any site may name).
 */
const EVERY_SITE_READS = [/^\/metrics$/];
const EVERY_SITE_CHANGES = [/^(\/api\/v1)?\/presets(\/|$)/, /^\/crawlers\/presets(\/|$)/];

/** Whether a request reaches every site at once (refused to a person limited to tags). */
export function reachesEverySite(method: string, path: string): boolean {
  if (EVERY_SITE_READS.some((p) => p.test(path))) return true;
  const reads = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  return !reads && EVERY_SITE_CHANGES.some((p) => p.test(path));
}

/** The scope a request needs; null: none (open to anyone). */
export function requiredScope(method: string, path: string): Scope | null {
  if (OPEN.some((p) => p.test(path))) return null;
  if (ADMIN.some((p) => p.test(path))) return 'admin';
  const reads = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
  if (reads) return WRITE_FORMS.some((p) => p.test(path)) ? 'write' : 'read';
  if (ADMIN_CHANGES.some((p) => p.test(path))) return 'admin';
  if (READ_POSTS.some((p) => p.test(path))) return 'read';
  return 'write';
}

/** What a scope lets a person do, in words, for refusals. */
export const SCOPE_WORDS: Readonly<Record<Scope, string>> = {
  read: 'read',
  write: 'change sites, intent, presets and incidents (an editor’s or admin’s)',
  admin: 'manage users, keys, recipients and the audit log (an admin’s)',
};
