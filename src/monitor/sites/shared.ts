/**
 * The settings made in the UI that every site shares (presets, default channels), read
 * over the file's.
 */
import type { Config, SiteConfig } from '../../config/config.js';
import { ConfigError, withAlerts } from '../../config/config.js';
import { validation } from '../../config/validation.js';
import type { AlertTargets } from '../../config/notify.js';
import type { ChannelSettings } from '../../config/schema.js';
import type { SharedSettingsRows } from '../records.js';
import { SiteChangeRefused } from './entries.js';

/** The shared settings as read: valid ones, and a line for each stored value that is not. */
export interface Shared {
  readonly presets: ReadonlyMap<string, readonly string[]>;
  readonly channels: ChannelSettings;
  readonly problems: readonly string[];
}

export const NO_SHARED: Shared = {
  presets: new Map(),
  channels: { email: [], webhooks: [] },
  problems: [],
};

/** A file site with the running defaults where it uses the file's (its own lists stay). */
export function retarget(
  site: SiteConfig,
  fileDefaults: AlertTargets,
  defaults: AlertTargets,
): SiteConfig {
  if (fileDefaults === defaults) return site;
  const { alerts } = site;
  if (alerts === fileDefaults) return withAlerts(site, defaults);
  const email = alerts.email === fileDefaults.email ? defaults.email : alerts.email;
  const webhooks = alerts.webhooks === fileDefaults.webhooks ? defaults.webhooks : alerts.webhooks;
  if (email === alerts.email && webhooks === alerts.webhooks) return site;
  return withAlerts(site, { ...alerts, email, webhooks });
}

/** The stored presets and channels, checked: what is invalid is left out and said. */
export function readShared(rows: SharedSettingsRows, file: Config): Shared {
  const problems: string[] = [];
  const presets = new Map<string, readonly string[]>();
  if (rows.presets !== null && typeof rows.presets === 'object')
    for (const [name, agents] of Object.entries(rows.presets as Record<string, unknown>)) {
      try {
        presets.set(name, validation().parsePreset(file, name, { agents }));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems.push(`The preset ${name} made in the web is not used: ${error.message}`);
      }
    }
  let channels = NO_SHARED.channels;
  if (rows.channels !== null)
    try {
      channels = validation().parseChannels(file, rows.channels).settings;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(
        `The default recipients and webhooks made in the web are not used: ${error.message}`,
      );
    }
  return { presets, channels, problems };
}

/** A site added or changed in the UI or API is checked every 5 minutes at most. */
export function refuseFrequentSchedule(schedule: string | undefined): void {
  const problem =
    schedule === undefined ? undefined : validation().frequentScheduleProblem(schedule);
  if (problem !== undefined) throw new SiteChangeRefused('invalid', `schedule: ${problem}`);
}

/** Runs a validation; its ConfigError becomes a 400 with the same one line. */
export function refuseInvalid<T>(validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    if (error instanceof ConfigError) throw new SiteChangeRefused('invalid', error.message);
    throw error;
  }
}
