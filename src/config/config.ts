import { isAbsolute, resolve } from 'node:path';
import type { Profile } from '../robots/index.js';
import { builtInPresets, isBuiltInPreset } from './agents.js';
import { shippedRegistry } from './registry.js';
import type { ActiveRegistry } from '../policy/registry.js';
import { ConfigError } from './errors.js';
import { resolveNotify, resolveSiteTargets } from './notify.js';
import type { AlertTargets, NotifyConfig } from './notify.js';
import { resolveWeb } from './web.js';
import type { WebConfig } from './web.js';
import type { AgentEntry, ConfigFile, SiteEntry, SiteSettings } from './schema.js';
import { isPlainPath, sitemapUrls, siteOrigin, normalisePaths, normaliseWatches } from './urls.js';
import { resolveAgents } from './site-agents.js';
import { resolveIntent } from './intent.js';
import type { SiteIntent } from './intent.js';
import { DEFAULT_INTENT } from '../policy/intent.js';

export type { SiteIntent };

/** A crawler watched on a site, and the profile it reads robots.txt with. */
export interface AgentSpec {
  readonly token: string;
  readonly profile: Profile;
}

export interface SiteConfig {
  /** scheme://host[:port], as the WHATWG URL parser serialises it. */
  readonly origin: string;
  /** What people call it; null: its origin is its name. */
  readonly name: string | null;
  /** Labels to group and filter sites by. */
  readonly tags: readonly string[];
  /**
   * Where its settings live: `file`, the configuration file (which wins: the UI and API
   * cannot edit it); `api`, added and edited in the UI or API, kept in the database.
   */
  readonly managedBy: 'file' | 'api';
  /** Watched URLs, absolute and normalised as a crawler requests them. */
  readonly watches: readonly string[];
  /**
   * `watch: auto`: the watches are chosen from the site's URL set at each check (the home
   * page until it has one); `watches` holds the home page.
   */
  readonly watchAuto?: boolean;
  readonly agents: readonly AgentSpec[];
  /** What its owner intends crawlers to be able to fetch (policy/intent.ts). */
  readonly intent: SiteIntent;
  /** The profile for the site's fetch status (and its agents' default). */
  readonly profile: Profile;
  /** When it is checked: a cron expression (its own, or schedule.check). */
  readonly schedule: string;
  /** Who its alerts go to, and which events alert. */
  readonly alerts: AlertTargets;
  /** Where its URL set comes from: auto, off, or the sitemaps' URLs. */
  readonly sitemaps: SitemapSource;
  /**
   * The SHA-256 of the AI crawler registry some of its crawlers came from (an @ai… or
   * @operator: preset), recorded with its verdicts; absent when none did.
   */
  readonly registry?: string;
  /** Its rank in the popularity list it was imported from (`robowatch sites import`). */
  readonly rank?: number;
}

/** `auto`: the robots.txt Sitemap: lines, else /sitemap.xml; `off`; or these sitemaps. */
export type SitemapSource = 'auto' | 'off' | readonly string[];

export interface ScheduleConfig {
  readonly check: string;
  readonly digest: string;
  readonly timezone: string;
  /**
   * How long a job (a check, a notification, a digest) may run before the engine
   * expires it and retries it: a crashed process's work is taken over within this long.
   */
  readonly leaseMs: number;
  /** How long finished jobs and sent notifications are kept. */
  readonly retentionDays: number;
  /** How long the audit log keeps its entries (days). */
  readonly auditDays: number;
}

export interface FetchConfig {
  readonly userAgent: string;
  readonly timeoutMs: number;
  /** true: any address; 'loopback': public ones and this machine's; false: public ones. */
  readonly allowPrivateAddresses: boolean | 'loopback';
  readonly confirmRetries: number;
  readonly confirmDelayMs: number;
  /** robots.txt fetches under way at the same time (per process). */
  readonly concurrency: number;
  /** A site's URL set is cut at this many URLs. */
  readonly sitemapMaxUrls: number;
  /** One deadline for reading all of a site's sitemaps. */
  readonly sitemapTimeoutMs: number;
}

