import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/errors.js';
import { normaliseWatch } from '../../../src/config/urls.js';

/** What a crawler requests for a watch: the URL parser's answer, without its fragment. */
function parsed(watch: string, origin: string): string {
  const href = new URL(watch, origin).href;
  const hash = href.indexOf('#');
  return hash === -1 ? href : href.slice(0, hash);
}

describe('normaliseWatch', () => {
  it('resolves dot segments, encodes what a crawler would and drops the fragment', () => {
    const origin = 'https://example.com';
    expect(normaliseWatch('/a/./b/../c', origin)).toBe('https://example.com/a/c');
    expect(normaliseWatch('/ä b', origin)).toBe('https://example.com/%C3%A4%20b');
    expect(normaliseWatch('/p#top', origin)).toBe('https://example.com/p');
    expect(normaliseWatch("/q?it's", origin)).toBe('https://example.com/q?it%27s');
    expect(normaliseWatch('/a\\b', origin)).toBe('https://example.com/a/b');
    expect(normaliseWatch('/.well-known/x', origin)).toBe('https://example.com/.well-known/x');
    expect(normaliseWatch('/a?b=/../c', origin)).toBe('https://example.com/a?b=/../c');
  });

  it('refuses another site and what is not a path or an http(s) URL', () => {
    const origin = 'https://example.com';
    expect(() => normaliseWatch('//other.example/x', origin)).toThrow(ConfigError);
    expect(() => normaliseWatch('https://other.example/x', origin)).toThrow(/is not this site/);
    expect(() => normaliseWatch('page.html', origin)).toThrow(/must be a path/);
  });

  it('gives what the URL parser gives for any path, plain or not', () => {
    // The characters that take a path off the fast way (dots, slashes, %, \, #, ?, quotes,
    // spaces, non-ASCII) are drawn often, next to plain ones.
    const char = fc.constantFrom(
      ...'aZ09-_~!$&()*+,;=:@/.?#%\\\'" `{}^<>|[]\tä€'.split(''),
      '..',
      '/.',
      '%2e',
    );
    const path = fc.array(char, { maxLength: 24 }).map((chars) => `/${chars.join('')}`);
    fc.assert(
      fc.property(path, fc.constantFrom('http://a.example', 'https://b.example:8443'), (p, o) => {
        let expected: string;
        try {
          expected = parsed(p, o);
        } catch {
          return;
        }
        if (new URL(expected).origin !== o) return;
        expect(normaliseWatch(p, o)).toBe(expected);
      }),
      { numRuns: 5_000 },
    );
  });
});
