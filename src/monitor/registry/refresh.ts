/**
 * Keeping the AI crawler registry current: fetching it from `registry.url` (the same
 * fetcher as robots.txt: its limits, its address guard), recording each version that
 * differs, and saying for each site what the update means there (a registry cause,
 * alerted under `registry_changed`, and kept for the digest).
 */
import type { Config, SiteConfig } from '../../config/config.js';
import { readRegistry } from '../../config/registry.js';
import { oneLine } from '../../lib/errors.js';
import { routeAlerts } from '../../policy/alerts.js';
import type { DocumentRequest, DocumentResult } from '../../policy/fetch-result.js';
import { registryCause } from '../../policy/registry-update.js';
import type { ActiveRegistry, RegistryVersion } from '../../policy/registry.js';
import { ParseCache } from '../../policy/verdicts.js';
import type {
  RegistryFindingDraft,
  RegistryUpdateRecord,
  StoredRegistry,
  StoredSite,
} from '../records.js';

/** A registry's JSON is read up to this many bytes (the 2026 registry is 73 KB). */
export const MAX_REGISTRY_BYTES = 5 * 1024 * 1024;
/** One deadline for fetching it. */
const REGISTRY_TIMEOUT_MS = 60_000;

export interface RegistryStore {
  /** The registry recorded last (the one in use); null before the first. */
  latestRegistry(): Promise<StoredRegistry | null>;
  /** Its version alone (asked often, by each process's upkeep). */
  latestRegistryVersion(): Promise<RegistryVersion | null>;
  /** Records a registry and its findings; false if it was recorded already (nothing written). */
  recordRegistry(update: RegistryUpdateRecord): Promise<boolean>;
  /** The sites' rows with where each stands now. */
  syncSites(origins: readonly string[]): Promise<StoredSite[]>;
  loadBody(sha256: string): Promise<Uint8Array>;
}

export interface RegistryDeps {
  fetchDocument(request: DocumentRequest): Promise<DocumentResult>;
  readonly store: RegistryStore;
  now(): Date;
}

export type RegistryOutcome =
  | { readonly kind: 'unchanged'; readonly active: ActiveRegistry }
  | {
      readonly kind: 'updated';
      readonly active: ActiveRegistry;
      readonly previous: ActiveRegistry | null;
      /** Sites whose finding was recorded, and how many of them alert. */
      readonly sites: number;
      readonly alerting: number;
      /** Another process recorded this version first (its findings are that process's). */
      readonly recordedElsewhere: boolean;
    }
  /** `url`: the address that failed (a reload may have changed registry.url meanwhile). */
  | { readonly kind: 'failed'; readonly url: string; readonly error: string };

/** Fetches the registry's JSON; throws an Error with one line that says what went wrong. */
async function fetchRegistry(deps: RegistryDeps, url: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const result = await deps.fetchDocument({
    url,
    signal: AbortSignal.timeout(REGISTRY_TIMEOUT_MS),
    maxBytes: MAX_REGISTRY_BYTES,
    onChunk: (bytes) => chunks.push(bytes),
  });
  if (result.error !== null) throw new Error(`${url}: ${result.errorDetail ?? result.error}`);
  if (result.status !== 200) throw new Error(`${url} answered ${result.status}`);
  if (result.cut) throw new Error(`${url} is over ${MAX_REGISTRY_BYTES / 1024 / 1024} MiB`);
  return Buffer.concat(chunks);
}

/**
 * The registry the process should use now: with `registry.url`, the last one recorded
 * from there (null when none was: it is fetched at the start); without, the shipped one.
 */
export function registryFromStore(
  stored: StoredRegistry | null,
  config: Pick<Config, 'registry'>,
  shipped: ActiveRegistry,
): ActiveRegistry | null {
  const { url } = config.registry;
  if (url === null) return shipped;
  if (stored === null || stored.version.source !== url) return null;
  return readRegistry(stored.content, stored.version.source, stored.version.date);
}

/**
 * Makes `next` the registry in use, unless it is already: records it with, for each site
 * of the configuration that has been checked, what its new crawlers mean there. The first
 * registry ever recorded is a baseline (no finding: nothing was used before it).
 */
export async function adoptRegistry(
  deps: RegistryDeps,
  config: Pick<Config, 'sites'>,
  next: ActiveRegistry,
  content: Uint8Array,
): Promise<RegistryOutcome> {
  const latest = await deps.store.latestRegistry();
  if (latest?.version.sha256 === next.version.sha256) return { kind: 'unchanged', active: next };
  const previous =
    latest === null
      ? null
      : readRegistry(latest.content, latest.version.source, latest.version.date);
  const now = deps.now();
  const findings = previous === null ? [] : await findingsFor(deps, config.sites, previous, next);
  const recorded = await deps.store.recordRegistry({
    version: next.version,
    content,
    findings,
    now,
  });
  return {
    kind: 'updated',
    active: next,
    previous,
    sites: recorded ? findings.length : 0,
    alerting: recorded ? findings.filter((f) => f.alerts.length > 0).length : 0,
    recordedElsewhere: !recorded,
  };
}

/** Each checked site's registry cause, and its alerts where `registry_changed` alerts. */
async function findingsFor(
  deps: RegistryDeps,
  sites: readonly SiteConfig[],
  previous: ActiveRegistry,
  next: ActiveRegistry,
): Promise<RegistryFindingDraft[]> {
  const stored = await deps.store.syncSites(sites.map((s) => s.origin));
  const byOrigin = new Map(stored.map((s) => [s.origin, s]));
  const cache = new ParseCache();
  const bodies = new Map<string, Uint8Array>();
  const findings: RegistryFindingDraft[] = [];
  for (const site of sites) {
    const current = byOrigin.get(site.origin)?.current;
    if (current === null || current === undefined) continue;
    let robots = null;
    if (current.bodySha256 !== null) {
      let body = bodies.get(current.bodySha256);
      if (body === undefined)
        bodies.set(current.bodySha256, (body = await deps.store.loadBody(current.bodySha256)));
      robots = cache.parse(body, site.profile);
    }
    const cause = registryCause(robots, previous, next);
    if (cause === null) continue;
    const alerts = routeAlerts(
      site.origin,
      [],
      [cause],
      site.alerts,
      site.agents.map((a) => a.token),
      site.name,
    );
    findings.push({
      siteId: byOrigin.get(site.origin)!.id,
      snapshotId: current.snapshotId,
      cause,
      alerts,
    });
  }
  return findings;
}

/**
 * Fetches `registry.url` and adopts what it serves when that differs from the registry in
 * use. Never throws: a registry that cannot be fetched or read leaves the one in use.
 */
export async function refreshRegistry(
  deps: RegistryDeps,
  config: Pick<Config, 'sites' | 'registry'>,
): Promise<RegistryOutcome> {
  const { url } = config.registry;
  if (url === null) return { kind: 'unchanged', active: config.registry.active };
  let next: ActiveRegistry;
  let content: Uint8Array;
  try {
    content = await fetchRegistry(deps, url);
    next = readRegistry(content, url, deps.now().toISOString());
  } catch (error) {
    return { kind: 'failed', url, error: oneLine(error) };
  }
  return adoptRegistry(deps, config, next, content);
}
