/**
 * Intents set in the UI or API, applied to the sites they are for: the file wins for a
 * site it gives an intent of its own; one the presets no longer allow is said, not used.
 */
import type { Presets, SiteConfig, SiteIntent } from '../../config/config.js';
import { ConfigError, withIntent } from '../../config/config.js';
import { validation } from '../../config/validation.js';
import type { IntentEntry } from '../../policy/intent.js';

export class WebIntents {
  /** As last resolved, by site id (a string: why it is not used). */
  readonly #resolved = new Map<number, { key: string; intent: SiteIntent | string }>();

  /** Forgets what was resolved (the presets may have changed). */
  clear(): void {
    this.#resolved.clear();
  }

  /** The site with its intent set in the UI or API, if any applies. */
  apply(
    id: number,
    site: SiteConfig,
    entries: readonly IntentEntry[] | undefined,
    presets: Presets,
    problems: string[],
  ): SiteConfig {
    if (entries === undefined || site.intent.from === 'site-file') return site;
    const key = `${site.origin}\n${JSON.stringify(entries)}`;
    let known = this.#resolved.get(id);
    if (known === undefined || known.key !== key) {
      try {
        const { rules } = validation().parseIntent(entries, site.origin, presets);
        known = { key, intent: { entries, rules, from: 'web' } };
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        known = {
          key,
          intent: `The intent set in the web for ${site.origin} is not used: ${error.message}`,
        };
      }
      this.#resolved.set(id, known);
    }
    if (typeof known.intent === 'string') {
      problems.push(known.intent);
      return site;
    }
    return withIntent(site, known.intent);
  }
}