/** The resolved, frozen configuration. */
export interface Config {
  /** The file it was read from (for messages). */
  readonly file: string;
  /** Absolute path of the data directory. */
  readonly dataDir: string;
  /** postgres://… from DATABASE_URL, or undefined for embedded PGlite under dataDir. */
  readonly databaseUrl: string | undefined;
  readonly sites: readonly SiteConfig[];
  /** What a site added in the UI or API gets unless it says otherwise. */
  readonly siteDefaults: SiteDefaults;
  /**
   * The crawler presets agent lists may name: the built-in ones (@search, and @ai … from
   * the registry), then the file's own (and, in the running configuration, those made in
   * the UI or API).
   */
  readonly presets: Presets;
  /** The AI crawler registry the presets were made from, and where it is refreshed from. */
  readonly registry: RegistrySettings;
  readonly fetch: FetchConfig;
  readonly schedule: ScheduleConfig;
  readonly notify: NotifyConfig;
  readonly web: WebConfig;
  /** The Internet Archive robowatch backfill reads (its Wayback Machine), and how gently. */
  readonly archive: { readonly url: string; readonly requestsPerMinute: number };
  /** Each site added in the UI or API gets its archived history loaded. */
  readonly backfill: { readonly onAdd: boolean };
}

/** The registry in use, and `registry:` of the file. */
export interface RegistrySettings {
  readonly active: ActiveRegistry;
  /** Refreshed from this URL; null: the shipped copy only. */
  readonly url: string | null;
  /** When it is refreshed (cron, in schedule.timezone). */
  readonly refresh: string;
}

/** Crawler presets by name ("@search"): their product tokens. */
export type Presets = Readonly<Record<string, readonly string[]>>;

/** The top-level settings sites fall back on. */
export interface SiteDefaults {
  /** The top-level agents, as written (presets resolve per site profile). */
  readonly agents: readonly AgentEntry[];
  /** The top-level watched paths, normalised; undefined: each site must list its own. */
  readonly watchPaths: readonly string[] | undefined;
  /** The top-level watch is `auto` (watchPaths is then the home page). */
  readonly watchAuto: boolean;
  /** schedule.check. */
  readonly schedule: string;
  /** The top-level sitemaps setting. */
  readonly sitemaps: SitemapSource;
  /** The top-level intent (or the built-in rule), resolved once. */
  readonly intent: SiteIntent;
}

export { ConfigError };

export interface ConfigContext {
  /** The file name, for messages. */
  readonly file: string;
  /** Directory relative paths (dataDir) are resolved against. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** robowatch's version, for the default User-Agent. */
  readonly version: string;
  /** The AI crawler registry the presets come from; the shipped one by default. */
  readonly registry?: ActiveRegistry;
}

/** What each configuration was resolved from, to resolve it again with another registry. */
const sources = new WeakMap<Config, { file: ConfigFile; context: ConfigContext }>();

/**
 * The configuration of a file this build validated before (its validated form, kept by
 * load.ts between commands): resolved against this context as parseConfig resolves it,
 * without reading or validating the file again.
 */
export function parseCheckedConfig(file: ConfigFile, context: ConfigContext): Config {
  const config = deepFreeze(resolveConfig(file, context));
  sources.set(config, { file, context });
  return config;
}

/** The validated form of the file a configuration was made from (parseCheckedConfig's input). */
export function checkedFileOf(config: Config): ConfigFile {
  return sourceOf(config).file;
}

function sourceOf(config: Config): { file: ConfigFile; context: ConfigContext } {
  const source = sources.get(config);
  if (source === undefined) throw new Error('not a configuration parseConfig made');
  return source;
}

/**
 * The same configuration with another AI crawler registry: its presets, and the sites'
 * crawlers that come from them, made again. Throws ConfigError if a preset the file uses
 * no longer exists (an operator the new registry does not know).
 */
