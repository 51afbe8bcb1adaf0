/**
 * A webhook URL as logs and stored errors may show it: its origin only, since the path of
 * many (Slack's, Discord's) is itself the secret.
 */
export function redactUrl(url: string): string {
  try {
    const { origin, pathname, search } = new URL(url);
    return pathname === '/' && search === '' ? origin : `${origin}/…`;
  } catch {
    return '(not a URL)';
  }
}
