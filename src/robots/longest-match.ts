import type { Verdict } from './compile.js';
import type { RobotsRule } from './parse.js';
import type { Profile } from './profiles.js';
import { insert, TrieNode } from './trie.js';

/** A rule as the scan uses it: the pattern in the profile's comparison form. */
interface ScanRule {
  readonly pattern: string;
  readonly disallow: boolean;
  /** Length of the pattern in octets: longer is more specific. */
  readonly priority: number;
  readonly line: number;
  readonly rule: RobotsRule;
  /** Made when the rule first decides a verdict, then reused. */
  verdict: Verdict | undefined;
}

/** A rule ready for the trie: its literal prefix, then "*"-separated pieces. */
interface PreparedRule extends ScanRule {
  /** The pattern up to its first "*" (all of it if there is none). */
  readonly literal: string;
  /** `prefix`: the path starts with `literal`; `exact`: it is `literal` ("$"); `wild`: see pieces. */
  readonly kind: 'prefix' | 'exact' | 'wild';
  /** For wildcard rules: the literal pieces after the first "*", in order. */
  readonly pieces: readonly string[];
  /** For wildcard rules: the last piece must end the path. */
  readonly anchored: boolean;
  /**
   * For wildcard rules: hashed character pairs of its longest piece, which a path must
   * all contain for the rule to match (see `pairMask`); empty when the pieces are too short.
   */
  readonly pairs: readonly number[];
}

/** Best rule per directive for each kind of rule ending at a trie node. */
interface Slot {
  allow?: PreparedRule;
  disallow?: PreparedRule;
  exactAllow?: PreparedRule;
  exactDisallow?: PreparedRule;
  /** Wildcard rules whose literal prefix ends here, most specific first. */
  wild?: PreparedRule[];
  /** The same rules' priorities and character pairs, for the tight loop of `#walk`. */
  wildTable?: WildTable;
}

/** Wildcard rules as flat arrays: the loop over them reads numbers, not objects. */
interface WildTable {
  readonly priorities: Int32Array;
  /** PAIRS_PER_RULE pair hashes per rule, -1 where it has fewer. */
  readonly pairs: Int32Array;
}

/** Character pairs checked per wildcard rule before its pieces are looked for. */
const PAIRS_PER_RULE = 4;

const ALLOWED: Verdict = { allowed: true, rule: null };

/**
 * Google's and RFC 9309's precedence: the matching rule with the longest pattern wins,
 * and allow wins a tie (seed 000 "Order of precedence", seed 001). Equivalent to the
 * reference's RobotsMatchStrategy::Matches on every pattern, without its per-URL
 * re-parse and without backtracking.
 *
 * The first evaluations scan the rules; once an agent has been asked about
 * `indexAfter` URLs, a trie of literal prefixes is built and each evaluation then walks
 * the path once, checking only the wildcard rules whose literal prefix the path has.
 * The two ways give the same verdicts; the scan spares building an index for an agent
 * asked about a handful of URLs, which is the daemon's usual case.
 */
export class LongestMatch {
  /** The rules with a non-empty pattern, and the "/dir/$" rules Google derives. */
  readonly #rules: ScanRule[] = [];
  readonly #indexAfter: number;
  #evaluations = 0;
  #root: TrieNode<Slot> | undefined;
  readonly #candidates: TrieNode<Slot>[] = [];
  readonly #positions: number[] = [];

  constructor(rules: readonly RobotsRule[], profile: Profile, indexAfter: number) {
    this.#indexAfter = indexAfter;
    for (const rule of rules) {
      // An empty pattern matches with priority 0, which never decides anything.
      if (rule.match.length === 0) continue;
      const disallow = rule.directive === 'disallow';
      this.#rules.push(scanRule(rule.match, disallow, rule));
      if (profile === 'google' && !disallow) {
        // Google: "Allow: /dir/index.htm(l)" also allows "/dir/" itself. The reference
        // tries "/dir/$" only when the pattern did not match; it is always shorter, so
        // adding it as a rule of its own gives the same verdict.
        const slash = rule.match.lastIndexOf('/');
        if (slash !== -1 && rule.match.startsWith('/index.htm', slash)) {
          const pattern = rule.match.slice(0, slash + 1) + '$';
          this.#rules.push(scanRule(pattern, disallow, rule));
        }
      }
    }
  }

