/**
 * A snapshot's verdicts in their compact stored form (the verdict_sets table): distinct
 * URLs, agents and causes, and one number per (URL, agent) cell. Encoding and decoding
 * are pure and inverse: decode(encode(v)) holds the same verdicts, URL by URL or crawler by
 * crawler.
 */
import type { Profile } from '../robots/index.js';
import { causeKey, computedCells } from './verdicts.js';
import type { VerdictCause, VerdictCells, VerdictLookup, WatchVerdict } from './verdicts.js';

/**
 * A set as stored: its cells (-1 where a URL has no verdict for a crawler), its crawlers'
 * profiles as the table holds them, and counts.
 */
export interface VerdictSet extends Omit<VerdictCells, 'profiles'> {
  readonly profiles: readonly string[];
  /** Per agent, in code-point order: watched URLs disallowed, of how many. */
  readonly counts: { agent: string; disallowed: number; watched: number }[];
}

/** No verdict for this (URL, agent). */
const NONE = -1;

export function encodeVerdicts(rows: readonly WatchVerdict[]): VerdictSet {
  // A check's verdicts come with their cells, made as they were computed.
  const computed = computedCells(rows);
  return computed === undefined ? encodeRows(rows) : withCounts(computed);
}

/** A computed set with what the overview counts: each crawler's URLs disallowed, of how many. */
function withCounts(set: VerdictCells): VerdictSet {
  const width = set.agents.length;
  const counts = set.agents.map((agent) => ({ agent, disallowed: 0, watched: 0 }));
  set.cells.forEach((cell, k) => {
    const count = counts[k % width]!;
    count.watched++;
    if ((cell & 1) === 0) count.disallowed++;
  });
  return { ...set, counts: counts.sort(byAgent) };
}

const byAgent = (a: { agent: string }, b: { agent: string }) =>
  a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0;

function encodeRows(rows: readonly WatchVerdict[]): VerdictSet {
  const urls = new Map<string, number>();
  const agents = new Map<string, number>();
  const profiles: string[] = [];
  const causes = new Map<string, number>();
  const causeList: VerdictCause[] = [];
  const indexOf = new Map<VerdictCause, number>();
  // Each row's cause index, found once: rows share few causes (a rule, an access).
  const causeOf = new Int32Array(rows.length);
  // Each row's URL and agent index, found once; a check lists each agent's rows together,
  // so the agent is looked up once per run of rows.
  const urlOf = new Int32Array(rows.length);
  const agentOf = new Int32Array(rows.length);
  let lastAgent: string | undefined;
  let lastAgentIndex = -1;
  // URLs in the order first met. Each agent's run lists the watches in the same order: the
  // URL at the same place in the run is tried before a lookup.
  const urlList: string[] = [];
  let runStart = 0;
  rows.forEach((row, i) => {
    if (row.agent !== lastAgent) {
      let agent = agents.get(row.agent);
      if (agent === undefined) {
        agents.set(row.agent, (agent = agents.size));
        profiles.push(row.profile);
      }
      lastAgent = row.agent;
      lastAgentIndex = agent;
      runStart = i;
    }
    agentOf[i] = lastAgentIndex;
    const place = i - runStart;
    let url = place < urlList.length && urlList[place] === row.url ? place : urls.get(row.url);
    if (url === undefined) {
      urls.set(row.url, (url = urls.size));
      urlList.push(row.url);
    }
    urlOf[i] = url;
    if (row.cause === null) return;
    // The URLs one rule decides share its cause object: its key is built once.
    let index = indexOf.get(row.cause);
    if (index === undefined) {
      const key = causeKey(row.cause);
      index = causes.get(key);
      if (index === undefined) {
        causes.set(key, (index = causes.size + 1));
        causeList.push(row.cause);
      }
      indexOf.set(row.cause, index);
    }
    causeOf[i] = index;
  });
  const width = agents.size;
  const cells = new Array<number>(urls.size * width).fill(NONE);
  const counts = [...agents.keys()].map((agent) => ({ agent, disallowed: 0, watched: 0 }));
  rows.forEach((row, i) => {
    const agent = agentOf[i]!;
    cells[urlOf[i]! * width + agent] = causeOf[i]! * 2 + (row.allowed ? 1 : 0);
    const count = counts[agent]!;
    count.watched++;
    if (!row.allowed) count.disallowed++;
  });
  return {
    urls: urlList,
    agents: [...agents.keys()],
    profiles,
    causes: causeList,
    cells,
    counts: counts.sort(byAgent),
  };
}

