/**
 * The sites robowatch watches: the configuration file's, and those added in the UI or
 * API (kept in the database), with what is paused. The file wins for the sites it lists:
 * their settings are the file's, and the UI and API can pause them and check them now,
 * not edit or remove them. A site added in the UI that the file starts listing takes the
 * file's settings; its own come back if the file stops listing it.
 */
import type { Config, Presets, SiteConfig } from '../../config/config.js';
import { ConfigError, keepingRestartSettings, withRegistry } from '../../config/config.js';
import type { IntentEntry } from '../../policy/intent.js';
import { seesSite } from '../../policy/access-roles.js';
import { WebIntents } from './intents.js';
import { loadValidation, validation } from '../../config/validation.js';
import { resolveChannels } from '../../config/notify.js';
import { originFromInput } from '../../config/urls.js';
import type { ActiveRegistry } from '../../policy/registry.js';
import { isBuiltInPreset } from '../../config/agents.js';
import { withDefaultChannels } from '../../config/notify.js';
import type { SiteDirectoryStore } from '../ports.js';
import type { DirectoryRow } from '../records.js';
import { SiteChangeRefused } from './entries.js';
import type { PresetEntry, DefaultChannels, CatalogEntry, ReloadSummary } from './entries.js';
import {
  NO_SHARED,
  retarget,
  readShared,
  refuseFrequentSchedule,
  refuseInvalid,
} from './shared.js';
import type { Shared } from './shared.js';

type Listener = () => void | Promise<void>;

export class SiteCatalog {
  readonly #store: SiteDirectoryStore;
  readonly #now: () => Date;
  #file: Config;
  #config: Config;
  /** The file's sites' ids, by origin. */
  #fileIds = new Map<string, number>();
  #synced = false;
  #entries: CatalogEntry[] = [];
  #byId = new Map<number, CatalogEntry>();
  /** Each managed site as last resolved, with the settings it was resolved from. */
  #resolved = new Map<number, { text: string; site: SiteConfig | string }>();
  #problems: string[] = [];
  #shared: Shared = NO_SHARED;
  #sharedText = '';
  #rowsSignature: string | undefined;
  /** The catalogue's count of changes when its rows were last read (null: not known). */
  #version: number | null = null;
  #refreshedAt = -Infinity;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #listeners = new Set<Listener>();
  /** Intents set in the UI or API, as last resolved. */
  readonly #intents = new WebIntents();
  /** The only origins resolved of the sites added in the UI or API (load's `origins`). */
  #only: ReadonlySet<string> | null = null;
  /** Loaded to read only (load's `readOnly`): the file's sites are not given rows. */
  #readOnly = false;

  constructor(store: SiteDirectoryStore, file: Config, now: () => Date) {
    this.#store = store;
    this.#file = file;
    this.#config = file;
    this.#now = now;
  }

  /** The configuration with every watched site (paused ones included). */
  get config(): Config {
    return this.#config;
  }

  /** The configuration file as last read. */
  get file(): Config {
    return this.#file;
  }

  /** Every watched site with its id: the file's in its order, then those added in the UI or API. */
  entries(): readonly CatalogEntry[] {
    return this.#entries;
  }

  get(id: number): CatalogEntry | undefined {
    return this.#byId.get(id);
  }

  /**
   * What the current file's settings make invalid among the sites, presets and default
   * channels added in the UI or API (and so not applied), one sentence each.
   */
  problems(): readonly string[] {
    return this.#problems;
  }