  decide(path: string): Verdict {
    if (this.#root === undefined && this.#evaluations++ >= this.#indexAfter)
      this.#root = this.#index();
    return this.#root === undefined ? this.#scan(path) : this.#walk(this.#root, path);
  }

  #scan(path: string): Verdict {
    let allow: ScanRule | undefined;
    let disallow: ScanRule | undefined;
    for (const rule of this.#rules) {
      if (!beats(rule, rule.disallow ? disallow : allow) || !matchesPattern(path, rule.pattern)) {
        continue;
      }
      if (rule.disallow) disallow = rule;
      else allow = rule;
    }
    return decision(allow, disallow);
  }

  #index(): TrieNode<Slot> {
    const root = new TrieNode<Slot>('');
    for (const scanRule of this.#rules) {
      const rule = prepare(scanRule);
      const node = insert(root, rule.literal);
      const slot = (node.value ??= {});
      if (rule.kind === 'wild') (slot.wild ??= []).push(rule);
      else if (rule.kind === 'exact') {
        if (rule.disallow && beats(rule, slot.exactDisallow)) slot.exactDisallow = rule;
        if (!rule.disallow && beats(rule, slot.exactAllow)) slot.exactAllow = rule;
      } else {
        if (rule.disallow && beats(rule, slot.disallow)) slot.disallow = rule;
        if (!rule.disallow && beats(rule, slot.allow)) slot.allow = rule;
      }
    }
    const stack = [root];
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      const wild = node.value?.wild;
      if (wild !== undefined) {
        wild.sort((a, b) => b.priority - a.priority || a.line - b.line);
        const pairs = new Int32Array(wild.length * PAIRS_PER_RULE).fill(-1);
        wild.forEach((rule, j) => pairs.set(rule.pairs, j * PAIRS_PER_RULE));
        node.value!.wildTable = {
          priorities: Int32Array.from(wild, (rule) => rule.priority),
          pairs,
        };
      }
      if (node.edges) for (const child of node.edges.values()) stack.push(child);
    }
    return root;
  }

  #walk(root: TrieNode<Slot>, path: string): Verdict {
    let allow: PreparedRule | undefined;
    let disallow: PreparedRule | undefined;
    const candidates = this.#candidates;
    const positions = this.#positions;
    let count = 0;
    let node: TrieNode<Slot> | undefined = root;
    let i = 0;
    const length = path.length;
    for (;;) {
      const slot = node.value;
      if (slot !== undefined) {
        if (slot.allow !== undefined && beats(slot.allow, allow)) allow = slot.allow;
        if (slot.disallow !== undefined && beats(slot.disallow, disallow)) disallow = slot.disallow;
        if (slot.wild !== undefined) {
          candidates[count] = node;
          positions[count++] = i;
        }
        if (i === length) {
          if (slot.exactAllow !== undefined && beats(slot.exactAllow, allow))
            allow = slot.exactAllow;
          if (slot.exactDisallow !== undefined && beats(slot.exactDisallow, disallow)) {
            disallow = slot.exactDisallow;
          }
        }
      }
      if (i === length) break;
      node = node.next(path.charCodeAt(i));
      if (node === undefined || !path.startsWith(node.label, i)) break;
      i += node.label.length;
    }
    // The wildcard rules whose literal prefix the path has, each only if it could still
    // decide: a rule that cannot beat the best match so far never will, since the best
    // matches only grow. Each node's rules are sorted longest first, so the rest of a
    // node's list is skipped once one cannot. A cheap test of character pairs (the
    // path's, hashed into a bit set once) rules most of the rest out before a scan.
    let mask: Uint32Array | undefined;
    let allowAt = allow === undefined ? -1 : allow.priority;
    let disallowAt = disallow === undefined ? -1 : disallow.priority;
    for (let k = 0; k < count; k++) {
      const from = positions[k]!;
      const slot = candidates[k]!.value!;
      const wild = slot.wild!;
      const { priorities, pairs } = slot.wildTable!;
      for (let j = 0; j < priorities.length; j++) {
        const priority = priorities[j]!;
        if (priority < disallowAt && priority <= allowAt) break;
        const base = j * PAIRS_PER_RULE;
        if (pairs[base]! !== -1) {
          mask ??= pairMaskOf(path);
          if (!hasPairs(mask, pairs, base)) continue;
        }
        const rule = wild[j]!;
        if (
          rule.disallow
            ? priority <= allowAt || !beats(rule, disallow)
            : priority < disallowAt || !beats(rule, allow)
        ) {
          continue;
        }
        if (matchesPieces(path, from, rule.pieces, rule.anchored)) {
          if (rule.disallow) {
            disallow = rule;
            disallowAt = priority;
          } else {
            allow = rule;
            allowAt = priority;
          }
        }
      }
    }
    return decision(allow, disallow);
  }
}