export function withRegistry(config: Config, registry: ActiveRegistry): Config {
  if (config.registry.active.version.sha256 === registry.version.sha256) return config;
  const source = sourceOf(config);
  return parseCheckedConfig(source.file, { ...source.context, registry });
}

/**
 * `next` (a reload of the file) with the settings a running process keeps until it
 * restarts taken from `running`: what the process goes on with, so that every part of it
 * reads the values it was started with, whichever configuration it is handed.
 */
export function keepingRestartSettings(next: Config, running: Config): Config {
  const kept = sourceOf(running).file;
  const { file, context } = sourceOf(next);
  return parseCheckedConfig(
    {
      ...file,
      dataDir: kept.dataDir,
      fetch: kept.fetch,
      web: kept.web,
      archive: kept.archive,
      schedule: {
        ...file.schedule,
        timezone: kept.schedule.timezone,
        leaseMs: kept.schedule.leaseMs,
        retentionDays: kept.schedule.retentionDays,
      },
    },
    context,
  );
}

function resolveConfig(file: ConfigFile, context: ConfigContext): Config {
  const databaseUrl = context.env['DATABASE_URL'];
  if (databaseUrl !== undefined && databaseUrl !== '' && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL: must be a postgres:// URL`);
  }
  const notify = resolveNotify(file.notify, context.env, context.file);
  const registry = context.registry ?? shippedRegistry();
  const presets: Presets = { ...builtInPresets(registry.registry), ...file.presets };
  const intentEntries = file.intent ?? DEFAULT_INTENT;
  const siteDefaults: SiteDefaults = {
    agents: file.agents,
    intent: {
      entries: intentEntries,
      rules: resolveIntent(intentEntries, null, presets, `${context.file}: intent`),
      from: file.intent === undefined ? 'built-in' : 'file',
    },
    watchPaths:
      file.watch === undefined
        ? undefined
        : file.watch === 'auto'
          ? ['/']
          : normalisePaths(file.watch, `${context.file}: watch`),
    watchAuto: file.watch === 'auto',
    schedule: file.schedule.check,
    sitemaps:
      typeof file.sitemaps === 'string'
        ? file.sitemaps
        : sitemapUrls(file.sitemaps, undefined, `${context.file}: sitemaps`),
  };
  // The top-level list is checked even when every site has its own, and resolved once
  // per profile: sites without their own list share it (10,000 sites, one list).
  const resolver = new SiteResolver(
    siteDefaults,
    notify,
    presets,
    context.env,
    registry.version.sha256,
  );
  resolver.agentsFor('google', `${context.file}: agents`);
  const seen = new Set<string>();
  const sites = file.sites.map((site, i) => {
    const where = `${context.file}: sites[${i}]`;
    const resolved = resolver.resolve(site, `${where}.`, 'file');
    if (seen.has(resolved.origin))
      throw new ConfigError(`${where}.url: ${resolved.origin} is listed twice`);
    seen.add(resolved.origin);
    return resolved;
  });
  return {
    file: context.file,
    dataDir: isAbsolute(file.dataDir) ? file.dataDir : resolve(context.cwd, file.dataDir),
    databaseUrl: databaseUrl === '' ? undefined : databaseUrl,
    sites,
    siteDefaults,
    presets,
    registry: {
      active: registry,
      url: file.registry?.url ?? null,
      refresh: file.registry?.refresh ?? '0 4 * * *',
    },
    fetch: {
      ...file.fetch,
      userAgent:
        file.fetch.userAgent ??
        `robowatch/${context.version} (+https://github.com/robowatch/robowatch)`,
    },
    schedule: file.schedule,
    notify,
    web: resolveWeb(file.web, context.env, context.file),
    archive: {
      url: file.archive.url.replace(/\/+$/, ''),
      requestsPerMinute: file.archive.requestsPerMinute,
    },
    backfill: { onAdd: file.backfill.onAdd },
  };
}

