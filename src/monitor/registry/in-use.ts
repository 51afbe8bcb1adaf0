/**
 * Which AI crawler registry a process uses, and when it changes: the shipped copy, or the
 * last one fetched from registry.url (by whichever process fetched it), recorded when it
 * differs from the one used before (an upgrade that ships a new one says what it changes).
 * A new registry.url is fetched once at once, then by its schedule; a registry the
 * configuration does not hold with (a preset it lacks) is refused and not tried again.
 */
import { oneLine } from '../../lib/errors.js';
import type { ActiveRegistry, RegistryVersion } from '../../policy/registry.js';
import { adoptRegistry, refreshRegistry, registryFromStore } from './refresh.js';
import type { RegistryDeps, RegistryOutcome } from './refresh.js';
import type { SiteCatalog } from '../sites/catalog.js';

export interface RegistryInUseDeps extends RegistryDeps {
  /** The registry robowatch ships, and its JSON. */
  readonly shipped: ActiveRegistry;
  readonly shippedContent: Uint8Array;
}

/** What the adoption says as it happens (the daemon makes events of them). */
export interface RegistryReports {
  refreshed(outcome: RegistryOutcome, url: string | null, inUse: RegistryVersion): void;
  used(version: RegistryVersion): void;
  refused(version: RegistryVersion, inUse: RegistryVersion, error: string): void;
}

export class RegistryInUse {
  /** The registry URL this process has fetched at least once (at the start, or by its job). */
  #fetched: string | null = null;
  /** A registry the configuration could not use (a preset it lacks), not tried again. */
  #refused: string | null = null;

  constructor(
    private readonly deps: RegistryInUseDeps,
    private readonly catalog: SiteCatalog,
    private readonly reports: RegistryReports,
  ) {}

  /**
   * Uses the registry it should and records it when it differs from the one used before;
   * with a registry.url never fetched yet, fetches it once. Cheap when nothing changed:
   * only the recorded version is read.
   */
  async sync(): Promise<void> {
    const { url, active } = this.catalog.file.registry;
    const head = await this.deps.store.latestRegistryVersion();
    const inUse = active.version.sha256;
    if (head?.sha256 === inUse && (url === null ? head.source === 'shipped' : head.source === url))
      return;
    // registry.url not served yet: fetched once at the start, then by its schedule.
    if (url !== null && head?.source !== url && this.#fetched === url) return;
    const stored = await this.deps.store.latestRegistry();
    const wanted = registryFromStore(stored, this.catalog.file, this.deps.shipped);
    if (wanted === null) {
      if (url !== null && this.#fetched !== url) await this.refresh();
      return;
    }
    if (url === null && stored?.version.sha256 !== wanted.version.sha256)
      this.#report(
        await adoptRegistry(this.deps, this.catalog.config, wanted, this.deps.shippedContent),
      );
    await this.#use(wanted);
  }

  /** Fetches registry.url; adopts and uses what it serves if that is new. */
  async refresh(): Promise<void> {
    const config = this.catalog.config;
    if (config.registry.url === null) return;
    this.#fetched = config.registry.url;
    const outcome = await refreshRegistry(this.deps, config);
    this.#report(outcome);
    if (outcome.kind !== 'failed') await this.#use(outcome.active);
    else if ((await this.deps.store.latestRegistry()) === null)
      // Nothing recorded yet: the shipped copy, in use meanwhile, is (so verdicts name it).
      this.#report(
        await adoptRegistry(this.deps, config, this.deps.shipped, this.deps.shippedContent),
      );
  }

  #report(outcome: RegistryOutcome): void {
    const { registry } = this.catalog.file;
    this.reports.refreshed(outcome, registry.url, registry.active.version);
  }

  /** Makes the sites' AI presets from `registry`, unless it is in use or was refused. */
  async #use(registry: ActiveRegistry): Promise<void> {
    const sha = registry.version.sha256;
    const inUse = this.catalog.file.registry.active.version;
    if (inUse.sha256 === sha || this.#refused === sha) return;
    try {
      await this.catalog.useRegistry(registry);
      this.reports.used(registry.version);
    } catch (error) {
      this.#refused = sha;
      this.reports.refused(registry.version, inUse, oneLine(error));
    }
  }
}