function scanRule(pattern: string, disallow: boolean, rule: RobotsRule): ScanRule {
  // Every rule object gets all its properties at once, in one order, so the hot loops
  // see a single object shape.
  return { pattern, disallow, priority: pattern.length, line: rule.line, rule, verdict: undefined };
}

function prepare(scan: ScanRule): PreparedRule {
  let core = scan.pattern;
  // "$" ends the pattern only as its last character; elsewhere it is literal.
  let anchored = core.endsWith('$');
  if (anchored) core = core.slice(0, -1);
  // Trailing "*" matches anything, including the rest of an anchored path.
  let end = core.length;
  while (end > 0 && core.charCodeAt(end - 1) === 0x2a) end--;
  if (end < core.length) {
    core = core.slice(0, end);
    anchored = false;
  }
  const star = core.indexOf('*');
  const wild = star !== -1;
  const pieces = wild
    ? core
        .slice(star + 1)
        .split('*')
        .filter(Boolean)
    : [];
  const longest = pieces.reduce((a, b) => (b.length > a.length ? b : a), '');
  return {
    pattern: scan.pattern,
    disallow: scan.disallow,
    priority: scan.priority,
    line: scan.line,
    rule: scan.rule,
    verdict: scan.verdict,
    literal: wild ? core.slice(0, star) : core,
    kind: wild ? 'wild' : anchored ? 'exact' : 'prefix',
    pieces,
    anchored,
    pairs: pairsOf(longest),
  };
}

/** Words of the path's pair bit set: 1,024 bits, so a 100-character path sets about a tenth. */
const PAIR_WORDS = 32;

/** The hash of two adjacent characters, a bit index in the pair set. */
function pairHash(a: number, b: number): number {
  return ((a << 5) ^ b) & (PAIR_WORDS * 32 - 1);
}

/** The pair hashes of a piece (PAIRS_PER_RULE at most, spread over it); none under 2 characters. */
function pairsOf(piece: string): number[] {
  const pairs = new Set<number>();
  const last = piece.length - 2;
  if (last < 0) return [];
  const step = Math.max(1, Math.floor(last / (PAIRS_PER_RULE - 1)));
  for (let i = 0; i <= last && pairs.size < PAIRS_PER_RULE; i += step) {
    pairs.add(pairHash(piece.charCodeAt(i), piece.charCodeAt(i + 1)));
  }
  return [...pairs];
}

/**
 * The last path's pair set, kept across rule sets: evaluating one path against many
 * crawlers' rules in a row (coverage does) makes it once.
 */
const lastMask = new Uint32Array(PAIR_WORDS);
let lastMasked: string | undefined;

/** The bit set of every pair of adjacent characters of `path`. */
function pairMaskOf(path: string): Uint32Array {
  if (path !== lastMasked) {
    pairMask(path, lastMask);
    lastMasked = path;
  }
  return lastMask;
}

/** Sets in `mask` the bit of every pair of adjacent characters of `path`. */
function pairMask(path: string, mask: Uint32Array): void {
  mask.fill(0);
  let previous = path.charCodeAt(0);
  for (let i = 1; i < path.length; i++) {
    const c = path.charCodeAt(i);
    const bit = pairHash(previous, c);
    mask[bit >>> 5]! |= 1 << (bit & 31);
    previous = c;
  }
}

/**
 * Whether a rule's pairs (`pairs[base…]`, up to PAIRS_PER_RULE, -1 ending them early) are
 * all in the path's set: if not, no piece holding them occurs in the path.
 */
