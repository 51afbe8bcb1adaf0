/**
 * The examples of the specification documents in shared/seeds, as tables.
 * 000/003: Google's interpretation; 001: the RFC 9309 draft; 004: the 1996 standard.
 */
import { describe, expect, it } from 'vitest';
import { compileAgent, parseRobotsTxt } from '../../../src/robots/index.js';
import type { Profile, Verdict } from '../../../src/robots/index.js';

function verdict(robots: string, agent: string, url: string, profile: Profile = 'google'): Verdict {
  return compileAgent(parseRobotsTxt(robots, { profile }), agent).evaluate(url);
}

/** Whether `pattern` matches `path`, seen through a lone Disallow rule. */
function matches(pattern: string, path: string, profile: Profile = 'google'): boolean {
  return !verdict(
    `User-agent: *\nDisallow: ${pattern}\n`,
    'anybot',
    `https://example.com${path}`,
    profile,
  ).allowed;
}

describe('seed 000: Google, "URL matching based on path values"', () => {
  const table: [pattern: string, matching: string[], notMatching: string[]][] = [
    ['/', ['/', '/any/lower/level.html'], []],
    ['/*', ['/', '/any/lower/level.html'], []],
    ['/$', ['/'], ['/lower', '/index.html']],
    [
      '/fish',
      [
        '/fish',
        '/fish.html',
        '/fish/salmon.html',
        '/fishheads',
        '/fishheads/yummy.html',
        '/fish.php?id=anything',
      ],
      ['/Fish.asp', '/catfish', '/?id=fish', '/desert/fish'],
    ],
    [
      '/fish*',
      [
        '/fish',
        '/fish.html',
        '/fish/salmon.html',
        '/fishheads',
        '/fishheads/yummy.html',
        '/fish.php?id=anything',
      ],
      ['/Fish.asp', '/catfish', '/?id=fish', '/desert/fish'],
    ],
    [
      '/fish/',
      ['/fish/', '/fish/?id=anything', '/fish/salmon.htm'],
      ['/fish', '/fish.html', '/animals/fish/', '/Fish/Salmon.asp'],
    ],
    [
      '/*.php',
      [
        '/index.php',
        '/filename.php',
        '/folder/filename.php',
        '/folder/filename.php?parameters',
        '/folder/any.php.file.html',
        '/filename.php/',
      ],
      ['/', '/windows.PHP'],
    ],
    [
      '/*.php$',
      ['/filename.php', '/folder/filename.php'],
      ['/filename.php?parameters', '/filename.php/', '/filename.php5', '/windows.PHP'],
    ],
    ['/fish*.php', ['/fish.php', '/fishheads/catfish.php?parameters'], ['/Fish.PHP']],
  ];

  for (const profile of ['google', 'rfc9309'] as const) {
    describe(profile, () => {
      it.each(table)('%s', (pattern, matching, notMatching) => {
        for (const path of matching) expect(matches(pattern, path, profile), path).toBe(true);
        for (const path of notMatching) expect(matches(pattern, path, profile), path).toBe(false);
      });
    });
  }
});

describe('seed 000: Google, "Order of precedence for rules"', () => {
  const table: [url: string, rules: string, winner: string, allowed: boolean][] = [
    ['https://example.com/page', 'allow: /p\ndisallow: /', 'allow: /p', true],
    [
      'https://example.com/folder/page',
      'allow: /folder\ndisallow: /folder',
      'allow: /folder',
      true,
    ],
    ['https://example.com/page.htm', 'allow: /page\ndisallow: /*.htm', 'disallow: /*.htm', false],
    ['https://example.com/page.php5', 'allow: /page\ndisallow: /*.ph', 'allow: /page', true],
    ['https://example.com/', 'allow: /$\ndisallow: /', 'allow: /$', true],
    ['https://example.com/page.htm', 'allow: /$\ndisallow: /', 'disallow: /', false],
  ];
  it.each(table)('%s with %j: %s applies', (url, rules, winner, allowed) => {
    const v = verdict(`user-agent: googlebot\n${rules}\n`, 'Googlebot', url);
    expect(v.allowed).toBe(allowed);
    expect(`${v.rule?.directive}: ${v.rule?.pattern}`).toBe(winner);
  });
});

