/**
 * What the pages and the API record in the audit log when a person or key changes
 * something: who (the request's principal), what, on which site, before and after. The
 * store hides secrets (webhook URLs, keys, passwords) before anything is written.
 */
import type { Context } from 'hono';
import type { Actor, AuditInput } from '../monitor/accounts.js';
import type { CatalogEntry } from '../monitor/sites/entries.js';
import type { WebEnv } from './auth.js';
import { principal } from './auth.js';
import type { WebDeps } from './deps.js';

/** Who the request is, as the audit log names them. */
export function actorOf(c: Context<WebEnv>): Actor {
  return principal(c).actor;
}

/** Records one change; without accounts (no database of them) nothing is kept. */
export async function audited(
  deps: Pick<WebDeps, 'accounts'>,
  actor: Actor,
  entry: AuditInput,
): Promise<void> {
  await deps.accounts?.audit(actor, entry);
}

/** A site as the audit log keeps it: its settings (the file's sites have none here) and pause. */
export function siteRecord(entry: CatalogEntry | undefined): Record<string, unknown> | null {
  if (entry === undefined) return null;
  return {
    origin: entry.site.origin,
    managedBy: entry.site.managedBy,
    ...(entry.settings === null ? {} : { settings: entry.settings }),
    paused: entry.pausedAt !== null,
  };
}

/** The sites a list added (each line added is a site.add of its own). */
export async function auditedList(
  deps: Pick<WebDeps, 'accounts'>,
  actor: Actor,
  results: readonly {
    readonly outcome: string;
    readonly origin: string;
    readonly id?: number | undefined;
  }[],
): Promise<void> {
  for (const r of results)
    if (r.outcome === 'added')
      await audited(deps, actor, {
        action: 'site.add',
        siteId: r.id ?? null,
        target: r.origin,
        after: { origin: r.origin, from: 'a list' },
      });
}
