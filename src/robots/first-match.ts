import type { Verdict } from './compile.js';
import type { RobotsRule } from './parse.js';
import { insert, TrieNode, walk } from './trie.js';

interface Entry {
  readonly line: number;
  readonly verdict: Verdict;
}

const ALLOWED: Verdict = { allowed: true, rule: null };

/**
 * The 1996 standard's precedence (seed 004): rules in order, the first whose path is a
 * prefix of the URL's path decides. "*" and "$" have no special meaning. An empty
 * Disallow allows everything (the standard's erratum, DESIGN.md); an empty Allow, like
 * any empty path, matches everything. Scans the rules at first, then indexes them in a
 * trie once asked about `indexAfter` URLs, as LongestMatch does.
 */
export class FirstMatch {
  readonly #rules: RobotsRule[];
  readonly #entries: Entry[];
  readonly #indexAfter: number;
  #evaluations = 0;
  #root: TrieNode<Entry> | undefined;

  constructor(rules: readonly RobotsRule[], indexAfter: number) {
    this.#rules = [...rules];
    this.#indexAfter = indexAfter;
    this.#entries = rules.map((rule) => ({
      line: rule.line,
      verdict: {
        allowed: rule.directive === 'allow' || rule.match.length === 0,
        rule: { directive: rule.directive, pattern: rule.pattern, line: rule.line },
      },
    }));
  }

  decide(path: string): Verdict {
    if (this.#root === undefined && this.#evaluations++ >= this.#indexAfter)
      this.#root = this.#index();
    if (this.#root === undefined) {
      const i = this.#rules.findIndex((rule) => path.startsWith(rule.match));
      return i === -1 ? ALLOWED : this.#entries[i]!.verdict;
    }
    let first: Entry | undefined;
    walk(this.#root, path, (node) => {
      const here = node.value;
      if (here !== undefined && (first === undefined || here.line < first.line)) first = here;
    });
    return first?.verdict ?? ALLOWED;
  }

  #index(): TrieNode<Entry> {
    const root = new TrieNode<Entry>('');
    this.#rules.forEach((rule, i) => {
      const node = insert(root, rule.match);
      node.value ??= this.#entries[i]; // the first rule ending here wins
    });
    return root;
  }
}