describe('seed 000: Google, "Order of precedence for user agents"', () => {
  const robots = [
    'user-agent: googlebot-news', // line 1
    'disallow: /group1',
    '',
    'user-agent: *', // line 4
    'disallow: /group2',
    '',
    'user-agent: googlebot', // line 7
    'disallow: /group3',
  ].join('\n');

  it.each([
    ['Googlebot-News', 1],
    ['Googlebot', 7],
    ['Storebot-Google', 4],
    ['Otherbot', 4],
  ])('%s follows the group of line %i', (agent, groupLine) => {
    const rules = compileAgent(parseRobotsTxt(robots), agent);
    expect(rules.groups.map((g) => g.line)).toEqual([groupLine]);
  });

  it('merges the groups that name the same agent, and not with "*"', () => {
    const robots = [
      'user-agent: googlebot-news',
      'disallow: /fish',
      '',
      'user-agent: *',
      'disallow: /carrots',
      '',
      'user-agent: googlebot-news',
      'disallow: /shrimp',
    ].join('\n');
    const news = compileAgent(parseRobotsTxt(robots), 'googlebot-news');
    expect(news.rules.map((r) => r.pattern)).toEqual(['/fish', '/shrimp']);
    expect(news.evaluate('https://example.com/carrots').allowed).toBe(true);
    expect(news.evaluate('https://example.com/shrimp').allowed).toBe(false);
  });

  it('does not end a group at a sitemap line', () => {
    const robots =
      'user-agent: a\nsitemap: https://example.com/sitemap.xml\n\nuser-agent: b\ndisallow: /\n';
    for (const agent of ['a', 'b']) {
      expect(verdict(robots, agent, 'https://example.com/x').allowed, agent).toBe(false);
    }
    expect(parseRobotsTxt(robots).groups).toHaveLength(1);
  });

  it('reads "googlebot/1.2" and "googlebot*" as googlebot', () => {
    for (const value of ['googlebot/1.2', 'googlebot*', 'Googlebot']) {
      expect(
        verdict(`user-agent: ${value}\ndisallow: /\n`, 'Googlebot', 'https://example.com/').allowed,
      ).toBe(false);
    }
  });

  it('lets Googlebot crawl /includes/ in the introduction example, and nobody else', () => {
    const robots = [
      '# This robots.txt file controls crawling of URLs under https://example.com.',
      'User-agent: *',
      'Disallow: /includes/',
      '',
      'User-agent: Googlebot',
      'Allow: /includes/',
      '',
      'Sitemap: https://example.com/sitemap.xml',
    ].join('\n');
    expect(verdict(robots, 'Googlebot', 'https://example.com/includes/app.js').allowed).toBe(true);
    expect(verdict(robots, 'Bingbot', 'https://example.com/includes/app.js').allowed).toBe(false);
    expect(parseRobotsTxt(robots).sitemaps).toEqual([
      { url: 'https://example.com/sitemap.xml', line: 8 },
    ]);
  });
});