  /** Called after each change of the sites (a reload, a write here, or another process's seen by a refresh). */
  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Gives the file's sites their rows, then reads the rest (done by the first use
   * otherwise). With `origins`, a one-shot command's catalog resolves only those of the
   * sites added in the UI or API (100,000 resolved cost about 150 MB it does not need);
   * the file's are all there. With `readOnly`, a command that only reads (a preview of the
   * digest) writes nothing: the file's sites that have no row yet (never checked) are in
   * `config` as the file gives them, and not among `entries`, which need an id.
   */
  load(
    options: { readonly origins?: ReadonlySet<string>; readonly readOnly?: boolean } = {},
  ): Promise<void> {
    this.#only = options.origins ?? null;
    this.#readOnly = options.readOnly === true;
    return this.#serial(async () => {
      await this.#syncFile();
      await this.#read(true);
    });
  }

  /**
   * Takes a newly read configuration file, but for the settings this process keeps until
   * it restarts (keepingRestartSettings); says which of its sites came and went.
   */
  reload(file: Config): Promise<ReloadSummary> {
    return this.#serial(async () => {
      const before = new Set(this.#file.sites.map((s) => s.origin));
      const after = new Set(file.sites.map((s) => s.origin));
      this.#file = keepingRestartSettings(file, this.#file);
      this.#resolved.clear(); // the top-level settings they fall back on may have changed
      this.#intents.clear();
      await this.#syncFile();
      await this.#read(true);
      return {
        sites: file.sites.length,
        added: [...after].filter((o) => !before.has(o)),
        removed: [...before].filter((o) => !after.has(o)),
      };
    });
  }

  /**
   * Makes the sites' AI presets from another registry: the configuration resolved again
   * with it. Throws ConfigError (and changes nothing) when a preset the file or a site
   * uses does not exist in it.
   */
  useRegistry(registry: ActiveRegistry): Promise<void> {
    return this.#serial(async () => {
      const next = withRegistry(this.#file, registry);
      if (next === this.#file) return;
      this.#file = next;
      this.#resolved.clear();
      this.#intents.clear();
      await this.#read(true);
    });
  }

  /** Reads the database again (another process may have added, edited or paused a site). */
  refresh(): Promise<void> {
    return this.#serial(() => this.#read(false));
  }

  /** Refreshes unless that was done within `maxAgeMs`. */
  async fresh(maxAgeMs: number): Promise<void> {
    if (this.#now().getTime() - this.#refreshedAt > maxAgeMs) await this.refresh();
  }

  /**
   * Adds a site: `{url, name?, tags?, watch?, agents?, profile?, schedule?, notify?}`, as
   * the file writes one. "example.com" means https://example.com. `limit`: the tags the
   * person adding it is limited to; the site must carry one of them (one alone is given
   * to a site that names no tags).
   */
  add(input: unknown, limit: readonly string[] = []): Promise<CatalogEntry> {
    return this.#serial(async () => {
      if (input === null || typeof input !== 'object' || Array.isArray(input))
        throw new SiteChangeRefused(
          'invalid',
          'the site must be an object: {url, name?, tags?, watch?, …}',
        );
      const { url, ...given } = input as Record<string, unknown>;
      const untagged =
        given['tags'] === undefined || (Array.isArray(given['tags']) && given['tags'].length === 0);
      const settings = limit.length === 1 && untagged ? { ...given, tags: [...limit] } : given;
      if (typeof url !== 'string')
        throw new SiteChangeRefused(
          'invalid',
          'url: is required (the site, e.g. https://example.com)',
        );
      const origin = refuseInvalid(() => originFromInput(url));
      if (this.#file.sites.some((s) => s.origin === origin))
        throw new SiteChangeRefused(
          'conflict',
          `${origin} is listed in ${this.#file.file}: edit it there`,
        );
      const existing = await this.#store.findRow({ origin });
      if (existing !== undefined && existing.settings !== null && existing.removedAt === null)
        throw new SiteChangeRefused(
          'conflict',
          `${origin} is watched already (site ${existing.id})`,
        );
      const { resolveSiteSettings } = await loadValidation();
      const resolved = refuseInvalid(() => resolveSiteSettings(this.#base(), origin, settings));
      refuseUnseen(resolved.site.tags, limit);
      refuseFrequentSchedule(resolved.settings.schedule);
      const id = await this.#store.saveSite(origin, resolved.settings);
      await this.#read(false, true);
      return this.#byId.get(id)!;
    });
  }

  /**
   * Changes a site's settings: each key given replaces the site's, null removes it (the
   * top-level setting applies again). Only sites added in the UI or API. `limit`: the tags
   * the person editing it is limited to; the site must keep one of them.
   */
  update(id: number, patch: unknown, limit: readonly string[] = []): Promise<CatalogEntry> {
    return this.#serial(async () => {
      const row = await this.#managed(id, 'edit');
      if (patch === null || typeof patch !== 'object' || Array.isArray(patch))
        throw new SiteChangeRefused(
          'invalid',
          'the change must be an object of settings: {name?, tags?, watch?, …}',
        );
      const changes = patch as Record<string, unknown>;
      if ('url' in changes && changes['url'] !== row.origin)
        throw new SiteChangeRefused(
          'invalid',
          'url: cannot change (a history belongs to one origin): add the new origin as a site',
        );
      const merged: Record<string, unknown> = { ...row.settings };
      for (const [key, value] of Object.entries(changes)) {
        if (key === 'url') continue;
        if (value === null) delete merged[key];
        else merged[key] = value;
      }
      const { resolveSiteSettings } = await loadValidation();
      const resolved = refuseInvalid(() => resolveSiteSettings(this.#base(), row.origin, merged));
      refuseUnseen(resolved.site.tags, limit);
      // A schedule stored before the floor keeps working until it is changed.
      if (changes['schedule'] !== undefined) refuseFrequentSchedule(resolved.settings.schedule);
      await this.#store.updateSettings(id, resolved.settings);
      await this.#read(false, true);
      return this.#byId.get(id)!;
    });
  }

  /** Pauses or resumes a site (the file's too: pausing is not a setting). */
  setPaused(id: number, paused: boolean): Promise<CatalogEntry> {
    return this.#serial(async () => {
      const entry = this.#byId.get(id) ?? (await this.#read(false), this.#byId.get(id));
      if (entry === undefined)
        throw new SiteChangeRefused('unknown', `there is no watched site ${id}`);
      if ((entry.pausedAt !== null) !== paused)
        await this.#store.setPaused(id, paused ? this.#now() : null);
      await this.#read(false, true);
      return this.#byId.get(id)!;
    });
  }

  /** Stops watching a site added in the UI or API; its history stays browsable. */
  remove(id: number): Promise<void> {
    return this.#serial(async () => {
      await this.#managed(id, 'remove');
      await this.#store.remove(id, this.#now());
      await this.#read(false, true);
    });
  }

  /** The row of a site the UI and API may change, or the refusal that says why not. */
  async #managed(
    id: number,
    what: 'edit' | 'remove',
  ): Promise<DirectoryRow & { settings: Record<string, unknown> }> {
    const row = await this.#store.findRow({ id });
    if (row === undefined) throw new SiteChangeRefused('unknown', `there is no site ${id}`);
    if (this.#file.sites.some((s) => s.origin === row.origin))
      throw new SiteChangeRefused(
        'conflict',
        `${row.origin} is listed in ${this.#file.file}: ${what} it there`,
      );
    if (row.settings === null || row.removedAt !== null)
      throw new SiteChangeRefused('unknown', `${row.origin} is not watched (site ${id})`);
    return row as DirectoryRow & { settings: Record<string, unknown> };
  }

  /** Runs catalog work one at a time, so that a refresh never overtakes a write. */
  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #syncFile(): Promise<void> {
    const origins = this.#file.sites.map((s) => s.origin);
    const stored = await (this.#readOnly
      ? this.#store.findSiteIds(origins)
      : this.#store.ensureSiteIds(origins));
    this.#fileIds = new Map(stored.map((s) => [s.origin, s.id]));
    this.#synced = true;
  }

  /**
   * Reads the rows and rebuilds the sites; tells the listeners when anything changed.
   * `written`: this catalog has just changed them, so they are read whatever the
   * catalogue's count says.
   */
  async #read(force: boolean, written = false): Promise<void> {
    if (!this.#synced) {
      await this.#syncFile();
      force = true;
    }
    // Read before the rows: a change committed between the two moves the count after
    // this read, so the next refresh reads the rows again (none is missed).
    const version = await this.#store.catalogVersion();
    if (!force && !written && version !== null && version === this.#version) {
      // Nothing changed since the last read: every daemon looks every upkeep round, and
      // reading the rows scanned the whole sites table each time.
      this.#refreshedAt = this.#now().getTime();
      return;
    }
    const [rows, shared] = await Promise.all([
      this.#store.loadDirectory(),
      this.#store.loadShared(),
    ]);
    this.#version = version;
    this.#refreshedAt = this.#now().getTime();
    const sharedText = JSON.stringify(shared);
    const signature =
      sharedText +
      '\n' +
      rows
        .map(
          (r) =>
            `${r.id}\t${r.pausedAt?.getTime() ?? ''}\t${r.removedAt === null ? '' : 'x'}\t${JSON.stringify(r.settings)}\t${JSON.stringify(r.intent)}`,
        )
        .join('\n');
    if (!force && signature === this.#rowsSignature) return;
    this.#rowsSignature = signature;
    // What was made in the UI or API is checked again as it is read: the validation is
    // loaded only when there is some (a file's sites alone need none).
    if (
      shared.presets !== null ||
      shared.channels !== null ||
      rows.some((r) => (r.settings !== null && r.removedAt === null) || r.intent !== null)
    )
      await loadValidation();
    if (force || sharedText !== this.#sharedText) {
      // Presets and default channels reach every site resolved against them.
      this.#sharedText = sharedText;
      this.#shared = readShared(shared, this.#file);
      this.#resolved.clear();
      this.#intents.clear();
    }
    this.#build(rows);
    for (const listener of this.#listeners) await listener();
  }

  /**
   * The names of these sites (null: none): the file's as it gives them, those added in
   * the UI or API as stored, read at once without resolving any site's settings or
   * writing anything. A site neither lists is not among them.
   */
  async names(origins: Iterable<string>): Promise<Map<string, string | null>> {
    const wanted = new Set(origins);
    const names = new Map<string, string | null>();
    for (const site of this.#file.sites)
      if (wanted.has(site.origin)) names.set(site.origin, site.name ?? null);
    const rest = [...wanted].filter((origin) => !names.has(origin));
    if (rest.length > 0)
      for (const [origin, name] of await this.#store.findNames(rest)) names.set(origin, name);
    return names;
  }

  /**
   * One site added in the UI or API as the daemon resolves it (its settings, the presets
   * and default recipients made in the web, its intent), read without writing anything: a
   * command about one site (its history, the deploy gate) needs neither the file's sites
   * given their rows nor the other sites resolved, and runs with a database user that may
   * only read. Undefined for a site the file lists (read it there) and one not added or
   * removed; a string says why one whose settings no longer hold is not checked.
   */
  async readSite(origin: string): Promise<SiteConfig | string | undefined> {
    if (this.#file.sites.some((s) => s.origin === origin)) return undefined;
    const row = await this.#store.findRow({ origin });
    if (row === undefined || row.settings === null || row.removedAt !== null) return undefined;
    await loadValidation();
    const base = this.#base(readShared(await this.#store.loadShared(), this.#file));
    const site = this.#resolveRow(base, origin, row.settings);
    if (typeof site === 'string') return site;
    return new WebIntents().apply(row.id, site, row.intent ?? undefined, base.presets, []);
  }

  /**
   * One site of the file as the daemon judges it: its intent set in the web, the presets
   * it names as made in the web, the default recipients edited there; as the file gives it
   * when it has no row yet (never checked, never given an intent). Read without writing,
   * for the deploy gate. Undefined for a site the file does not list.
   */
  async readFileSite(origin: string): Promise<SiteConfig | undefined> {
    const fileSite = this.#file.sites.find((s) => s.origin === origin);
    if (fileSite === undefined) return undefined;
    const row = await this.#store.findRow({ origin });
    const shared = await this.#store.loadShared();
    if ((row?.intent ?? null) === null && shared.presets === null && shared.channels === null)
      return fileSite;
    await loadValidation();
    const base = this.#base(readShared(shared, this.#file));
    const site = retarget(fileSite, this.#file.notify.defaults, base.notify.defaults);
    return row === undefined
      ? site
      : new WebIntents().apply(row.id, site, row.intent ?? undefined, base.presets, []);
  }

  /** A site added in the UI or API, resolved against `base`; a string says why it is not checked. */
  #resolveRow(
    base: Config,
    origin: string,
    settings: Record<string, unknown>,
  ): SiteConfig | string {
    try {
      return validation().resolveSiteSettings(base, origin, settings).site;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return `${origin} is not checked: its settings no longer hold with ${this.#file.file}: ${error.message}`;
    }
  }

  #build(rows: readonly DirectoryRow[]): void {
    const paused = new Map<number, Date>();
    const intents = new Map<number, readonly IntentEntry[]>();
    for (const row of rows) {
      if (row.pausedAt !== null) paused.set(row.id, row.pausedAt);
      if (row.intent !== null) intents.set(row.id, row.intent);
    }
    const base = this.#base();
    const fileDefaults = this.#file.notify.defaults;
    const defaults = base.notify.defaults;
    const fileOrigins = new Set<string>();
    const problems: string[] = [...this.#shared.problems];
    const entries: CatalogEntry[] = [];
    const sites: SiteConfig[] = [];
    for (const fileSite of this.#file.sites) {
      fileOrigins.add(fileSite.origin);
      const id = this.#fileIds.get(fileSite.origin);
      const retargeted = retarget(fileSite, fileDefaults, defaults);
      // Only a catalog loaded to read has a file's site without a row: never checked,
      // and so neither paused nor given an intent in the web.
      if (id === undefined) {
        sites.push(retargeted);
        continue;
      }
      const site = this.#intents.apply(id, retargeted, intents.get(id), base.presets, problems);
      entries.push({ id, site, pausedAt: paused.get(id) ?? null, settings: null });
      sites.push(site);
    }
    const resolved = new Map<number, { text: string; site: SiteConfig | string }>();
    for (const row of rows) {
      if (row.settings === null || row.removedAt !== null || fileOrigins.has(row.origin)) continue;
      if (this.#only !== null && !this.#only.has(row.origin)) continue;
      const text = JSON.stringify(row.settings);
      let known = this.#resolved.get(row.id);
      if (known === undefined || known.text !== text)
        known = { text, site: this.#resolveRow(base, row.origin, row.settings) };
      resolved.set(row.id, known);
      if (typeof known.site === 'string') {
        problems.push(known.site);
        continue;
      }
      const site = this.#intents.apply(
        row.id,
        known.site,
        intents.get(row.id),
        base.presets,
        problems,
      );
      entries.push({
        id: row.id,
        site,
        pausedAt: paused.get(row.id) ?? null,
        settings: row.settings,
      });
      sites.push(site);
    }
    this.#resolved = resolved;
    this.#problems = problems;
    this.#entries = entries;
    this.#byId = new Map(entries.map((e) => [e.id, e]));
    this.#config = Object.freeze({
      ...base,
      sites: Object.freeze(sites),
    });
  }

  /**
   * Sets what the owner intends of a site (`[{watch, agents, expect}]`, the list whole),
   * or null to go back to the file's; refused for a site whose intent the file gives.
   */
  setIntent(id: number, input: unknown): Promise<CatalogEntry> {
    return this.#serial(async () => {
      const entry = this.#byId.get(id) ?? (await this.#read(false), this.#byId.get(id));
      if (entry === undefined)
        throw new SiteChangeRefused('unknown', `there is no watched site ${id}`);
      if (entry.site.intent.from === 'site-file')
        throw new SiteChangeRefused(
          'conflict',
          `the intent of ${entry.site.origin} is set in ${this.#file.file}: edit it there`,
        );
      const { parseIntent } = await loadValidation();
      const entries =
        input === null
          ? null
          : refuseInvalid(() => parseIntent(input, entry.site.origin, this.#base().presets))
              .entries;
      await this.#store.saveIntent(id, entries);
      await this.#read(false, true);
      return this.#byId.get(id)!;
    });
  }

  /** The file's settings with the presets and default channels made in the UI or API. */
  #base(shared: Shared = this.#shared): Config {
    const { presets, channels } = shared;
    let merged: Presets = this.#file.presets;
    if (presets.size > 0) {
      const added = [...presets].filter(([name]) => !Object.hasOwn(this.#file.presets, name));
      merged = Object.freeze({ ...this.#file.presets, ...Object.fromEntries(added) });
    }
    let notify = this.#file.notify;
    try {
      // Validated as they were read (readShared): resolved against the file's settings.
      notify = withDefaultChannels(notify, resolveChannels(this.#file.notify, channels, {}, ''));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error; // said by readShared
    }
    return { ...this.#file, presets: merged, notify };
  }

  /** Every preset: the built-in ones, the file's, then those made in the UI or API. */
  presets(): readonly PresetEntry[] {
    const usedBy = new Map<string, number[]>();
    for (const entry of this.#entries) {
      const agents = entry.settings?.['agents'];
      if (!Array.isArray(agents)) continue;
      for (const name of new Set(agents.filter((a): a is string => typeof a === 'string')))
        if (name.startsWith('@')) usedBy.set(name, [...(usedBy.get(name) ?? []), entry.id]);
    }
    const filePresets = this.#file.presets;
    // One preset per operator of the AI registry (a hundred) is listed with the registry.
    const out: PresetEntry[] = Object.entries(filePresets)
      .filter(([name]) => !name.startsWith('@operator:'))
      .map(([name, agents]) => ({
        name,
        agents,
        source: isBuiltInPreset(name) ? 'built-in' : 'file',
        overridden: false,
        usedBy: usedBy.get(name) ?? [],
      }));
    for (const [name, agents] of this.#shared.presets)
      out.push({
        name,
        agents,
        source: 'api',
        overridden: Object.hasOwn(filePresets, name),
        usedBy: Object.hasOwn(filePresets, name) ? [] : (usedBy.get(name) ?? []),
      });
    return out;
  }

  /** The default recipients and webhooks: the file's and those added in the UI or API. */
  defaultChannels(): DefaultChannels {
    const { email, webhooks } = this.#file.notify.defaults;
    return { file: { email, webhooks }, added: this.#shared.channels };
  }

  /**
   * Makes or changes a crawler preset, `{agents: ["Googlebot", …]}`; the sites added in the
   * UI or API that name it watch its crawlers from then on.
   */
  setPreset(name: string, input: unknown): Promise<PresetEntry> {
    return this.#serial(async () => {
      if (Object.hasOwn(this.#file.presets, name) && !isBuiltInPreset(name))
        throw new SiteChangeRefused(
          'conflict',
          `${name} is defined in ${this.#file.file}: edit it there`,
        );
      const { parsePreset } = await loadValidation();
      const agents = refuseInvalid(() => parsePreset(this.#file, name, input));
      await this.#store.savePreset(name, agents);
      await this.#read(false, true);
      return this.presets().find((p) => p.name === name && p.source === 'api')!;
    });
  }

  /** Deletes a preset made in the UI or API that no site uses. */
  deletePreset(name: string): Promise<void> {
    return this.#serial(async () => {
      await this.#read(false);
      const preset = this.presets().find((p) => p.name === name && p.source === 'api');
      if (preset === undefined) {
        const other = this.presets().find((p) => p.name === name);
        if (other?.source === 'built-in')
          throw new SiteChangeRefused('conflict', `${name} is built in: it cannot be deleted`);
        if (other?.source === 'file')
          throw new SiteChangeRefused(
            'conflict',
            `${name} is defined in ${this.#file.file}: delete it there`,
          );
        throw new SiteChangeRefused('unknown', `there is no preset ${name}`);
      }
      if (preset.usedBy.length > 0) {
        const names = preset.usedBy
          .slice(0, 3)
          .map((id) => this.#byId.get(id)!.site.origin)
          .join(', ');
        const more = preset.usedBy.length > 3 ? ` and ${preset.usedBy.length - 3} more` : '';
        throw new SiteChangeRefused(
          'conflict',
          `${name} is used by ${preset.usedBy.length} site${preset.usedBy.length === 1 ? '' : 's'} (${names}${more}): change their crawlers first`,
        );
      }
      await this.#store.savePreset(name, null);
      await this.#read(false, true);
    });
  }

  /**
   * Replaces the default recipients and webhooks made in the UI or API, `{email?: […],
   * webhooks?: [{url, secret?, format?}]}`: every site without its own gets them, with
   * the file's.
   */
  setDefaultChannels(input: unknown): Promise<DefaultChannels> {
    return this.#serial(async () => {
      const { parseChannels } = await loadValidation();
      const { settings } = refuseInvalid(() => parseChannels(this.#file, input));
      await this.#store.saveChannels(settings);
      await this.#read(false, true);
      return this.defaultChannels();
    });
  }
}

/** A person limited to some tags may not make a site they would no longer see. */
function refuseUnseen(tags: readonly string[], limit: readonly string[]): void {
  if (!seesSite(limit, tags))
    throw new SiteChangeRefused(
      'invalid',
      `tags: must include one of yours (${limit.join(', ')}), or you would no longer see this site`,
    );
}
