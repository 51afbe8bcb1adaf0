/**
 * Text the database cannot keep. PostgreSQL refuses a NUL character in text and in JSON
 * (`\u0000`), and JSON holding half of a UTF-16 surrogate pair (`\ud800` alone), which
 * JavaScript strings may carry but Unicode text may not. Settings are stored as they are
 * written, so such text is refused where it is read, naming where it is.
 */

/** Why a string cannot be stored, or undefined when it can. */
export function unstorableText(value: string): string | undefined {
  if (value.includes('\0')) return 'must not contain a NUL character (\\u0000)';
  const lone = LONE_SURROGATE.exec(value);
  if (lone !== null)
    return `must be Unicode text: it has half of a surrogate pair (\\u${lone[0].charCodeAt(0).toString(16)}) alone`;
  return undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Where a value sits: its key in its parent (the path is made only for a refusal). */
interface Place {
  readonly parent: Place | undefined;
  readonly key: string | number;
}

function pathOf(place: Place | undefined, prefix: string): string {
  const parts: (string | number)[] = [];
  for (let at = place; at !== undefined; at = at.parent) parts.push(at.key);
  let out = prefix;
  for (const part of parts.reverse())
    out += typeof part === 'number' ? `[${part}]` : `${out === '' ? '' : '.'}${part}`;
  return out === '' ? '(top level)' : out;
}

/**
 * The first string (a value or a key) in a JSON-like value that cannot be stored, as
 * "key.path[2]: why", or undefined. `prefix` is the path of `value` itself. Walks without
 * recursion: a hostile body may nest a hundred thousand lists.
 */
export function findUnstorableText(value: unknown, prefix = ''): string | undefined {
  const stack: { value: unknown; place: Place | undefined }[] = [{ value, place: undefined }];
  while (stack.length > 0) {
    const { value: item, place } = stack.pop()!;
    if (typeof item === 'string') {
      const problem = unstorableText(item);
      if (problem !== undefined) return `${pathOf(place, prefix)}: ${problem}`;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--)
        stack.push({ value: item[i] as unknown, place: { parent: place, key: i } });
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>);
      for (const [key] of entries) {
        const problem = unstorableText(key);
        if (problem !== undefined) return `${pathOf(place, prefix)}: a key ${problem}`;
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        stack.push({ value: child, place: { parent: place, key } });
      }
    }
  }
  return undefined;
}
