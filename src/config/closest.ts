/** The known key a typo most likely meant: at most one edit (two for long keys) away. */
export function closest(typed: string, known: readonly string[]): string | undefined {
  const limit = typed.length > 6 ? 2 : 1;
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(typed.toLowerCase(), key.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance))
      best = { key, distance };
  }
  return best?.key;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, swaps. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
  return d[a.length]![b.length]!;
}
