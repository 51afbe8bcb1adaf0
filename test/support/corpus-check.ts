/**
 * Differential check of the engine against the reference port on one real robots.txt
 * file: URLs are derived from the file's own rules so that many of them match.
 */
import {
  compileAgent,
  MAX_ROBOTS_BYTES,
  parseRobotsTxt,
  PROFILES,
} from '../../src/robots/index.js';
import { referenceAllowedByRobots } from './reference-matcher.js';

export interface Disagreement {
  agent: string;
  url: string;
  ours: { allowed: boolean; line: number };
  reference: { allowed: boolean; line: number };
}

const AGENTS = ['Googlebot', 'Bingbot', 'GPTBot', 'SomeRandomBot'];

/** URLs built from the patterns of a parsed file: wildcards filled in, anchors dropped. */
export function urlsFromRules(bytes: Uint8Array, limit: number): string[] {
  const parsed = parseRobotsTxt(bytes);
  const urls = new Set<string>(['https://example.com/', 'https://example.com/robots.txt']);
  for (const group of parsed.groups) {
    for (const rule of group.rules) {
      if (urls.size >= limit) return [...urls];
      const path = rule.match.replace(/\*/g, 'x').replace(/\$$/, '');
      if (!path.startsWith('/')) continue;
      urls.add(`https://example.com${path}`);
      urls.add(`https://example.com${path}/extra?q=1`);
      urls.add(`https://example.com${path.slice(0, Math.max(1, path.length - 1))}`);
    }
  }
  return [...urls];
}

/** Compares verdicts and deciding lines for a few agents (plus the file's first) on derived URLs. */
export function compareWithReference(bytes: Uint8Array, urlLimit = 40): Disagreement[] {
  // The reference parser reads what the fetcher gives it; Google's fetcher stops at 500 KiB.
  const body = bytes.subarray(0, MAX_ROBOTS_BYTES);
  const parsed = parseRobotsTxt(body);
  const firstNamed = parsed.groups
    .flatMap((g) => g.agents)
    .find((a) => !a.global && a.token !== '');
  const agents = firstNamed ? [...AGENTS, firstNamed.token] : AGENTS;
  const urls = urlsFromRules(body, urlLimit);
  const disagreements: Disagreement[] = [];
  for (const agent of agents) {
    const scanned = compileAgent(parsed, agent, { indexAfter: Infinity });
    const indexed = compileAgent(parsed, agent, { indexAfter: 0 });
    for (const url of urls) {
      const reference = referenceAllowedByRobots(body, agent, url);
      for (const verdict of [scanned.evaluate(url), indexed.evaluate(url)]) {
        const ours = { allowed: verdict.allowed, line: verdict.rule?.line ?? 0 };
        const expected = {
          allowed: reference.allowed,
          line: reference.priority > 0 ? reference.line : 0,
        };
        if (ours.allowed !== expected.allowed || ours.line !== expected.line) {
          disagreements.push({ agent, url, ours, reference: expected });
        }
      }
    }
  }
  return disagreements;
}

/** Parses under every profile and evaluates a URL, to prove nothing throws. */
export function parseUnderEveryProfile(bytes: Uint8Array): void {
  for (const profile of PROFILES) {
    const parsed = parseRobotsTxt(bytes, { profile });
    compileAgent(parsed, 'Googlebot').evaluate('https://example.com/some/path?q=1');
  }
}
