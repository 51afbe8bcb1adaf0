/**
 * `robowatch eval` and `robowatch lint`: each command run in the test's process with its own
 * streams (runInProcess), and a client that waits for each answer of `eval --jsonl` through
 * the built binary's pipes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROBOWATCH, runInProcess } from '../support/cli.js';
import { FixtureServer } from '../support/fixture-server.js';
import { fixturePath, readJsonFixture } from '../support/fixtures.js';

let dir: string;
let robots: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'robowatch-eval-'));
  robots = join(dir, 'robots.txt');
  writeFileSync(
    join(dir, 'latin1.txt'),
    Buffer.from('https://e.com/\nhttps://e.com/caf\u00e9\n', 'latin1'),
  );
  writeFileSync(
    robots,
    [
      'User-agent: *', // 1
      'Disallow: /private/', // 2
      'Allow: /private/press', // 3
      '', // 4
      'User-agent: GPTBot', // 5
      'Disallow: /', // 6
      '', // 7
      'User-agent: Googlebot', // 8
      'Disallow: /search%2F', // 9
    ].join('\n'),
  );
});

describe('robowatch eval URL...', () => {
  it('prints a verdict and the deciding rule per URL and agent', async () => {
    const result = await runInProcess([
      'eval',
      '--robots',
      robots,
      '--agent',
      'Bingbot',
      '--agent',
      'GPTBot',
      'https://example.com/private/x',
      'https://example.com/private/press/2024',
      'https://example.com/',
    ]);
    expect(result).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        // The crawlers and URLs padded: the rules line up.
        'DISALLOWED  Bingbot  https://example.com/private/x           line 2: Disallow: /private/',
        'ALLOWED     Bingbot  https://example.com/private/press/2024  line 3: Allow: /private/press',
        'ALLOWED     Bingbot  https://example.com/                    no rule applies',
        'DISALLOWED  GPTBot   https://example.com/private/x           line 6: Disallow: /',
        'DISALLOWED  GPTBot   https://example.com/private/press/2024  line 6: Disallow: /',
        'DISALLOWED  GPTBot   https://example.com/                    line 6: Disallow: /',
        '',
      ].join('\n'),
    });
  });

  it('warns when --agent is a user-agent string, naming the product token in it', async () => {
    const file = join(dir, 'googlebot.txt');
    writeFileSync(file, 'User-agent: Googlebot\nDisallow: /\n');
    const result = await runInProcess([
      'eval',
      '--robots',
      file,
      '--agent',
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      '--agent',
      'Googlebot',
      'https://e.com/',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'warning: --agent "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" is not a product token: robots.txt groups name crawlers by product token (letters, "-", "_"), so it matches only the * group; the crawler it names is Googlebot: try --agent Googlebot\n',
    );
    expect(result.stdout.split('\n').map((l) => l.split(/\s{2,}/)[0])).toEqual([
      'ALLOWED',
      'DISALLOWED',
      '',
    ]);
    // The 1996 standard finds a crawler's name within its user-agent string: no warning.
    const legacy = await runInProcess([
      'eval',
      '--profile',
      'legacy',
      '--robots',
      file,
      '--agent',
      'Mozilla/5.0 (compatible; Googlebot/2.1)',
      'https://e.com/',
    ]);
    expect([legacy.stderr, legacy.stdout.split(/\s+/)[0]]).toEqual(['', 'DISALLOWED']);
  });

  it('prints JSON objects with --json', async () => {
    const result = await runInProcess([
      'eval',
      '--robots',
      robots,
      '--agent',
      'Googlebot',
      '--json',
      'https://example.com/search%2f',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      url: 'https://example.com/search%2f',
      agent: 'Googlebot',
      profile: 'google',
      allowed: true,
      rule: null,
      preferences: {},
      preferenceLines: {},
    });
  });

  it('prints the usage preferences next to the verdict (Content-Usage, Content-Signal)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-usage-'));
    const file = join(dir, 'robots.txt');
    writeFileSync(
      file,
      'User-Agent: *\nContent-Signal: search=yes, ai-train=no\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n',
    );
    const urls = ['https://e.com/ai-ok/a', 'https://e.com/never/a'];
    const text = await runInProcess(['eval', '--robots', file, '--agent', 'GPTBot', ...urls]);
    expect(text.stdout.split('\n')).toEqual([
      'ALLOWED     GPTBot  https://e.com/ai-ok/a  no rule applies  · usage: train-ai=y (line 5), search=yes (line 2), ai-train=no (line 2)',
      'DISALLOWED  GPTBot  https://e.com/never/a  line 3: Disallow: /never/',
      '',
    ]);
    const json = await runInProcess([
      'eval',
      '--robots',
      file,
      '--agent',
      'GPTBot',
      '--json',
      ...urls,
    ]);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toEqual([
      expect.objectContaining({
        allowed: true,
        preferences: { 'train-ai': 'y', search: 'yes', 'ai-train': 'no' },
        preferenceLines: { 'train-ai': 5, search: 2, 'ai-train': 2 },
      }),
      // A URL it may not fetch has no preferences at all.
      expect.objectContaining({ allowed: false, preferences: null, preferenceLines: {} }),
    ]);
  });

  it('reads the profile: rfc9309 normalises %2f where Google compares as given', async () => {
    const url = 'https://example.com/search%2fq';
    const google = await runInProcess(['eval', '--robots', robots, '--agent', 'Googlebot', url]);
    const rfc = await runInProcess([
      'eval',
      '--robots',
      robots,
      '--agent',
      'Googlebot',
      '--profile',
      'rfc9309',
      url,
    ]);
    expect(google.stdout).toMatch(/^ALLOWED /);
    expect(rfc.stdout).toMatch(/^DISALLOWED .* line 9: Disallow: \/search%2F$/m);
  });

  it('reads URLs from --urls-file, skipping blank lines, and robots.txt from stdin', async () => {
    const urls = join(dir, 'urls.txt');
    writeFileSync(urls, 'https://example.com/a\r\n\r\nhttps://example.com/private/b\r\n');
    const result = await runInProcess(
      ['eval', '--robots', '-', '--agent', 'x', '--urls-file', urls],
      {
        stdin: 'User-agent: *\nDisallow: /private\n',
      },
    );
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['ALLOWED', 'DISALLOWED']);
  });

  it('warns on stderr when the file is not robots.txt at all', async () => {
    const html = join(dir, 'page.html');
    writeFileSync(html, '<!DOCTYPE html>\n<html><body>Not found</body></html>\n');
    const result = await runInProcess([
      'eval',
      '--robots',
      html,
      '--agent',
      'x',
      'https://example.com/',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^warning: .*page\.html line 1: The file is an HTML page/);
  });

  it.each([
    [
      ['eval', '--robots', 'ROBOTS', '--agent', 'x', '--frobnicate', 'https://e.com/'],
      /^robowatch: unknown option '--frobnicate'$/,
    ],
    [
      ['eval', '--robots', 'missing.txt', '--agent', 'x', 'https://e.com/'],
      /^robowatch: cannot read robots file "missing.txt": no such file$/,
    ],
    [
      ['eval', '--robots', 'ROBOTS', '--agent', 'x', '--profile', 'bing', 'https://e.com/'],
      /^robowatch: unknown profile "bing" \(expected google, rfc9309, legacy\)$/,
    ],
    [
      ['eval', '--robots', 'ROBOTS', '--agent', 'x'],
      /^robowatch: no URLs: pass them as arguments or with --urls-file$/,
    ],
    [['eval', '--robots', 'ROBOTS', 'https://e.com/'], /^robowatch: missing --agent TOKEN$/],
    [['eval', '--agent', 'x', 'https://e.com/'], /^robowatch: missing --robots FILE$/],
    [
      ['eval', '--robots', 'ROBOTS', '--agent', 'x', '--urls-file', 'nope.txt'],
      /^robowatch: cannot read URLs file "nope.txt": no such file$/,
    ],
    [
      ['eval', '--robots', 'ROBOTS', '--agent', 'x', '--urls-file', 'LATIN1'],
      /^robowatch: URLs file "latin1\.txt" is not UTF-8 text \(line 2 is not\): save it as UTF-8$/,
    ],
    [
      ['eval', '--jsonl', '--robots', 'ROBOTS'],
      /^robowatch: --jsonl reads everything from standard input/,
    ],
    [['evl'], /^robowatch: unknown command 'evl' \(Did you mean eval\?\)$/],
  ])('rejects %j with one line and exit status 2, printing nothing else', async (args, message) => {
    const result = await runInProcess(
      args.map((a) => (a === 'ROBOTS' ? robots : a === 'LATIN1' ? 'latin1.txt' : a)),
      { cwd: dir },
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr.trimEnd()).toMatch(message);
  });
});

describe('robowatch eval --robots URL', () => {
  const site = new FixtureServer();
  beforeAll(() => site.start());
  afterAll(() => site.stop());

  it('fetches the live file with the same fetcher and limits, and reads its answer as crawlers do', async () => {
    site.serve('/robots.txt', 200, 'User-agent: GPTBot\nDisallow: /blog/\n');
    const args = ['eval', '--robots', `${site.origin}/anything`, '--agent', 'GPTBot'];
    const live = await runInProcess([...args, '--allow-loopback', `${site.origin}/blog/x`]);
    expect([live.code, live.stderr]).toEqual([
      0,
      `${site.origin}/robots.txt answered 200, 36 bytes\n`,
    ]);
    expect(live.stdout).toBe(
      `DISALLOWED  GPTBot  ${site.origin}/blog/x  line 2: Disallow: /blog/\n`,
    );
    // A 503: crawlers take the whole site as disallowed.
    site.serve('/robots.txt', 503, 'down');
    const down = await runInProcess([...args, '--allow-loopback', `${site.origin}/`]);
    expect(down.stdout).toBe(`DISALLOWED  GPTBot  ${site.origin}/  robots.txt answered 503\n`);
    // The SSRF guard holds unless asked: loopback is refused before connecting. That is
    // robowatch's choice, not the site's answer: no verdict, one line naming the flags.
    const before = site.requests.length;
    const refused = await runInProcess([...args, `${site.origin}/`]);
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([
      2,
      '',
      `robowatch: --robots ${site.origin}: robowatch did not fetch it: 127.0.0.1 is a private or reserved address; pass --allow-loopback to read a site on this machine, or --allow-private-addresses for a host on a private network\n`,
    ]);
    // --allow-loopback reaches this machine and nothing else: an address that is not
    // loopback is still refused, and the line names the one flag that would reach it.
    const unspecified = `http://0.0.0.0:${new URL(site.origin).port}`;
    const narrow = await runInProcess([
      'eval',
      '--robots',
      unspecified,
      '--agent',
      'GPTBot',
      '--allow-loopback',
      `${unspecified}/`,
    ]);
    expect([narrow.code, narrow.stdout, narrow.stderr]).toEqual([
      2,
      '',
      `robowatch: --robots ${unspecified}: robowatch did not fetch it: 0.0.0.0 is a private or reserved address; pass --allow-private-addresses to read a host on a private network\n`,
    ]);
    expect(site.requests.length).toBe(before);
  });

  it('warns of a URL that does not parse, and of one on another site than the live file’s', async () => {
    site.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /private\n');
    const result = await runInProcess([
      'eval',
      '--robots',
      site.origin,
      '--allow-private-addresses',
      '--agent',
      'Googlebot',
      `${site.origin}/private/a`,
      '/private/b',
      'https://other.example/private/c',
      'http://[bad/private/d',
      'not a url',
    ]);
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').slice(1)).toEqual([
      `warning: https://other.example/private/c is not on ${site.origin}: crawlers read https://other.example/robots.txt for it, not this file`,
      'warning: "http://[bad/private/d" is neither an http(s) URL nor a path starting with "/": it is evaluated as Google\'s parser reads it, as the path "/private/d"',
      'warning: "not a url" is neither an http(s) URL nor a path starting with "/": it is evaluated as Google\'s parser reads it, as the path "/"',
      '',
    ]);
    // Each is still evaluated, as Google's parser would.
    expect(result.stdout.split('\n').map((l) => l.split(/\s{2,}/)[0])).toEqual([
      'DISALLOWED',
      'DISALLOWED',
      'DISALLOWED',
      'DISALLOWED',
      'ALLOWED',
      '',
    ]);
    // A file of many such URLs: ten warnings, then how many more.
    writeFileSync(
      join(dir, 'bare.txt'),
      Array.from({ length: 25 }, (_, i) => `page-${i}`).join('\n'),
    );
    const many = await runInProcess([
      'eval',
      '--robots',
      robots,
      '--agent',
      'Googlebot',
      '--urls-file',
      join(dir, 'bare.txt'),
    ]);
    expect(many.stderr.split('\n').slice(9)).toEqual([
      'warning: "page-9" is neither an http(s) URL nor a path starting with "/": it is evaluated as Google\'s parser reads it, as the path "/"',
      'warning: and 15 more URLs like these',
      '',
    ]);
    // A file on disk is no site's: an absolute URL on any site draws no warning.
    const file = await runInProcess([
      'eval',
      '--robots',
      robots,
      '--agent',
      'Googlebot',
      'https://other.example/x',
    ]);
    expect(file.stderr).toBe('');
  });

  it('prints the control characters of URLs, agents and rules as escapes: a hostile input cannot rewrite the terminal', async () => {
    const file = join(dir, 'escape.txt');
    writeFileSync(file, 'User-agent: *\nDisallow: /p\x1b[2J\n');
    const result = await runInProcess([
      'eval',
      '--robots',
      file,
      '--agent',
      'Goo\x1bgle',
      '/p\x1b[2Jx',
      'foo\x1b]0;title\x07',
    ]);
    expect(result.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(result.stdout + result.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(result.stdout.split('\n')).toEqual([
      'DISALLOWED  Goo\\x1bgle  /p\\x1b[2Jx           line 2: Disallow: /p\\x1b[2J',
      'ALLOWED     Goo\\x1bgle  foo\\x1b]0;title\\x07  no rule applies',
      '',
    ]);
    expect(result.stderr).toContain('"foo\\x1b]0;title\\x07" is neither');
    expect(result.stderr).toContain('--agent "Goo\\x1bgle" is not a product token');
  });

  it('says where the file came from when robots.txt redirects, and reads that file', async () => {
    site.serve('/www/robots.txt', 200, 'User-agent: GPTBot\nDisallow: /blog/\n');
    site.serve('/robots.txt', 301, '', { location: '/www/robots.txt' });
    const blog = () =>
      runInProcess([
        'eval',
        '--robots',
        site.origin,
        '--allow-private-addresses',
        '--agent',
        'GPTBot',
        `${site.origin}/blog/x`,
      ]);
    const live = await blog();
    expect([live.code, live.stderr]).toEqual([
      0,
      `${site.origin}/robots.txt answered 200 from ${site.origin}/www/robots.txt (redirected), 36 bytes\n`,
    ]);
    expect(live.stdout).toBe(
      `DISALLOWED  GPTBot  ${site.origin}/blog/x  line 2: Disallow: /blog/\n`,
    );
    // A loop: more than five redirects, which crawlers take as no robots.txt at all.
    site.serve('/www/robots.txt', 301, '', { location: '/robots.txt' });
    const loop = await blog();
    expect([loop.code, loop.stderr, loop.stdout]).toEqual([
      0,
      `${site.origin}/robots.txt redirected more than 5 times\n`,
      `ALLOWED     GPTBot  ${site.origin}/blog/x  robots.txt redirected more than 5 times\n`,
    ]);
  });
});

describe('robowatch --help', () => {
  it('wraps each description once and says where configuration, database and the web UI come from', async () => {
    const help = await runInProcess(['check', '--help']);
    const description = help.stdout.split('\n\n')[1]!.split('\n');
    // Wrapped once, to the terminal (80 columns here): no line is cut short but the last.
    for (const line of description.slice(0, -1)) expect(line.length).toBeGreaterThan(60);
    expect(description.join(' ')).toBe(
      "Fetches each configured site's robots.txt, records it, and prints what changed and why: each cause, what crawlers do now, and the watched pages it changed. Exit status 0 when the run completed (changes are not errors).",
    );
    // Every command's description, the same: no line broken early by a hard line break
    // that the terminal's wrapping then splits again ("… one origin per" / "line").
    for (const command of [
      ['eval'],
      ['lint'],
      ['gate'],
      ['registry'],
      ['sites'],
      ['sites', 'import'],
      ['users'],
      ['keys'],
      ['export'],
      ['trends'],
      ['backfill'],
      ['diff'],
      ['coverage'],
      ['start'],
      ['serve'],
      ['digest'],
      ['demo'],
    ]) {
      const { stdout } = await runInProcess([...command, '--help']);
      const lines = stdout.split('\n\n')[1]!.split('\n');
      for (const line of lines.slice(0, -1))
        expect(line.length, `${command.join(' ')}: "${line}"`).toBeGreaterThan(50);
      // A repeatable option says what it does without it, not commander's "(default: [])",
      // which contradicted sites import's own "default: the top-level watch".
      expect(stdout, command.join(' ')).not.toContain('(default: [])');
    }
    const top = await runInProcess(['--help']);
    expect(top.stdout).toContain(
      'Configuration: --config FILE, else $ROBOWATCH_CONFIG, else config/robowatch.yaml',
    );
    expect(top.stdout).toContain('Database: $DATABASE_URL');
    expect(top.stdout).toContain('http://127.0.0.1:8080');
  });
});

describe('robowatch eval --jsonl', () => {
  const line = (robotstxt: string, agent: string, url: string, profile?: string) =>
    JSON.stringify(
      profile === undefined ? { robotstxt, agent, url } : { robotstxt, agent, url, profile },
    );

  it('answers every case of the reference conformance suite, in order', async () => {
    const cases = readJsonFixture<
      {
        robotstxt: string;
        robotstxt_b64?: string;
        useragent: string;
        url: string;
        allowed: boolean;
      }[]
    >('conformance/google-allow-cases.json').filter((c) => c.robotstxt_b64 === undefined); // JSON strings cannot carry invalid UTF-8
    const input = cases.map((c) => line(c.robotstxt, c.useragent, c.url)).join('\n') + '\n';
    const result = await runInProcess(['eval', '--jsonl'], { stdin: input });
    expect(result.code).toBe(0);
    const answers = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { allowed: boolean });
    expect(answers.map((a) => a.allowed)).toEqual(cases.map((c) => c.allowed));
  });

  it('writes exactly {allowed, rule} and honours a per-line profile; blank lines are skipped', async () => {
    const robotsTxt = 'User-agent: *\nDisallow: /a%62\n';
    const input = [
      line(robotsTxt, 'x', 'https://e.com/ab'),
      '',
      line(robotsTxt, 'x', 'https://e.com/ab', 'rfc9309'),
    ].join('\n');
    const result = await runInProcess(['eval', '--jsonl'], { stdin: input });
    expect(result.stdout).toBe(
      '{"allowed":true,"rule":null}\n{"allowed":false,"rule":{"directive":"disallow","pattern":"/a%62","line":2}}\n',
    );
  });

  it.each([
    [
      '{"robotstxt": "", "agent": "x", "url": "/"}\n{"robotstxt": "", "agent": "x", "url": "/"}\n{oops\n',
      /^robowatch: line 3: malformed JSON/,
    ],
    [
      '{"robotstxt": "", "agent": "x", "url": "/"}\n{"robotstxt": "", "agent": "x", "url": "/"}\n[1]\n',
      /^robowatch: line 3: expected a JSON object$/,
    ],
    [
      '{"robotstxt": "", "agent": "x", "url": "/"}\n{"robotstxt": "", "agent": "x", "url": "/"}\n{"robotstxt": "", "url": "/"}\n',
      /^robowatch: line 3: "agent" must be a string and is missing$/,
    ],
    [
      '{"robotstxt": "", "agent": "x", "url": "/"}\n{"robotstxt": "", "agent": "x", "url": "/"}\n{"robotstxt": "", "agent": "x", "url": "/", "profile": "yandex"}\n',
      /^robowatch: line 3: unknown profile "yandex"/,
    ],
  ])(
    'stops at a bad line with exit status 2, after whole answers for the lines before it',
    async (input, message) => {
      const result = await runInProcess(['eval', '--jsonl'], { stdin: input });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('{"allowed":true,"rule":null}\n{"allowed":true,"rule":null}\n');
      expect(result.stderr.trimEnd()).toMatch(message);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    },
  );

  it('answers each line as it arrives, for a client that waits for every answer', async () => {
    const child = spawn(process.execPath, [ROBOWATCH, 'eval', '--jsonl']);
    child.stdout.setEncoding('utf8');
    const answers: string[] = [];
    let buffered = '';
    const nextAnswer = () =>
      new Promise<string>((resolve) => {
        const onData = (d: string) => {
          buffered += d;
          const newline = buffered.indexOf('\n');
          if (newline !== -1) {
            child.stdout.off('data', onData);
            const answer = buffered.slice(0, newline);
            buffered = buffered.slice(newline + 1);
            resolve(answer);
          }
        };
        child.stdout.on('data', onData);
      });
    for (const path of ['/open', '/closed/x', '/open/too']) {
      const answer = nextAnswer();
      child.stdin.write(
        line('User-agent: *\nDisallow: /closed', 'bot', `https://e.com${path}`) + '\n',
      );
      answers.push(await answer);
    }
    child.stdin.end();
    expect(answers.map((a) => (JSON.parse(a) as { allowed: boolean }).allowed)).toEqual([
      true,
      false,
      true,
    ]);
  });
});

describe('robowatch lint FILE', () => {
  it('lists where the rules contradict the usage preferences, for the shipped AI registry', async () => {
    const file = join(dir, 'contradiction.txt');
    writeFileSync(file, 'User-agent: GPTBot\nDisallow: /\nContent-Usage: train-ai=y\n');
    const result = await runInProcess(['lint', file]);
    expect([result.code, result.stdout]).toEqual([
      0,
      'line 3  warning  usage-contradiction  Line 3 welcomes crawlers that train AI models, but AI training crawlers GPTBot may not crawl the site at all: the rules win, so they never fetch a page.\n1 finding; 1 group, 1 rule, 0 sitemaps in 3 lines\n',
    ]);
  });

  it('prints each finding with its line and a summary', async () => {
    const file = join(dir, 'lint.txt');
    writeFileSync(file, 'Disallow: /early\nUser-agent: *\nDisallow /x\nDissallow: /y\n');
    const result = await runInProcess(['lint', file]);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').map((l) => l.split(/\s+/).slice(0, 4).join(' '))).toEqual([
      'line 1 warning rule-before-user-agent',
      'line 3 warning missing-colon',
      'line 4 warning accepted-typo',
      '3 findings; 1 group,',
      '',
    ]);
  });

  it('counts lines as an editor does, and says an HTML page is one once, not per line', async () => {
    const thirteen = Array.from({ length: 13 }, (_, i) => `Disallow: /p${i}`).join('\n');
    const counted = await runInProcess(['lint', '-'], { stdin: `User-agent: *\n${thirteen}\n` });
    expect(counted.stdout).toBe('0 findings; 1 group, 13 rules, 0 sitemaps in 14 lines\n');
    const unended = await runInProcess(['lint', '-'], { stdin: 'User-agent: *\nDisallow: /a' });
    expect(unended.stdout).toBe('0 findings; 1 group, 1 rule, 0 sitemaps in 2 lines\n');
    const page = await runInProcess(['lint', '-'], {
      stdin:
        '<!DOCTYPE html>\n<html>\n<head><title>Not found</title></head>\n<body>\n<p>User-agent: *</p>\n</body>\n</html>\n',
    });
    expect(page.stdout).toBe(
      'line 1  error    html  The file is an HTML page, not robots.txt; crawlers read only lines that happen to look like rules.\n1 finding; 0 groups, 0 rules, 0 sitemaps in 7 lines\n',
    );
    // Its inline CSS and script are not lines of robots.txt either; a line that happens to
    // be a rule is what crawlers read of the page, and is still said.
    const styled = await runInProcess(['lint', '-'], {
      stdin:
        '<!DOCTYPE html>\n<html><head><style>\nbody {\n  display: none;\n}\n@media only screen and (min-width: 40em) {\n</style>\n<script>\nvar x = 1;\nif (x) { track("a:b"); }\n</script></head>\n<body>\nDisallow: /shop\n</body></html>\n',
    });
    expect(styled.stdout).toBe(
      [
        'line 1  error    html  The file is an HTML page, not robots.txt; crawlers read only lines that happen to look like rules.',
        'line 13  warning  rule-before-user-agent  Disallow on line 13 is not in any group (no User-agent line before it) and is ignored.',
        '2 findings; 0 groups, 0 rules, 0 sitemaps in 14 lines',
        '',
      ].join('\n'),
    );
  });

  it('prints the file’s control characters as escapes: a hostile file cannot rewrite the terminal', async () => {
    // ESC sequences that would clear the screen, recolour and retitle the terminal.
    const result = await runInProcess(['lint', '-'], {
      stdin: 'User-agent: *\nFoo\u001b[2J\u001b]0;pwned\u0007: bar\nDisallow \u009b31m/x\n',
    });
    expect(result.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(result.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(result.stdout).toContain('Unknown key "Foo\\x1b[2J\\x1b]0;pwned\\x07" on line 2');
    expect(result.stdout).toContain('\\x9b31m/x');
  });

  it('exits 1 with --strict when a finding is an error, so that it can gate a deploy', async () => {
    const html = '<!DOCTYPE html>\n<html><body>Not found</body></html>\n';
    const lenient = await runInProcess(['lint', '-'], { stdin: html });
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toMatch(/^line 1\s+error\s+/);
    const strict = await runInProcess(['lint', '--strict', '-'], { stdin: html });
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe(lenient.stdout);
    expect(strict.stderr).toMatch(
      /^robowatch: -: 1 error \(--strict\): crawlers would not read this file as intended\n$/,
    );
    // Warnings alone pass.
    const warnings = await runInProcess(['lint', '--strict', '-'], { stdin: 'Disallow /x\n' });
    expect(warnings.code).toBe(0);
  });

  it('prints JSON findings with --json', async () => {
    const result = await runInProcess(['lint', '--json', '-'], {
      stdin: 'User-agent: *\nCrawl-delay: 4\n',
    });
    expect(JSON.parse(result.stdout)).toEqual({
      code: 'unsupported-key',
      severity: 'info',
      line: 2,
      message: 'Line 2: Crawl-delay is ignored by Google; Bing and Yandex honour it.',
    });
  });
});

describe('robowatch registry', () => {
  it('lists the shipped registry by purpose and operator, with the presets that name them', async () => {
    const result = await runInProcess(['registry']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^the shipped registry of 2026-08-22 \(160 crawlers, sha256 [0-9a-f]{12}\)$/,
    );
    expect(lines[1]).toMatch(/^AI training \(@ai-training\): 75: .*AI2Bot/);
    expect(result.stdout).toContain(
      '  @operator:openai: ChatGPT, ChatGPT-User, GPTBot, OAI-SearchBot, OpenAI\n',
    );
  });

  it('says what an update lets in for a robots.txt file, and refuses --robots alone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'robowatch-registry-cli-'));
    const robots = join(dir, 'robots.txt');
    writeFileSync(
      robots,
      'User-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: *\nDisallow: /admin/\n',
    );
    const old = fixturePath('registry/ai-robots.2026-02.json');
    const result = await runInProcess(['registry', '--compare', old, '--robots', robots]);
    expect(result.code).toBe(0);
    // A file is named by its path, not as "fetched" at the moment it was read.
    expect(result.stdout.split('\n')[0]).toMatch(
      /^the shipped registry of \d{4}-\d{2}-\d{2} \(160 crawlers, sha256 [0-9a-f]{12}\), compared with the registry in \S+ai-robots\.2026-02\.json \(125 crawlers, sha256 [0-9a-f]{12}\):$/,
    );
    expect(result.stdout).not.toContain('fetched');
    expect(result.stdout).toContain('36 added: AgentTimes, AIWebIndex, ');
    expect(result.stdout).toContain('1 removed: IbouBot\n');
    expect(result.stdout).toMatch(
      /robots\.txt: \d+ new AI training crawlers may crawl this site through `\*`, though the file blocks 2 by name\n {2}The AI crawler registry gained 36 crawlers and lost 1\. Add the new ones to the group that blocks the others to keep them out\.\n/,
    );
    const json = JSON.parse(
      (await runInProcess(['registry', '--compare', old, '--robots', robots, '--json'])).stdout,
    ) as { added: unknown[]; robots: { purposes: { purpose: string; contradicts: boolean }[] } };
    expect(json.added).toHaveLength(36);
    expect(json.robots.purposes.find((p) => p.purpose === 'training')?.contradicts).toBe(true);
    const alone = await runInProcess(['registry', '--robots', robots]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toBe(
      'robowatch: --robots needs --compare (the older registry the update starts from)\n',
    );
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"GPTBot": ');
    const bad = await runInProcess(['registry', '--registry', broken]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^robowatch: .*broken\.json: the registry is not JSON: .+\n$/);
  });
});
