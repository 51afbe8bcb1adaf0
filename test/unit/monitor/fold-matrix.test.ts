/**
 * The verdict matrix of a site watching every AI crawler (@ai, 160): crawlers with the same
 * verdicts for the same reasons share a column; a short list stays as it is.
 */
import { describe, expect, it } from 'vitest';
import { builtInPresets } from '../../../src/config/agents.js';
import { shippedRegistry } from '../../../src/config/registry.js';
import { foldMatrix, verdictMatrix } from '../../../src/monitor/views/site.js';
import { computeVerdicts } from '../../../src/policy/verdicts.js';

const body = new TextEncoder().encode(
  'User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: Googlebot\nAllow: /\n\nUser-agent: *\nDisallow: /admin/\n',
);
const watches = ['https://a.com/', 'https://a.com/admin/x'];
const matrixOf = (tokens: readonly string[]) =>
  verdictMatrix(
    computeVerdicts(
      { fetch: { status: 200, error: null }, body, lastGoodBody: body, stale: false },
      watches,
      tokens.map((token) => ({ token, profile: 'google' as const })),
    ),
    undefined,
  );

describe('the verdict matrix', () => {
  it('folds the crawlers that read * alike into one column, and says which they are', () => {
    const ai = builtInPresets(shippedRegistry().registry)['@ai']!;
    const folded = foldMatrix(matrixOf(['Googlebot', ...ai, '*']), new Map());
    // Googlebot's own group; GPTBot and CCBot's; everything that reads *.
    expect(folded.agents).toEqual(['Googlebot', ai[0], 'CCBot']);
    const [google, star, blocked] = folded.members!;
    expect(google).toEqual(['Googlebot']);
    expect(star).toHaveLength(ai.length - 2 + 1); // the rest of @ai, and * itself
    expect(star).toContain('*');
    expect(blocked).toEqual(['CCBot', 'GPTBot']);
    expect(folded.rows.map((r) => r.cells.map((c) => c!.allowed))).toEqual([
      [true, true, false],
      [true, false, false],
    ]);
  });

  it('keeps apart crawlers whose usage preferences differ, and leaves a short list alone', () => {
    const ai = builtInPresets(shippedRegistry().registry)['@ai']!;
    const matrix = matrixOf([...ai, '*']);
    const usage = new Map([[`https://a.com/\n${ai[5]}`, { 'train-ai': 'n' }]]);
    expect(foldMatrix(matrix, usage).agents).toContain(ai[5]);
    const short = matrixOf(['Googlebot', 'Bingbot', '*']);
    expect(foldMatrix(short, new Map())).toBe(short);
  });
});
