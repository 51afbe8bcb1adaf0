/**
 * Usage-preference lines, from the documents' own text (shared/specs):
 * draft-ietf-aipref-attach (working-group copy of 2026-08-19), section "Robots Exclusion
 * Protocol Content-Usage Rule" and its "Example"; draft-ietf-aipref-vocab (same copy),
 * sections "Exemplary Serialization Format", "Processing Algorithm", "Multiple
 * Preferences", "Preference Parameters" and "Combining Preferences"; Cloudflare's
 * Content-Signal line as shared/specs/README.md gives its form.
 */
import { describe, expect, it } from 'vitest';
import { preferencesDocument } from '../../../src/policy/preferences.js';
import { compileAgent, parseRobotsTxt } from '../../../src/robots/index.js';
import type { Profile } from '../../../src/robots/index.js';

const prefs = (text: string, agent: string, url: string, profile: Profile = 'google') =>
  preferencesDocument(compileAgent(parseRobotsTxt(text, { profile }), agent).preferences(url));
const usage = (text: string, agent: string, url: string, profile: Profile = 'google') =>
  prefs(text, agent, url, profile).preferences;

// attach, "Example": the figure "Example robots.txt file".
const ATTACH_EXAMPLE = `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
`;

describe('Content-Usage (draft-ietf-aipref-attach)', () => {
  // attach, "Example", table "Sample of usage preferences for different paths".
  it.each([
    ['/test', { 'train-ai': 'n' }],
    ['/never/test', null], // not crawled: "N/A"
    ['/ai-ok/test', { 'train-ai': 'y' }],
  ])('the example: %s for any crawler but ExampleBot', (path, expected) => {
    for (const profile of ['google', 'rfc9309'] as const)
      expect(usage(ATTACH_EXAMPLE, 'OtherBot', `https://example.com${path}`, profile)).toEqual(
        expected,
      );
  });

  it('the example: ExampleBot uses its own group and may train everywhere', () => {
    for (const path of ['/test', '/never/test', '/ai-ok/test'])
      expect(prefs(ATTACH_EXAMPLE, 'ExampleBot', `https://example.com${path}`)).toEqual({
        preferences: { 'train-ai': 'y' },
        preferenceLines: { 'train-ai': 9 },
      });
  });

  it('says which line decided, the longest matching path winning wherever it is in the group', () => {
    // "The ordering of rules in a group carries no semantics."
    const text =
      'User-agent: *\nContent-Usage: /blog/ train-ai=n\nContent-Usage: search=y, train-ai=y\n';
    expect(prefs(text, 'X', 'https://e.com/blog/post')).toEqual({
      preferences: { 'train-ai': 'n' },
      preferenceLines: { 'train-ai': 2 },
    });
    expect(prefs(text, 'X', 'https://e.com/about')).toEqual({
      preferences: { 'train-ai': 'y', search: 'y' },
      preferenceLines: { 'train-ai': 3, search: 3 },
    });
    // Paths match like Allow/Disallow: "*" and "$"; a path written in UTF-8 matches the
    // URL as a crawler requests it, percent-encoded.
    const patterns =
      'User-agent: *\nContent-Usage: /*.pdf$ train-ai=n\nContent-Usage: /café/ search=n\n';
    expect(usage(patterns, 'X', 'https://e.com/docs/a.pdf')).toEqual({ 'train-ai': 'n' });
    expect(usage(patterns, 'X', 'https://e.com/docs/a.pdf?x')).toEqual({});
    expect(usage(patterns, 'X', 'https://e.com/caf%C3%A9/menu')).toEqual({ search: 'n' });
  });

  it('combines rules with the same path: a disallowing preference wins (vocab, "Combining Preferences")', () => {
    const text =
      'User-agent: *\nContent-Usage: /a/ train-ai=y, search=y\nContent-Usage: /a/ train-ai=n\n';
    expect(prefs(text, 'X', 'https://e.com/a/1')).toEqual({
      preferences: { 'train-ai': 'n', search: 'y' },
      preferenceLines: { 'train-ai': 3, search: 2 },
    });
  });

  // vocab, "Exemplary Serialization Format", "Processing Algorithm", "Multiple Preferences"
  // and "Preference Parameters": what a statement states.
  it.each([
    ['train-ai=y, search=n', { 'train-ai': 'y', search: 'n' }],
    // A key twice: the last value applies; a boolean and a string are not tokens.
    ['train-ai=y, train-ai, search=n, search="n"', {}],
    // Parameters are ignored; the last train-ai applies.
    ['train-ai;allow=n, train-ai=y', { 'train-ai': 'y' }],
    ['train-ai;has;parameters="?"', {}],
    // Tokens other than y and n, and unknown labels: unknown, not errors.
    ['train-ai=maybe, search=y, future-use=n', { search: 'y' }],
    // Uppercase keys: the dictionary does not parse, so every preference is unknown.
    ['Train-AI=n', {}],
  ])('reads "%s"', (statement, expected) => {
    expect(usage(`User-agent: *\nContent-Usage: ${statement}\n`, 'X', 'https://e.com/')).toEqual(
      expected,
    );
  });

  it('lints what states nothing, and a rule outside any group, in one line each', () => {
    const { lint } = parseRobotsTxt(
      'Content-Usage: train-ai=n\nUser-agent: *\nContent-Usage: Train-AI=n\nContent-Usage: /x/ train-ai=sometimes\nContent-Usage: /y/\n',
    );
    expect(lint.map((f) => [f.line, f.code, f.message])).toEqual([
      [
        1,
        'usage-outside-group',
        'Content-Usage on line 1 is not in any group (no User-agent line before it): it applies to no crawler.',
      ],
      [
        3,
        'usage-malformed',
        'Content-Usage on line 3 states no preference: its labels must be lowercase. Write it as "train-ai=n, search=y" (y or n).',
      ],
      [
        4,
        'usage-malformed',
        'Content-Usage on line 4 sets neither train-ai nor search to y or n: it states no preference.',
      ],
      [
        5,
        'usage-malformed',
        'Content-Usage on line 5 states no preference: nothing follows the path. Write it as "train-ai=n, search=y" (y or n).',
      ],
    ]);
  });

  it('keeps the lines in the model, and among the other lines the change causes diff', () => {
    const parsed = parseRobotsTxt(ATTACH_EXAMPLE);
    expect(parsed.usage.rules.map((r) => [r.line, r.path, r.statement, r.group])).toEqual([
      [4, '', 'train-ai=n', 1],
      [5, '/ai-ok/', 'train-ai=y', 1],
      [9, '', 'train-ai=y', 7],
    ]);
    expect(parsed.others.map((o) => o.line)).toEqual([4, 5, 9]);
    // Verdicts are untouched: the lines are not Allow or Disallow.
    expect(compileAgent(parsed, 'X').evaluate('https://example.com/never/x').allowed).toBe(false);
  });
});

