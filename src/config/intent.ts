/**
 * Intent entries (`intent:` at the top of the file, per site, or set in the UI and API)
 * checked and resolved: paths normalised as crawlers request them, presets expanded to
 * their crawlers' tokens. Throws ConfigError with one line naming the key.
 */
import type { IntentEntry, IntentRule } from '../policy/intent.js';
import { pathOf } from '../policy/intent.js';
import { ConfigError } from './errors.js';
import { normaliseWatch } from './urls.js';
import type { Presets } from './config.js';

/** Where a site's intent comes from. */
export type IntentSource = 'built-in' | 'file' | 'site-file' | 'web';

/** A site's intent: as written (for people and the API) and resolved (for judging). */
export interface SiteIntent {
  readonly entries: readonly IntentEntry[];
  readonly rules: readonly IntentRule[];
  /**
   * `built-in`: no entry anywhere, the default rule; `file`: the file's top-level
   * `intent`; `site-file`: the site's own in the file (the UI and API cannot change it);
   * `web`: set in the UI or API.
   */
  readonly from: IntentSource;
}

const PLACEHOLDER = 'http://robowatch.invalid';

/**
 * Resolves entries against the presets; `origin` (a site's) lets an entry name an
 * absolute URL of the site, else only paths are accepted (the top-level intent).
 */
export function resolveIntent(
  entries: readonly IntentEntry[],
  origin: string | null,
  presets: Presets,
  where: string,
): IntentRule[] {
  return entries.map((entry, i) => {
    const at = `${where}[${i}]`;
    const prefix = entry.watch.endsWith('*');
    const written = prefix ? entry.watch.slice(0, -1) : entry.watch;
    let path: string;
    if (written === '') path = '/';
    else {
      if (origin === null && !written.startsWith('/'))
        throw new ConfigError(`${at}.watch: "${entry.watch}" must be a path starting with "/"`);
      try {
        path = pathOf(normaliseWatch(written, origin ?? PLACEHOLDER));
      } catch (error) {
        if (error instanceof ConfigError) throw new ConfigError(`${at}.watch: ${error.message}`);
        throw error;
      }
    }
    const tokens = new Set<string>();
    entry.agents.forEach((agent, j) => {
      if (agent.startsWith('@')) {
        const members = Object.hasOwn(presets, agent) ? presets[agent] : undefined;
        if (members === undefined)
          throw new ConfigError(
            `${at}.agents[${j}]: unknown preset "${agent}" (robowatch registry and the crawlers page list them)`,
          );
        for (const token of members) tokens.add(token.toLowerCase());
      } else tokens.add(agent.toLowerCase());
    });
    return { path, prefix, tokens: [...tokens], expect: entry.expect };
  });
}
