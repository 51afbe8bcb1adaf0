/**
 * The digest's standings: AI crawlers by purpose and operator, coverage, registry updates.
 * Pure.
 */
import { compileAgent, parseRobotsTxt } from '../robots/index.js';
import { findContradictions } from './contradictions.js';
import type { Purpose, Registry } from './registry.js';
import type { DigestSiteInput, CoverageStanding, RegistryUpdate } from './digest.js';

/** The registry updates the sites' findings speak of, once each. */
export function registryUpdates(inputs: readonly DigestSiteInput[]): RegistryUpdate[] {
  const updates = new Map<string, RegistryUpdate>();
  for (const input of inputs)
    for (const { at, cause } of input.registry ?? []) {
      const key = cause.version.sha256;
      const against = cause.purposes.some((p) => p.contradicts) ? 1 : 0;
      const known = updates.get(key);
      updates.set(
        key,
        known === undefined
          ? {
              at,
              version: cause.version,
              previous: cause.previous,
              added: cause.added,
              removed: cause.removed,
              against,
            }
          : { ...known, against: known.against + against },
      );
    }
  return [...updates.values()].sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** A body as a map key (its bytes as a binary string). */
export function bodyKey(body: Uint8Array): string {
  let key = '';
  for (let i = 0; i < body.length; i += 8192)
    key += String.fromCharCode(...body.subarray(i, i + 8192));
  return key;
}

/** For each purpose, how the registry's crawlers of that purpose stand at the site's root. */
export interface PurposeStanding {
  readonly purpose: Purpose;
  /** May not fetch the home page. */
  readonly blocked: number;
  /** May, through the `*` group (or no group at all). */
  readonly throughStar: number;
  /** May, by a group that names them. */
  readonly named: number;
  /** Crawlers whose rules contradict the usage lines (see contradictions.ts). */
  readonly contradictions: number;
  /** The operators of the crawlers allowed through `*`, most crawlers first (a few). */
  readonly starOperators: readonly string[];
}

/** An operator's crawlers in the registry against a site's file: how many may not fetch its home page. */
export interface OperatorStanding {
  readonly operator: string;
  readonly crawlers: number;
  readonly blocked: number;
}

/** Operators with at least this many crawlers in the registry are said one by one. */
const OPERATORS_SAID = 8;

/** The registry's operators with the most crawlers, against the site's file. */
export function operatorStandings(input: DigestSiteInput, registry: Registry): OperatorStanding[] {
  if (input.body === null || input.now === null) return [];
  const parsed = parseRobotsTxt(input.body, { profile: input.profile, lint: false });
  const byOperator = new Map<string, { crawlers: number; blocked: number }>();
  for (const agent of registry.agents) {
    if (agent.operator === null) continue;
    const known = byOperator.get(agent.operator) ?? { crawlers: 0, blocked: 0 };
    known.crawlers++;
    if (!compileAgent(parsed, agent.token).evaluate('/').allowed) known.blocked++;
    byOperator.set(agent.operator, known);
  }
  return [...byOperator]
    .sort((a, b) => b[1].crawlers - a[1].crawlers || (a[0] < b[0] ? -1 : 1))
    .slice(0, OPERATORS_SAID)
    .map(([operator, c]) => ({ operator, ...c }));
}

/** The registry's crawlers by purpose against the site's file; none without a file. */
export function purposeStandings(input: DigestSiteInput, registry: Registry): PurposeStanding[] {
  if (input.body === null || input.now === null) return [];
  const parsed = parseRobotsTxt(input.body, { profile: input.profile, lint: false });
  const contradicting = new Set(
    findContradictions(parsed, registry).flatMap((c) =>
      c.agents.map((a) => `${c.purpose}\n${a.toLowerCase()}`),
    ),
  );
  const standings: PurposeStanding[] = [];
  for (const purpose of ['training', 'search', 'user', 'agent'] as const) {
    const agents = registry.agents.filter((a) => a.purposes.includes(purpose));
    if (agents.length === 0) continue;
    let blocked = 0;
    let throughStar = 0;
    let named = 0;
    let contradictions = 0;
    const operators = new Map<string, number>();
    for (const agent of agents) {
      const rules = compileAgent(parsed, agent.token);
      if (contradicting.has(`${purpose}\n${agent.token.toLowerCase()}`)) contradictions++;
      if (!rules.evaluate('/').allowed) blocked++;
      else if (rules.source === 'specific') named++;
      else {
        throughStar++;
        if (agent.operator !== null)
          operators.set(agent.operator, (operators.get(agent.operator) ?? 0) + 1);
      }
    }
    standings.push({
      purpose,
      blocked,
      throughStar,
      named,
      contradictions,
      starOperators: [...operators]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([name]) => name)
        .slice(0, 3),
    });
  }
  return standings;
}

/** Each crawler's sitemap URLs allowed at the end, with the start; crawlers alike together. */
export function coverageStandings(input: DigestSiteInput): CoverageStanding[] {
  const end = input.coverage?.end;
  if (end === null || end === undefined) return [];
  const start = input.coverage?.start ?? null;
  const groups = new Map<string, { agents: string[]; value: Omit<CoverageStanding, 'agents'> }>();
  for (const agent of input.agents) {
    const allowed = end.allowed[agent.token];
    if (allowed === undefined) continue;
    const was = start?.allowed[agent.token];
    const value = {
      urls: end.urls,
      allowed,
      before: start === null || was === undefined ? null : { urls: start.urls, allowed: was },
    };
    const key = JSON.stringify(value);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { agents: [agent.token], value });
    else group.agents.push(agent.token);
  }
  return [...groups.values()].map(({ agents, value }) => ({ agents, ...value }));
}