describe('seed 001: the RFC 9309 draft', () => {
  const simple = [
    'User-Agent : foobot',
    'Disallow : /example/page.html',
    'Disallow : /example/disallowed.gif',
    '',
    'User-Agent : barbot',
    'User-Agent : bazbot',
    'Allow : /example/page.html',
    'Disallow : /example/disallowed.gif',
    '',
    'User-Agent: quxbot',
    '',
    '/eof',
  ].join('\n');

  it.each([
    ['foobot', '/example/page.html', false],
    ['foobot', '/example/disallowed.gif', false],
    ['foobot', '/example/other.html', true],
    ['barbot', '/example/page.html', true],
    ['barbot', '/example/disallowed.gif', false],
    ['bazbot', '/example/page.html', true],
    ['bazbot', '/example/disallowed.gif', false],
    ['quxbot', '/example/disallowed.gif', true],
    ['quxbot', '/example/page.html', true],
  ] as const)('simple example: %s on %s → allowed %s', (agent, path, allowed) => {
    for (const profile of ['rfc9309', 'google'] as const) {
      expect(verdict(simple, agent, `https://example.com${path}`, profile).allowed, profile).toBe(
        allowed,
      );
    }
  });

  it('longest match: the longer disallow beats the shorter allow', () => {
    const robots =
      'User-Agent : foobot\nAllow : /example/page/\nDisallow : /example/page/disallowed.gif\n';
    const v = verdict(
      robots,
      'foobot',
      'https://example.com/example/page/disallowed.gif',
      'rfc9309',
    );
    expect(v).toEqual({
      allowed: false,
      rule: { directive: 'disallow', pattern: '/example/page/disallowed.gif', line: 3 },
    });
  });

  // "Path | Encoded Path | Path to match": a rule written in any of the three forms
  // matches a URL written in any of the first two.
  it.each([
    ['/foo/bar?baz=quz', '/foo/bar?baz=quz', '/foo/bar?baz=quz'],
    [
      '/foo/bar?baz=http://foo.bar',
      '/foo/bar?baz=http%3A%2F%2Ffoo.bar',
      '/foo/bar?baz=http%3A%2F%2Ffoo.bar',
    ],
    ['/foo/bar/ツ', '/foo/bar/%E3%83%84', '/foo/bar/%E3%83%84'],
    ['/foo/bar/%E3%83%84', '/foo/bar/%E3%83%84', '/foo/bar/%E3%83%84'],
    ['/foo/bar/%62%61%7A', '/foo/bar/%62%61%7A', '/foo/bar/baz'],
  ])('encoding table: %s | %s | %s', (path, encoded, toMatch) => {
    for (const rule of [path, encoded, toMatch]) {
      for (const url of [path, encoded]) {
        const robots = `User-agent: *\nDisallow: ${rule}$\n`;
        expect(
          verdict(robots, 'anybot', `https://example.com${url}`, 'rfc9309').allowed,
          `${rule} vs ${url}`,
        ).toBe(false);
      }
    }
  });

  it('decodes %-encoded unreserved characters on both sides, unlike Google', () => {
    const robots = 'User-agent: *\nDisallow: /foo/bar/%62%61%7A\n';
    expect(verdict(robots, 'anybot', 'https://example.com/foo/bar/baz', 'rfc9309').allowed).toBe(
      false,
    );
    expect(verdict(robots, 'anybot', 'https://example.com/foo/bar/baz', 'google').allowed).toBe(
      true,
    );
    expect(
      verdict('User-agent: *\nDisallow: /a~b\n', 'x', 'https://example.com/a%7eb', 'rfc9309')
        .allowed,
    ).toBe(false);
  });

  it.each([
    ['/path/file-with-a-%2A.html', 'https://www.example.com/path/file-with-a-*.html'],
    ['/path/foo-%24', 'https://www.example.com/path/foo-$'],
  ])('special characters: %s matches %s', (pattern, url) => {
    expect(verdict(`User-agent: *\nDisallow: ${pattern}\n`, 'anybot', url, 'rfc9309').allowed).toBe(
      false,
    );
    // and "*" in a pattern is still the wildcard
    expect(
      verdict('User-agent: *\nDisallow: /path/*.html\n', 'anybot', url, 'rfc9309').allowed,
    ).toBe(!url.endsWith('.html') && !url.includes('.html'));
  });

  it('allows /robots.txt implicitly', () => {
    const robots = 'User-agent: *\nDisallow: /\n';
    expect(verdict(robots, 'anybot', 'https://example.com/robots.txt', 'rfc9309')).toEqual({
      allowed: true,
      rule: null,
    });
    expect(verdict(robots, 'anybot', 'https://example.com/robots.txt', 'legacy').allowed).toBe(
      true,
    );
    // Google's reference parser has no such exception
    expect(verdict(robots, 'anybot', 'https://example.com/robots.txt', 'google').allowed).toBe(
      false,
    );
  });

  it('ignores rules before the first user-agent line', () => {
    const robots = 'Disallow: /a\nUser-agent: *\nDisallow: /b\n';
    for (const profile of ['rfc9309', 'google', 'legacy'] as const) {
      expect(verdict(robots, 'anybot', 'https://example.com/a', profile).allowed, profile).toBe(
        true,
      );
      expect(verdict(robots, 'anybot', 'https://example.com/b', profile).allowed, profile).toBe(
        false,
      );
    }
  });

  it('obeys the first "*" group only, where Google merges them all', () => {
    const robots = 'User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n';
    expect(verdict(robots, 'anybot', 'https://example.com/b', 'rfc9309').allowed).toBe(true);
    expect(verdict(robots, 'anybot', 'https://example.com/a', 'rfc9309').allowed).toBe(false);
    expect(verdict(robots, 'anybot', 'https://example.com/b', 'google').allowed).toBe(false);
  });

  it('matches the product token exactly, where Google takes the leading token', () => {
    const robots = 'User-agent: FooBot/1.0\nDisallow: /\n';
    expect(verdict(robots, 'FooBot', 'https://example.com/', 'rfc9309').allowed).toBe(true);
    expect(verdict(robots, 'FooBot', 'https://example.com/', 'google').allowed).toBe(false);
    expect(
      verdict('User-agent: FOOBOT\nDisallow: /\n', 'foobot', 'https://example.com/', 'rfc9309')
        .allowed,
    ).toBe(false);
  });

  it('accepts neither typos nor a missing colon', () => {
    for (const line of ['Dissallow: /', 'Disallow /', 'Disallowed: /']) {
      const robots = `User-agent: *\n${line}\n`;
      expect(verdict(robots, 'anybot', 'https://example.com/', 'rfc9309').allowed, line).toBe(true);
      expect(verdict(robots, 'anybot', 'https://example.com/', 'google').allowed, line).toBe(false);
    }
  });
});

