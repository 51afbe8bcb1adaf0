import type { Config } from '../config/config.js';
import type { Profile } from '../robots/index.js';
import { isProfile } from '../robots/index.js';
import type { Database } from '../store/db.js';
import { managedSiteFacts } from '../store/export.js';

/**
 * The watched sites' origin, profile and rank: those added in the UI or API from their
 * rows (resolving 100,000 sites' settings would double an export's memory), then the
 * file's, which win for the origins they list.
 */
export async function watchedSites(
  db: Database,
  config: Config,
): Promise<Map<string, { origin: string; profile: Profile; rank?: number }>> {
  const sites = new Map<string, { origin: string; profile: Profile; rank?: number }>();
  for (const row of await managedSiteFacts(db))
    sites.set(row.origin, {
      origin: row.origin,
      profile: row.profile !== null && isProfile(row.profile) ? row.profile : 'google',
      ...(row.rank === null ? {} : { rank: row.rank }),
    });
  for (const site of config.sites)
    sites.set(site.origin, {
      origin: site.origin,
      profile: site.profile,
      ...(site.rank === undefined ? {} : { rank: site.rank }),
    });
  return sites;
}