function hasPairs(mask: Uint32Array, pairs: Int32Array, base: number): boolean {
  for (let i = base; i < base + PAIRS_PER_RULE; i++) {
    const bit = pairs[i]!;
    if (bit === -1) return true;
    if ((mask[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
  }
  return true;
}

/** Longest match wins; on equal length the earlier line. */
function beats(a: ScanRule, b: ScanRule | undefined): boolean {
  return (
    b === undefined || a.priority > b.priority || (a.priority === b.priority && a.line < b.line)
  );
}

/** The longer match decides; allow wins a tie. */
function decision(allow: ScanRule | undefined, disallow: ScanRule | undefined): Verdict {
  if (disallow !== undefined && (allow === undefined || disallow.priority > allow.priority)) {
    return verdictOf(disallow);
  }
  return allow === undefined ? ALLOWED : verdictOf(allow);
}

function verdictOf(prepared: ScanRule): Verdict {
  const { directive, pattern, line } = prepared.rule;
  return (prepared.verdict ??= { allowed: !prepared.disallow, rule: { directive, pattern, line } });
}

/**
 * Whether `pattern` ("*" matches any run of characters, a final "$" ends the path)
 * matches a prefix of `path`, without allocating: the same greedy piece-by-piece match
 * as `matchesPieces`, reading the pieces in place.
 */
export function matchesPattern(path: string, pattern: string): boolean {
  let end = pattern.length;
  let anchored = pattern.charCodeAt(end - 1) === 0x24;
  if (anchored) end--;
  // Trailing "*" matches anything, including the rest of an anchored path.
  if (pattern.charCodeAt(end - 1) === 0x2a) {
    anchored = false;
    while (end > 0 && pattern.charCodeAt(end - 1) === 0x2a) end--;
  }
  let star = pattern.indexOf('*');
  if (star === -1 || star >= end) {
    // A literal: a prefix of the path, or all of it when anchored.
    return anchored
      ? path.length === end && pattern.startsWith(path)
      : startsWithRange(path, 0, pattern, 0, end);
  }
  if (!startsWithRange(path, 0, pattern, 0, star)) return false;
  let pos = star;
  for (;;) {
    const from = star + 1;
    const next = pattern.indexOf('*', from);
    const to = next === -1 || next > end ? end : next;
    if (to > from) {
      if (anchored && to === end) {
        const at = path.length - (to - from);
        return at >= pos && startsWithRange(path, at, pattern, from, to);
      }
      const at = indexOfRange(path, pos, pattern, from, to);
      if (at === -1) return false;
      pos = at + (to - from);
    }
    if (to === end) return true; // an anchored last piece returned above
    star = to;
  }
}

/** Whether `path` has `pattern[from, to)` at offset `at`. */
function startsWithRange(
  path: string,
  at: number,
  pattern: string,
  from: number,
  to: number,
): boolean {
  if (path.length - at < to - from) return false;
  for (let i = from; i < to; i++)
    if (path.charCodeAt(at + i - from) !== pattern.charCodeAt(i)) return false;
  return true;
}

/** First offset at or after `pos` where `path` has `pattern[from, to)`, or -1. */
function indexOfRange(
  path: string,
  pos: number,
  pattern: string,
  from: number,
  to: number,
): number {
  const length = to - from;
  const first = pattern.charCodeAt(from);
  for (let at = pos; at + length <= path.length; at++) {
    if (path.charCodeAt(at) === first && startsWithRange(path, at, pattern, from, to)) return at;
  }
  return -1;
}

/**
 * Whether `pieces` (the parts of a pattern between its "*"s, after the literal prefix
 * that ends at `from`) occur in order in `path`. Taking the leftmost occurrence of each
 * piece is always right for "*"-only patterns, so there is no backtracking: the cost is
 * at most one scan of the path per piece.
 */
function matchesPieces(
  path: string,
  from: number,
  pieces: readonly string[],
  anchored: boolean,
): boolean {
  let pos = from;
  const last = pieces.length - 1;
  for (let k = 0; k <= last; k++) {
    const piece = pieces[k]!;
    if (anchored && k === last) return path.length - piece.length >= pos && path.endsWith(piece);
    const at = path.indexOf(piece, pos);
    if (at === -1) return false;
    pos = at + piece.length;
  }
  return true;
}