describe("seed 004: the 1996 standard, Mary's Antiques (table 9-4)", () => {
  const robots = [
    '#####################################################################',
    "# This is the robots.txt file for Mary's Antiques web site",
    '#####################################################################',
    '',
    "# Keep Suzy's robot out of all the dynamic URLs because it doesn't",
    '# understand them, and out of all the private data, except for the',
    '# small section Mary has reserved on the site for Suzy.',
    '',
    'User-Agent: Suzy-Spider',
    'Disallow: /dynamic',
    'Allow: /private/suzy-stuff',
    'Disallow: /private',
    '',
    '# The Furniture-Finder robot was specially designed to understand',
    "# Mary's antique store's furniture inventory program, so let it",
    '# crawl that resource, but keep it out of all the other dynamic',
    '# resources and out of all the private data.',
    '',
    'User-Agent: Furniture-Finder',
    'Allow: /dynamic/check-inventory',
    'Disallow: /dynamic',
    'Disallow: /private',
    '',
    '# Keep everyone else out of the dynamic gateways and private data.',
    '',
    'User-Agent: *',
    'Disallow: /dynamic',
    'Disallow: /private',
  ].join('\n');

  // The book names the robots "SuzySpider" and "FurnitureFinder" in its prose, but a
  // record's name must be a substring of the robot's name, so the robots here carry
  // the names the records use (as their User-Agent headers would).
  const robotsNames = ['Suzy-Spider/1.0', 'Furniture-Finder/2.1', 'NosyBot/0.9'];
  const table: [url: string, suzy: boolean, furniture: boolean, nosy: boolean][] = [
    ['http://www.marys-antiques.com/', true, true, true],
    ['http://www.marys-antiques.com/index.html', true, true, true],
    ['http://www.marys-antiques.com/private/payroll.xls', false, false, false],
    ['http://www.marys-antiques.com/private/suzy-stuff/taxes.txt', true, false, false],
    ['http://www.marys-antiques.com/dynamic/buy-stuff?id=3546', false, false, false],
    ['http://www.marys-antiques.com/dynamic/check-inventory?kitchen', false, true, false],
  ];
  it.each(table)('%s', (url, ...expected) => {
    const parsed = parseRobotsTxt(robots, { profile: 'legacy' });
    robotsNames.forEach((name, i) => {
      expect(compileAgent(parsed, name).evaluate(url).allowed, name).toBe(expected[i]);
    });
  });
});

