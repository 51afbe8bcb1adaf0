/**
 * The watched sites, presets and default channels as the catalog gives them, and why a
 * change is refused.
 */
import type { SiteConfig } from '../../config/config.js';
import type { AlertTargets } from '../../config/notify.js';
import type { ChannelSettings } from '../../config/schema.js';

/** A crawler preset, and where it is defined. */
export interface PresetEntry {
  /** "@search". */
  readonly name: string;
  readonly agents: readonly string[];
  /** `built-in` (@search, @ai), `file` (the configuration file's), `api` (made in the UI or API). */
  readonly source: 'built-in' | 'file' | 'api';
  /** Made in the UI or API, and now defined by the file too: the file's applies. */
  readonly overridden: boolean;
  /** The sites added in the UI or API whose crawlers name it. */
  readonly usedBy: readonly number[];
}

/** The default recipients and webhooks: the file's, and those made in the UI or API. */
export interface DefaultChannels {
  readonly file: Pick<AlertTargets, 'email' | 'webhooks'>;
  /** As stored (a webhook's secret included). */
  readonly added: ChannelSettings;
}

export interface CatalogEntry {
  readonly id: number;
  readonly site: SiteConfig;
  /** Paused (not checked) since then; null: checked on its schedule. */
  readonly pausedAt: Date | null;
  /** The settings of a site added in the UI or API, as stored; null for the file's. */
  readonly settings: Record<string, unknown> | null;
}

/**
 * A change to the sites that cannot be made, and why: the request is invalid, names a
 * site or preset there is not, or conflicts with what is there (the file's, built in,
 * in use, already watched).
 */
export class SiteChangeRefused extends Error {
  constructor(
    readonly why: 'invalid' | 'unknown' | 'conflict',
    message: string,
  ) {
    super(message);
    this.name = 'SiteChangeRefused';
  }
}

/** What a reload of the configuration file changed among the sites. */
export interface ReloadSummary {
  readonly sites: number;
  readonly added: readonly string[];
  readonly removed: readonly string[];
}
