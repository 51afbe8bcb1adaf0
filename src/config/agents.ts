import type { Registry } from '../policy/registry.js';
import { PURPOSES, registryPresets } from '../policy/registry.js';
import { SEARCH_CRAWLERS } from '../policy/crawlers.js';

/**
 * The built-in presets' names: `@search` (search engines), `@ai` (every crawler in the AI
 * registry), `@ai-major` (the major operators'), one per purpose, and `@operator:<name>`
 * for each of the registry's operators.
 */
export const BUILT_IN_PRESETS: readonly string[] = [
  '@search',
  '@ai',
  '@ai-major',
  ...PURPOSES.filter((p) => p !== 'other').map((p) => `@ai-${p}`),
];

/**
 * The operators whose AI crawlers are watched by default (`@ai-major`): the companies
 * behind the assistants, models and datasets most of the web's AI traffic comes from.
 * A product choice; their crawlers come from the registry, so a crawler such an operator
 * adds is watched once the registry lists it. Watching all 160 by default costs a first
 * check five times as much (see docs/ai-registry.md).
 */
export const MAJOR_AI_OPERATORS: readonly string[] = [
  'openai',
  'anthropic',
  'google',
  'perplexity',
  'meta',
  'apple',
  'amazon',
  'bytedance',
  'common-crawl-foundation',
  'cohere',
  'mistral',
  'deepseek',
];

/** Whether a preset name is built in (the file and the UI cannot define it). */
export function isBuiltInPreset(name: string): boolean {
  return BUILT_IN_PRESETS.includes(name) || name.startsWith('@operator:');
}

/**
 * The built-in crawler presets, the AI ones from a registry: `@ai` is all of its crawlers,
 * `@ai-training` … those of a purpose (empty when it has none), `@operator:openai` … an
 * operator's.
 */
export function builtInPresets(registry: Registry): Record<string, readonly string[]> {
  const fromRegistry = registryPresets(registry);
  const presets: Record<string, readonly string[]> = {
    '@search': SEARCH_CRAWLERS,
    '@ai': registry.agents.map((a) => a.token),
    '@ai-major': registry.agents
      .filter((a) => a.operatorSlug !== null && MAJOR_AI_OPERATORS.includes(a.operatorSlug))
      .map((a) => a.token),
  };
  for (const name of BUILT_IN_PRESETS.slice(3)) presets[name] = fromRegistry[name] ?? [];
  for (const [name, tokens] of Object.entries(fromRegistry))
    if (name.startsWith('@operator:')) presets[name] = tokens;
  return presets;
}

/** Agents watched when the configuration names none. */
export const DEFAULT_AGENTS: readonly string[] = ['@search', '@ai-major', '*'];