/**
 * The set's verdicts, URL by URL (each URL's crawlers together, as exports list them), or
 * crawler by crawler: the order a check computes them in, so that comparing a new state
 * with this one pairs the verdicts by position rather than by a lookup each.
 */
export function decodeVerdicts(
  set: Omit<VerdictSet, 'counts'>,
  order: 'by-url' | 'by-agent' = 'by-url',
): WatchVerdict[] {
  const rows: WatchVerdict[] = [];
  const width = set.agents.length;
  const add = (i: number, j: number) => {
    const cell = set.cells[i * width + j] ?? NONE;
    if (cell < 0) return;
    const index = cell >> 1;
    rows.push({
      url: set.urls[i]!,
      agent: set.agents[j]!,
      profile: set.profiles[j] as Profile,
      allowed: (cell & 1) === 1,
      cause: index === 0 ? null : set.causes[index - 1]!,
    });
  };
  if (order === 'by-url') {
    for (let i = 0; i < set.urls.length; i++) for (let j = 0; j < width; j++) add(i, j);
  } else {
    for (let j = 0; j < width; j++) for (let i = 0; i < set.urls.length; i++) add(i, j);
  }
  return rows;
}

/**
 * A stored set as a new state's verdicts are compared with it (the state before a changed
 * check's): each counterpart read from its cell, and made a verdict only when asked for
 * (a pair that flipped), not 160 verdicts a state of which a few differ.
 */
export class StoredVerdicts implements VerdictLookup {
  readonly #set: Omit<VerdictSet, 'counts'>;
  #urls: Map<string, number> | undefined;
  #agents: Map<string, number> | undefined;

  constructor(set: Omit<VerdictSet, 'counts'>) {
    this.#set = set;
  }

  allowed(verdict: Pick<WatchVerdict, 'url' | 'agent'>, i: number): boolean | undefined {
    const cell = this.#cellOf(verdict, i);
    return cell < 0 ? undefined : (this.#set.cells[cell]! & 1) === 1;
  }

  find(verdict: Pick<WatchVerdict, 'url' | 'agent'>, i: number): WatchVerdict | undefined {
    const at = this.#cellOf(verdict, i);
    if (at < 0) return undefined;
    const { urls, agents, profiles, causes, cells } = this.#set;
    const width = agents.length;
    const cell = cells[at]!;
    const index = cell >> 1;
    return {
      url: urls[Math.floor(at / width)]!,
      agent: agents[at % width]!,
      profile: profiles[at % width] as Profile,
      allowed: (cell & 1) === 1,
      cause: index === 0 ? null : causes[index - 1]!,
    };
  }

  flipsOf(computed: VerdictCells): number[] | null {
    const { urls, agents, cells } = this.#set;
    const width = agents.length;
    if (!sameList(urls, computed.urls) || !sameList(agents, computed.agents)) return null;
    const places: number[] = [];
    // A computed list is crawler by crawler, each in the order of the URLs.
    for (let a = 0; a < width; a++)
      for (let u = 0; u < urls.length; u++) {
        const at = u * width + a;
        const was = cells[at] ?? NONE;
        const now = computed.cells[at]!;
        if (was >= 0 && (was & 1) !== (now & 1)) places.push(a * urls.length + u);
      }
    return places;
  }

  /**
   * Where the counterpart's cell is, or -1 if there is none. A check computes verdicts
   * crawler by crawler, each in the order of the watches: the i-th verdict of a state with
   * the same watches and crawlers is at (URL i mod URLs, crawler i div URLs).
   */
  #cellOf(verdict: Pick<WatchVerdict, 'url' | 'agent'>, i: number): number {
    const { urls, agents, cells } = this.#set;
    const width = agents.length;
    const u = urls.length === 0 ? 0 : i % urls.length;
    const a = urls.length === 0 ? 0 : (i - u) / urls.length;
    let at: number;
    if (a < width && urls[u] === verdict.url && agents[a] === verdict.agent) at = u * width + a;
    else {
      this.#urls ??= new Map(urls.map((url, k) => [url, k]));
      this.#agents ??= new Map(agents.map((agent, k) => [agent, k]));
      const url = this.#urls.get(verdict.url);
      const agent = this.#agents.get(verdict.agent);
      if (url === undefined || agent === undefined) return -1;
      at = url * width + agent;
    }
    return (cells[at] ?? NONE) < 0 ? -1 : at;
  }
}

/** Whether two lists hold the same strings in the same order (the same list, most often). */
function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
