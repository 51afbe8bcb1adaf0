/**
 * Well-known crawlers by purpose, by the product tokens their operators document for
 * robots.txt. The configuration's "@search" and "@ai" presets; the digest's AI section.
 */
export const SEARCH_CRAWLERS: readonly string[] = [
  'Googlebot',
  'Googlebot-Image',
  'Bingbot',
  'DuckDuckBot',
  'Applebot',
  'YandexBot',
  'Baiduspider',
];

export const AI_CRAWLERS: readonly string[] = [
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
];

/** Whether a token names an AI crawler (case-insensitively, as robots.txt does). */
export function isAiCrawler(token: string): boolean {
  const lower = token.toLowerCase();
  return AI_CRAWLERS.some((t) => t.toLowerCase() === lower);
}
