import { HTTPException } from 'hono/http-exception';
import { ConfigError, normaliseWatch } from '../config/config.js';
import type { WatchedAgent } from '../policy/verdicts.js';
import { isProfile, isValidProductToken } from '../robots/index.js';

const MAX_AGENTS = 50;
const MAX_URLS = 1000;

const bad = (message: string) => new HTTPException(400, { message });

/** "Googlebot", "OldBot legacy", "*": one agent per line, with an optional profile. */
export function parseAgents(lines: readonly string[]): WatchedAgent[] {
  const agents: WatchedAgent[] = [];
  for (const [i, line] of lines.entries()) {
    const [token, profile = 'google', extra] = line.trim().split(/\s+/);
    if (token === undefined || token === '') continue;
    if (extra !== undefined || (token !== '*' && !isValidProductToken(token)))
      throw bad(
        `agents, line ${i + 1}: "${line.trim()}" is not a crawler token (letters, "-", "_") or "*", then optionally a profile`,
      );
    if (!isProfile(profile))
      throw bad(
        `agents, line ${i + 1}: the profile must be google, rfc9309 or legacy, not "${profile}"`,
      );
    agents.push({ token, profile });
  }
  if (agents.length === 0) throw bad('agents: name at least one crawler');
  if (agents.length > MAX_AGENTS) throw bad(`agents: at most ${MAX_AGENTS} at a time`);
  return agents;
}

/** Paths on `origin` or absolute URLs, one per line, normalised as a crawler requests them. */
export function parseUrls(lines: readonly string[], origin: string | undefined): string[] {
  const urls: string[] = [];
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    try {
      if (origin !== undefined) urls.push(normaliseWatch(line, origin));
      else {
        if (!/^https?:\/\//i.test(line))
          throw new ConfigError(`"${line}" must be an absolute http(s) URL when no site is chosen`);
        const url = new URL(line);
        urls.push(url.href.split('#')[0]!);
      }
    } catch (error) {
      throw bad(
        `urls, line ${i + 1}: ${error instanceof ConfigError ? error.message : `"${line}" is not a valid URL`}`,
      );
    }
  }
  if (urls.length === 0) throw bad('urls: give at least one URL');
  if (urls.length > MAX_URLS) throw bad(`urls: at most ${MAX_URLS} at a time`);
  return [...new Set(urls)];
}

export const lines = (text: string) => text.split(/\r\n|\r|\n/);