describe('seed 004: the 1996 standard, matching (table 9-3 and rules)', () => {
  it.each([
    ['/tmp', '/tmp', true],
    ['/tmp', '/tmpfile.html', true],
    ['/tmp', '/tmp/a.html', true],
    ['/tmp/', '/tmp', false],
    ['/~fred/hi.html', '/%7Efred/hi.html', true],
    ['/%7Efred/hi.html', '/~fred/hi.html', true],
    ['/%7efred/hi.html', '/%7Efred/hi.html', true],
    ['/~fred/hi.html', '/~fred%2Fhi.html', false],
    ['/a%2Fb', '/a/b', false],
    ['/a%2fb', '/a%2Fb', true],
  ])('rule %s vs URL path %s: match %s', (rule, path, expected) => {
    expect(matches(rule, path, 'legacy')).toBe(expected);
  });

  it('matches every path with an empty rule path', () => {
    const robots = 'User-agent: *\nAllow:\nDisallow: /\n';
    expect(verdict(robots, 'anybot', 'https://example.com/README.TXT', 'legacy')).toEqual({
      allowed: true,
      rule: { directive: 'allow', pattern: '', line: 2 },
    });
  });

  it('reads an empty Disallow as "nothing is disallowed" (the erratum in DESIGN.md)', () => {
    const robots = [
      'User-Agent: slurp',
      'User-Agent: webcrawler',
      'Disallow: /private',
      '',
      'User-Agent: *',
      'Disallow:',
    ].join('\n');
    expect(verdict(robots, 'Slurp/2.0', 'https://example.com/private/x', 'legacy').allowed).toBe(
      false,
    );
    expect(verdict(robots, 'WebCrawler', 'https://example.com/public', 'legacy').allowed).toBe(
      true,
    );
    expect(verdict(robots, 'OtherBot', 'https://example.com/private/x', 'legacy').allowed).toBe(
      true,
    );
  });

  it('applies the first matching rule, not the longest', () => {
    const robots = 'User-agent: *\nDisallow: /a\nAllow: /a/b\n';
    expect(verdict(robots, 'x', 'https://example.com/a/b', 'legacy')).toEqual({
      allowed: false,
      rule: { directive: 'disallow', pattern: '/a', line: 2 },
    });
    expect(verdict(robots, 'x', 'https://example.com/a/b', 'google').allowed).toBe(true);
  });

  it('treats "*" and "$" as ordinary characters', () => {
    const robots = 'User-agent: *\nDisallow: /*.php\nDisallow: /end$\n';
    expect(verdict(robots, 'x', 'https://example.com/index.php', 'legacy').allowed).toBe(true);
    expect(verdict(robots, 'x', 'https://example.com/*.php', 'legacy').allowed).toBe(false);
    expect(verdict(robots, 'x', 'https://example.com/end', 'legacy').allowed).toBe(true);
    expect(verdict(robots, 'x', 'https://example.com/end$x', 'legacy').allowed).toBe(false);
  });

  it('picks the first record whose name is a substring of the robot name ("bot" catches Robot)', () => {
    const robots = 'User-Agent: bot\nDisallow: /\n\nUser-Agent: *\nDisallow: /only-star\n';
    for (const name of ['Bot', 'Robot', 'Bottom-Feeder', 'Spambot', 'Dont-Bother-Me']) {
      expect(verdict(robots, name, 'https://example.com/x', 'legacy').allowed, name).toBe(false);
    }
    expect(verdict(robots, 'Crawler', 'https://example.com/x', 'legacy').allowed).toBe(true);
    expect(verdict(robots, 'Crawler', 'https://example.com/only-star', 'legacy').allowed).toBe(
      false,
    );
  });

  it('ends a record at a blank line', () => {
    const robots = 'User-agent: foo\n\nDisallow: /x\n';
    const parsed = parseRobotsTxt(robots, { profile: 'legacy' });
    expect(parsed.groups).toEqual([
      { line: 1, agents: [expect.objectContaining({ value: 'foo' })], rules: [] },
    ]);
    expect(verdict(robots, 'foo', 'https://example.com/x', 'legacy').allowed).toBe(true);
    expect(parsed.lint.map((f) => f.code)).toContain('rule-before-user-agent');
    // Google and the draft do not end a group at a blank line
    expect(verdict(robots, 'foo', 'https://example.com/x', 'google').allowed).toBe(false);
  });
});