/**
 * Resolves site entries against the top-level settings: the file's sites, and those
 * added in the UI or API (whose values never read the environment).
 */
class SiteResolver {
  readonly #agents = new Map<Profile, AgentSpec[]>();
  /** Sites' own lists of plain paths, one frozen array per distinct list. */
  readonly #pathLists = new Map<string, readonly string[]>();
  readonly #pathArrays = new WeakMap<readonly string[], readonly string[] | undefined>();

  constructor(
    private readonly defaults: SiteDefaults,
    private readonly notify: NotifyConfig,
    private readonly presets: Presets,
    private readonly env: Readonly<Record<string, string | undefined>>,
    /** The registry the presets were made from (its SHA-256). */
    private readonly registry: string,
  ) {}

  /** The top-level agents under a profile, resolved once (shared by the sites using them). */
  agentsFor(profile: Profile, where: string): AgentSpec[] {
    let agents = this.#agents.get(profile);
    if (agents === undefined) {
      agents = resolveAgents(this.defaults.agents, profile, where, this.presets);
      this.#agents.set(profile, agents);
    }
    return agents;
  }

  /** `where` prefixes each key in messages ("robowatch.yaml: sites[3]." or ""). */
  resolve(site: SiteEntry, where: string, managedBy: SiteConfig['managedBy']): SiteConfig {
    const origin = siteOrigin(site.url, `${where}url`);
    const profile = site.profile ?? 'google';
    const paths = this.defaults.watchPaths;
    if (site.watch === undefined && paths === undefined)
      throw new ConfigError(
        `${where}watch: is required (or list the paths every site watches in a top-level watch)`,
      );
    const fromRegistry = (site.agents ?? this.defaults.agents).some(
      (e) => typeof e === 'string' && e !== '@search' && isBuiltInPreset(e),
    );
    const resolved = {
      origin,
      ...(fromRegistry ? { registry: this.registry } : {}),
      ...(site.rank === undefined ? {} : { rank: site.rank }),
      name: site.name ?? null,
      tags: site.tags === undefined ? NO_TAGS : [...new Set(site.tags)],
      managedBy,
      intent:
        site.intent === undefined
          ? this.defaults.intent
          : {
              entries: site.intent,
              rules: resolveIntent(site.intent, origin, this.presets, `${where}intent`),
              from: 'site-file' as const,
            },
      agents: site.agents
        ? resolveAgents(site.agents, profile, `${where}agents`, this.presets)
        : this.agentsFor(profile, 'agents'),
      profile,
      schedule: site.schedule ?? this.defaults.schedule,
      sitemaps:
        site.sitemaps === undefined
          ? this.defaults.sitemaps
          : typeof site.sitemaps === 'string'
            ? site.sitemaps
            : sitemapUrls(site.sitemaps, origin, `${where}sitemaps`),
      alerts: resolveSiteTargets(this.notify, site.notify, this.env, where),
    };
    if (site.watch === 'auto') return { ...resolved, watches: [`${origin}/`], watchAuto: true };
    if (site.watch === undefined)
      return new SharedWatchSite(
        this.defaults.watchAuto ? { ...resolved, watchAuto: true } : resolved,
        paths!,
      );
    const own = this.#sharedPaths(site.watch);
    return own === undefined
      ? { ...resolved, watches: normaliseWatches(site.watch, origin, `${where}watch`) }
      : new SharedWatchSite(resolved, own);
  }

