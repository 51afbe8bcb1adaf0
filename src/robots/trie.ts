/**
 * A radix trie over literal path prefixes, generic in what its nodes hold. Every key
 * ends exactly at a node (edges are split where a key ends), so a walk compares whole
 * edge labels with one `startsWith` and never needs to look inside one.
 */
export class TrieNode<T> {
  edges: Map<number, TrieNode<T>> | undefined;
  /** What the keys ending at this node hold. */
  value: T | undefined;

  constructor(public label: string) {}

  /** The child whose label starts with char `c`, if any. */
  next(c: number): TrieNode<T> | undefined {
    return this.edges?.get(c);
  }
}

/** Returns the node where `key` ends, creating and splitting edges as needed. */
export function insert<T>(root: TrieNode<T>, key: string): TrieNode<T> {
  let node = root;
  let i = 0;
  while (i < key.length) {
    const c = key.charCodeAt(i);
    const child = node.next(c);
    if (child === undefined) {
      const leaf = new TrieNode<T>(key.slice(i));
      (node.edges ??= new Map()).set(c, leaf);
      return leaf;
    }
    const label = child.label;
    let common = 1;
    while (
      common < label.length &&
      i + common < key.length &&
      label.charCodeAt(common) === key.charCodeAt(i + common)
    ) {
      common++;
    }
    if (common < label.length) {
      // Split the edge where the key leaves it or ends inside it.
      const middle = new TrieNode<T>(label.slice(0, common));
      child.label = label.slice(common);
      middle.edges = new Map([[child.label.charCodeAt(0), child]]);
      node.edges!.set(c, middle);
      node = middle;
    } else {
      node = child;
    }
    i += common;
  }
  return node;
}

/**
 * Calls `visit` with the node of every key that is a prefix of `path`, shortest first,
 * with the offset where that prefix ends.
 */
export function walk<T>(
  root: TrieNode<T>,
  path: string,
  visit: (node: TrieNode<T>, end: number) => void,
): void {
  let node: TrieNode<T> | undefined = root;
  let i = 0;
  for (;;) {
    visit(node, i);
    if (i === path.length) return;
    node = node.next(path.charCodeAt(i));
    if (node === undefined || !path.startsWith(node.label, i)) return;
    i += node.label.length;
  }
}
