import { AI_CRAWLERS, SEARCH_CRAWLERS } from '../policy/crawlers.js';

/** Crawler presets for the configuration's agent lists. */
export const AGENT_PRESETS: Readonly<Record<string, readonly string[]>> = {
  '@search': SEARCH_CRAWLERS,
  '@ai': AI_CRAWLERS,
};

/** Agents watched when the configuration names none. */
export const DEFAULT_AGENTS: readonly string[] = ['@search', '@ai', '*'];
