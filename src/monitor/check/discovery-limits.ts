/**
 * How far a sitemap discovery (sitemaps.ts) goes: apart from it, so that what wires a
 * check names its limits without loading the sitemap reader (a check whose sites read no
 * sitemaps never does).
 */
export interface DiscoveryLimits {
  /** URLs of the site kept at most (the rest are counted). */
  readonly maxUrls: number;
  /** Sitemap files fetched at most. */
  readonly maxFiles: number;
  /** How deep indexes are followed: 1 reads only the roots. */
  readonly maxDepth: number;
  /** One deadline for the whole discovery. */
  readonly timeoutMs: number;
}

export const DEFAULT_DISCOVERY_LIMITS: DiscoveryLimits = {
  maxUrls: 100_000,
  maxFiles: 1_000,
  maxDepth: 3,
  timeoutMs: 120_000,
};
