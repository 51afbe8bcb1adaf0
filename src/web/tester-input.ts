import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ConfigError } from '../config/config.js';
import { normaliseWatch } from '../config/urls.js';
import type { WatchedAgent } from '../policy/verdicts.js';
import { isProfile, isValidProductToken } from '../robots/index.js';
import type { TesterRefused } from '../monitor/threads/tester-thread.js';
import { TESTER_LIMITS } from '../monitor/threads/tester-thread.js';
import { grouped } from '../policy/wording/words.js';

const MAX_AGENTS = TESTER_LIMITS.agents;
const MAX_URLS = TESTER_LIMITS.urls;

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
      if (line.length > TESTER_LIMITS.urlChars)
        throw new HTTPException(422, {
          message: `urls, line ${i + 1}: a URL of ${line.length} characters is too long (at most ${TESTER_LIMITS.urlChars})`,
        });
      if (origin !== undefined) urls.push(normaliseWatch(line, origin));
      else {
        if (!/^https?:\/\//i.test(line))
          throw new ConfigError(`"${line}" must be an absolute http(s) URL when no site is chosen`);
        const url = new URL(line);
        urls.push(url.href.split('#')[0]!);
      }
    } catch (error) {
      if (error instanceof HTTPException) throw error;
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

/**
 * What a test may ask: 413 for a file larger than Google reads, 422 for more verdicts than
 * one table holds.
 */
export function checkTestSize(robotsBytes: number, urls: number, agents: number): void {
  if (robotsBytes > TESTER_LIMITS.robotsBytes)
    throw new HTTPException(413, {
      message: `the robots.txt is ${grouped(robotsBytes)} bytes; Google reads only the first ${grouped(TESTER_LIMITS.robotsBytes)}, so test at most that`,
    });
  if (urls * agents > TESTER_LIMITS.cells)
    throw new HTTPException(422, {
      message: `${urls} URLs × ${agents} crawlers is ${grouped(urls * agents)} verdicts; test at most ${grouped(TESTER_LIMITS.cells)} at a time`,
    });
}

/** A test the tester's thread refused, as the HTTP answer that says why. */
export function refusal(c: Context, error: TesterRefused): HTTPException {
  if (error.reason !== 'busy') return new HTTPException(422, { message: error.message });
  c.header('retry-after', '60');
  return new HTTPException(503, { message: error.message });
}
