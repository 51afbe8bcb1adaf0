/**
 * `robowatch coverage` in words: what a site served (a sitemap's URL, a problem quoting
 * it) is printed with its control characters as escapes, never passed to the terminal.
 */
import { describe, expect, it } from 'vitest';
import { formatCoverage } from '../../../src/cli/coverage.js';
import { CoverageDocument } from '../../../src/monitor/documents/coverage.js';

const doc = CoverageDocument.parse({
  snapshot: 7,
  urls: 2,
  computedAt: '2026-12-01T03:00:00.000Z',
  findings: [],
  urlSet: {
    id: 3,
    firstSeenAt: '2026-11-01T03:00:00.000Z',
    lastSeenAt: '2026-12-01T03:00:00.000Z',
    added: 2,
    removed: 0,
    otherOrigins: 0,
    overCap: 0,
    problems: [],
    sitemaps: [
      {
        url: 'https://shop.example/sitemap.xml',
        status: 200,
        format: 'urlset',
        entries: 2,
        notModified: false,
        problems: ['not XML: text "\u001b[2J\u001b]0;owned\u0007" where a tag was expected'],
      },
    ],
  },
  agents: {
    Googlebot: {
      allowed: 1,
      disallowed: 1,
      access: null,
      rules: [{ line: 2, directive: 'disallow', pattern: '/cart', urls: 1, samples: ['/cart'] }],
      prefixes: [],
      samples: ['/cart'],
    },
  },
});

describe('the coverage in words', () => {
  it('prints a sitemap problem’s control characters as escapes', () => {
    const text = formatCoverage('https://shop.example', doc);
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(text).toContain(
      '  https://shop.example/sitemap.xml: not XML: text "\\x1b[2J\\x1b]0;owned\\x07" where a tag was expected\n',
    );
    expect(text).toContain('Googlebot: 1 allowed, 1 disallowed (50.0%)\n');
  });
});
