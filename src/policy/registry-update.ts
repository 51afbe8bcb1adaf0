/**
 * What an update of the AI crawler registry means for one site: of the crawlers it adds,
 * which the site's file names, which fall under `*` and whether `*` lets them in, and
 * whether that goes against the file's stance (it keeps crawlers of the same purpose out
 * by name, yet lets the new ones in through `*`). Pure: a file and two registries in, a
 * cause out.
 */
import { compileAgent } from '../robots/index.js';
import type { RobotsTxt } from '../robots/index.js';
import type { Purpose, Registry, RegistryAgent, RegistryVersion } from './registry.js';
import { compareRegistries } from './registry.js';

/** The new crawlers of one purpose, against one site's file. */
export interface RegistryPurposeUpdate {
  readonly purpose: Purpose;
  /** Crawlers of this purpose (in the new registry) the file keeps out of the whole site by name. */
  readonly blockedByName: number;
  /** New crawlers of this purpose the file names (a group of their own). */
  readonly named: readonly string[];
  /** New ones that read `*` and may fetch the home page through it. */
  readonly allowedThroughStar: readonly string[];
  /** New ones that read `*`, which keeps them out of the home page. */
  readonly blockedThroughStar: readonly string[];
  /** The file keeps this purpose's crawlers out by name, yet `*` lets new ones in. */
  readonly contradicts: boolean;
}

/**
 * A registry update, for one site: what the registry gained and lost, and the new
 * crawlers' standing there by purpose. Pairs are empty: the site's file did not change.
 */
export interface RegistryCause {
  readonly type: 'registry';
  readonly version: RegistryVersion;
  readonly previous: RegistryVersion;
  /** Crawlers added to and removed from the registry (all sites alike). */
  readonly added: number;
  readonly removed: readonly string[];
  /** Purposes with new crawlers, training first. */
  readonly purposes: readonly RegistryPurposeUpdate[];
  readonly pairs: readonly never[];
}

const ORDER: readonly Purpose[] = ['training', 'search', 'user', 'agent', 'other'];

/**
 * The update's cause for a site whose file is `robots` (null while it has none: every new
 * crawler then fetches what the site's status allows, and only the counts are said).
 * Null when the registry neither gained nor lost a crawler.
 */
export function registryCause(
  robots: RobotsTxt | null,
  before: { readonly registry: Registry; readonly version: RegistryVersion },
  after: { readonly registry: Registry; readonly version: RegistryVersion },
): RegistryCause | null {
  const { added, removed } = compareRegistries(before.registry, after.registry);
  if (added.length === 0 && removed.length === 0) return null;
  const purposes: RegistryPurposeUpdate[] = [];
  for (const purpose of ORDER) {
    const fresh = added.filter((a) => a.purposes.includes(purpose));
    if (fresh.length === 0) continue;
    purposes.push(standing(robots, purpose, fresh, after.registry));
  }
  return {
    type: 'registry',
    version: after.version,
    previous: before.version,
    added: added.length,
    removed: removed.map((a) => a.token),
    purposes,
    pairs: [],
  };
}

function standing(
  robots: RobotsTxt | null,
  purpose: Purpose,
  fresh: readonly RegistryAgent[],
  registry: Registry,
): RegistryPurposeUpdate {
  if (robots === null)
    return {
      purpose,
      blockedByName: 0,
      named: [],
      allowedThroughStar: [],
      blockedThroughStar: [],
      contradicts: false,
    };
  const isNew = new Set(fresh.map((a) => a.token.toLowerCase()));
  let blockedByName = 0;
  for (const agent of registry.agents) {
    if (!agent.purposes.includes(purpose) || isNew.has(agent.token.toLowerCase())) continue;
    const rules = compileAgent(robots, agent.token);
    if (rules.source === 'specific' && !rules.evaluate('/').allowed) blockedByName++;
  }
  const named: string[] = [];
  const allowedThroughStar: string[] = [];
  const blockedThroughStar: string[] = [];
  for (const agent of fresh) {
    const rules = compileAgent(robots, agent.token);
    if (rules.source === 'specific') named.push(agent.token);
    else if (rules.evaluate('/').allowed) allowedThroughStar.push(agent.token);
    else blockedThroughStar.push(agent.token);
  }
  return {
    purpose,
    blockedByName,
    named,
    allowedThroughStar,
    blockedThroughStar,
    contradicts: blockedByName > 0 && allowedThroughStar.length > 0,
  };
}