describe("Content-Signal (Cloudflare's managed robots.txt)", () => {
  // The form shared/specs/README.md gives, in the * group; `use` is not one of its keys.
  const MANAGED = `User-agent: *
Content-Signal: search=yes,ai-train=no,use=reference
Allow: /

User-agent: GPTBot
Disallow: /private/
`;

  it('applies to the crawlers of its group, a key not listed stating nothing', () => {
    expect(prefs(MANAGED, 'Googlebot', 'https://e.com/')).toEqual({
      preferences: { search: 'yes', 'ai-train': 'no' },
      preferenceLines: { search: 2, 'ai-train': 2 },
    });
    // GPTBot reads its own group, which has no Content-Signal line.
    expect(usage(MANAGED, 'GPTBot', 'https://e.com/')).toEqual({});
    expect(usage(MANAGED, 'GPTBot', 'https://e.com/private/a')).toBe(null);
    expect(parseRobotsTxt(MANAGED).lint).toEqual([]);
  });

  it('applies to every crawler before any group, and says when a value is not yes or no', () => {
    const text = 'Content-Signal: ai-input=no, ai-train=maybe\nUser-agent: *\nDisallow:\n';
    expect(usage(text, 'Bot', 'https://e.com/')).toEqual({ 'ai-input': 'no' });
    expect(parseRobotsTxt(text).lint.map((f) => f.message)).toEqual([
      'Content-Signal on line 1: ai-train must be yes or no. Write it as "search=yes, ai-input=no, ai-train=no".',
    ]);
  });

  it('names both when Content-Usage and Content-Signal say search', () => {
    const text = 'User-agent: *\nContent-Signal: search=yes\nContent-Usage: search=n\n';
    expect(prefs(text, 'Bot', 'https://e.com/')).toEqual({
      preferences: { search: 'n', 'signal:search': 'yes' },
      preferenceLines: { search: 3, 'signal:search': 2 },
    });
  });
});

describe('License (RSL)', () => {
  it('is kept with its line, for every profile', () => {
    for (const profile of ['google', 'rfc9309', 'legacy'] as const)
      expect(
        parseRobotsTxt('License: https://e.com/license.xml\nUser-agent: *\nDisallow:\n', {
          profile,
        }).usage.licenses,
      ).toEqual([{ line: 1, url: 'https://e.com/license.xml' }]);
  });
});
