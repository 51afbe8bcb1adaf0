/**
 * Search engines' crawlers, by the product tokens their operators document for robots.txt:
 * the configuration's "@search" preset. AI crawlers come from the registry (registry.ts).
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