  /**
   * A site's own list as paths its origin is put in front of, when each is a plain path
   * (normaliseWatch keeps it as written), shared with every site listing the same paths:
   * a file generated with each site's list written out (3,000 sites × the same 20
   * paths) holds one list, as a top-level one does, not 60,000 URLs made, frozen and
   * carried through the collector at every start (0.15 s of CPU, 15 MB). Undefined for a
   * list that needs normalising (a URL, an encoding, a dot segment).
   */
  #sharedPaths(watch: readonly string[]): readonly string[] | undefined {
    // A validated form kept between commands gives the sites listing the same paths one
    // array (tree-cache.ts): it is looked at once, not joined again for each site.
    if (this.#pathArrays.has(watch)) return this.#pathArrays.get(watch);
    const paths = this.#sharedPathsOf(watch);
    this.#pathArrays.set(watch, paths);
    return paths;
  }

  #sharedPathsOf(watch: readonly string[]): readonly string[] | undefined {
    if (!watch.every(isPlainPath)) return undefined;
    const key = watch.join('\n');
    let paths = this.#pathLists.get(key);
    if (paths === undefined) {
      paths = Object.freeze([...new Set(watch)]);
      this.#pathLists.set(key, paths);
    }
    return paths;
  }
}

const NO_TAGS: readonly string[] = Object.freeze([]);

/**
 * A site's settings made in the UI or API, validated (validate.ts: resolveSiteSettings),
 * resolved against the top-level settings (whose values never read the environment).
 */
export function resolveApiSite(
  config: Pick<Config, 'siteDefaults' | 'notify' | 'presets' | 'registry'>,
  origin: string,
  settings: SiteSettings,
): SiteConfig {
  const resolver = new SiteResolver(
    config.siteDefaults,
    config.notify,
    config.presets,
    {},
    config.registry.active.version.sha256,
  );
  return deepFreeze(resolver.resolve({ ...settings, url: origin }, '', 'api'));
}

/**
 * A site watching the top-level paths: its URLs are made when asked for, so that 100,000
 * sites sharing 20 paths hold 20 strings, not 2 million (and no closure each: the getter
 * is the class's).
 */
class SharedWatchSite implements SiteConfig {
  readonly origin: string;
  readonly name: string | null;
  readonly tags: readonly string[];
  readonly managedBy: SiteConfig['managedBy'];
  readonly agents: readonly AgentSpec[];
  readonly intent: SiteIntent;
  readonly profile: Profile;
  readonly schedule: string;
  readonly alerts: AlertTargets;
  readonly sitemaps: SitemapSource;
  readonly watchAuto?: boolean;
  readonly registry?: string;
  readonly rank?: number;
  readonly #paths: readonly string[];

  constructor(site: Omit<SiteConfig, 'watches'>, paths: readonly string[]) {
    this.origin = site.origin;
    this.name = site.name;
    this.tags = site.tags;
    this.managedBy = site.managedBy;
    this.agents = site.agents;
    this.intent = site.intent;
    this.profile = site.profile;
    this.schedule = site.schedule;
    this.alerts = site.alerts;
    this.sitemaps = site.sitemaps;
    if (site.watchAuto === true) this.watchAuto = true;
    if (site.registry !== undefined) this.registry = site.registry;
    if (site.rank !== undefined) this.rank = site.rank;
    this.#paths = paths;
  }

  get watches(): readonly string[] {
    return this.#paths.map((path) => this.origin + path);
  }

  withAlerts(alerts: AlertTargets): SharedWatchSite {
    return new SharedWatchSite({ ...this, alerts }, this.#paths);
  }

  withIntent(intent: SiteIntent): SharedWatchSite {
    return new SharedWatchSite({ ...this, intent }, this.#paths);
  }
}

/** The site with the intent set in the UI or API (where the file gives it none of its own). */
export function withIntent(site: SiteConfig, intent: SiteIntent): SiteConfig {
  return Object.freeze(
    site instanceof SharedWatchSite ? site.withIntent(intent) : { ...site, intent },
  );
}

/** The site with other alert targets (the default channels made in the UI reach the file's sites). */
export function withAlerts(site: SiteConfig, alerts: AlertTargets): SiteConfig {
  return Object.freeze(
    site instanceof SharedWatchSite ? site.withAlerts(alerts) : { ...site, alerts },
  );
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
