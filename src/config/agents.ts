/**
 * Crawler presets. Tokens are the product tokens the crawlers' operators document
 * for robots.txt.
 */
export const AGENT_PRESETS: Readonly<Record<string, readonly string[]>> = {
  '@search': [
    'Googlebot',
    'Googlebot-Image',
    'Bingbot',
    'DuckDuckBot',
    'Applebot',
    'YandexBot',
    'Baiduspider',
  ],
  '@ai': [
    'GPTBot',
    'ChatGPT-User',
    'OAI-SearchBot',
    'ClaudeBot',
    'Claude-User',
    'Claude-SearchBot',
    'anthropic-ai',
    'CCBot',
    'Google-Extended',
    'PerplexityBot',
    'Perplexity-User',
    'Applebot-Extended',
    'Bytespider',
    'meta-externalagent',
    'Amazonbot',
    'cohere-ai',
  ],
};

/** Agents watched when the configuration names none. */
export const DEFAULT_AGENTS: readonly string[] = ['@search', '@ai', '*'];
