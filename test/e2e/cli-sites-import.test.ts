/**
 * `robowatch sites import`, run as a user runs it (its command line in the test's
 * process, the embedded database): a Tranco-style ranked list imported whole with its ranks and tags, run twice
 * without adding twice; a list with malformed and repeated lines refused whole, each
 * problem named by its line, nothing written; a 20,000-line list in one command.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/db.js';
import { queryRows } from '../../src/store/db.js';
import { runInProcess } from '../support/cli.js';

function setup(extra = '') {
  const dir = mkdtempSync(join(tmpdir(), 'robowatch-import-'));
  const config = join(dir, 'robowatch.yaml');
  writeFileSync(
    config,
    `dataDir: ${join(dir, 'data')}\nsites:\n  - url: https://already.example\n    watch: [/]\n${extra}`,
  );
  const list = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const run = (...args: string[]) =>
    runInProcess(['sites', 'import', '--config', config, ...args], { env: { DATABASE_URL: '' } });
  const rows = async () => {
    const handle = await openDatabase({ url: undefined, dataDir: join(dir, 'data') });
    try {
      return await queryRows<{ origin: string; settings: Record<string, unknown> | null }>(
        handle.db,
        sql`SELECT origin, settings FROM sites WHERE settings IS NOT NULL ORDER BY id`,
      );
    } finally {
      await handle.close();
    }
  };
  return { list, run, rows };
}

describe('robowatch sites import', () => {
  it('imports a ranked list whole, ranks and tags kept, and adds nothing the second time', async () => {
    const { list, run, rows } = setup();
    const file = list(
      'tranco.csv',
      '1,google.com\n2,facebook.com\n3,already.example\n4,http://old.example:8080\n',
    );
    const first = await run('--tag', 'tranco', '--tag', 'top', file);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`${file}: 4 sites; added 3, 1 already watched\n`);
    expect(await rows()).toEqual([
      {
        origin: 'https://google.com',
        settings: { tags: ['tranco', 'top'], watch: ['/'], rank: 1 },
      },
      {
        origin: 'https://facebook.com',
        settings: { tags: ['tranco', 'top'], watch: ['/'], rank: 2 },
      },
      {
        origin: 'http://old.example:8080',
        settings: { tags: ['tranco', 'top'], watch: ['/'], rank: 4 },
      },
    ]);
    const again = await run(file);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`${file}: 4 sites; added 0, 4 already watched\n`);

    // In a ranked list every line is "rank,domain": a rank that is no whole number is the
    // line's fault, not an origin ("1.5" would be the address 1.0.0.5, "-6" a host).
    const broken = list(
      'broken.csv',
      '1,google.com\n2,facebook.com\n1.5,a.example\n-6,b.example\nc.example\n7,d.example\n',
    );
    const refused = await run(broken);
    expect(refused.code).toBe(2);
    expect(refused.stdout.split('\n').filter(Boolean)).toEqual([
      'line 3: rank: must be a whole number from 1 to 100000000, not "1.5"',
      'line 4: rank: must be a whole number from 1 to 100000000, not "-6"',
      `line 5: a ranked list's line is "rank,domain", not "c.example"`,
    ]);
    expect((await rows()).map((r) => r.origin)).toEqual([
      'https://google.com',
      'https://facebook.com',
      'http://old.example:8080',
    ]);
  });

  it('refuses a list with malformed or repeated lines whole, naming each line', async () => {
    const { list, run, rows } = setup();
    const file = list(
      'origins.txt',
      [
        '# my sites',
        'https://a.example',
        'ftp://files.example',
        'https://b.example/blog/',
        'a.example',
        'https://c.example, Shop, eu;shop, /;/cart',
        '',
      ].join('\n'),
    );
    const refused = await run(file);
    expect(refused.code).toBe(2);
    expect(refused.stdout.split('\n').filter(Boolean)).toEqual([
      'line 3: url: must be http or https, not ftp',
      'line 4: url: must be an origin (scheme://host[:port]); a robots.txt governs its whole origin, so "/blog/" belongs in watch',
      'line 5: https://a.example is listed twice (line 2 too)',
    ]);
    expect(refused.stderr).toMatch(
      /^robowatch: .*origins\.txt: 3 lines cannot be imported, nothing was: line 3: /,
    );
    expect(await rows()).toEqual([]);
    // A dry run checks without writing; the fixed list goes in, its own columns kept.
    const fixed = list(
      'fixed.txt',
      'https://a.example\nhttps://c.example, Shop, eu;shop, /;/cart\n',
    );
    expect((await run('--dry-run', fixed)).stdout).toBe(
      `${fixed}: 2 sites; would add 2, 0 already watched\n`,
    );
    expect(await rows()).toEqual([]);
    expect((await run('--agents', '@ai-training,*', fixed)).code).toBe(0);
    expect(await rows()).toEqual([
      {
        origin: 'https://a.example',
        settings: { watch: ['/'], agents: ['@ai-training', '*'] },
      },
      {
        origin: 'https://c.example',
        settings: {
          name: 'Shop',
          tags: ['eu', 'shop'],
          watch: ['/', '/cart'],
          agents: ['@ai-training', '*'],
        },
      },
    ]);
    const unknown = await run('--agents', '@nope', list('one.txt', 'https://d.example\n'));
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toMatch(/^line 1: agents\[0\]: unknown preset "@nope"/);
  });

  it('refuses a line with text the database cannot store, naming the line and the field', async () => {
    const { list, run, rows } = setup();
    const file = list(
      'nul.txt',
      'https://a.example\nhttps://b.example,Shop\u0000,,/\nhttps://c.example,,,/x\ud800\nhttps://d\u0000.example\nhttps://e\u001b[2J.example\n',
    );
    const refused = await run(file);
    expect(refused.code).toBe(2);
    expect(refused.stderr).not.toContain('Error');
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    expect(refused.stdout.split('\n').filter(Boolean)).toEqual([
      'line 2: name: must not contain a NUL character (\\u0000)',
      // Written to a file as UTF-8, the lone surrogate became U+FFFD: readable, stored.
      'line 4: url: must not contain a NUL character (\\u0000)',
      // A control character is quoted as an escape: the list cannot rewrite the terminal.
      'line 5: url: "https://e\\x1b[2J.example" is not a URL',
    ]);
    expect(refused.stderr).toContain('"https://e\\x1b[2J.example" is not a URL\n');
    expect(await rows()).toEqual([]);
  });

  it('refuses a file with no end of line, or too large, in one line, without reading it all', async () => {
    const { list, run, rows } = setup();
    const zero = await run('/dev/zero');
    expect(zero.code).toBe(2);
    expect(zero.stderr).toBe(
      'robowatch: site list "/dev/zero": line 1 is longer than 262,144 bytes (is it a list of lines?)\n',
    );
    const long = list('long.txt', `https://a.example\nhttps://b.example,${'x'.repeat(300_000)}\n`);
    expect((await run(long)).stderr).toBe(
      `robowatch: site list "${long}": line 2 is longer than 262,144 bytes (is it a list of lines?)\n`,
    );
    const piped = await runInProcess(
      ['sites', 'import', '--config', join(dirname(long), 'robowatch.yaml'), '-'],
      {
        env: { DATABASE_URL: '' },
        stdin: 'y'.repeat(1_000_000),
      },
    );
    expect(piped.code).toBe(2);
    expect(piped.stderr).toBe(
      'robowatch: site list standard input: line 1 is longer than 262,144 bytes (is it a list of lines?)\n',
    );
    const big = list('big.txt', `${'https://a.example\n'.repeat(3_800_000)}`);
    expect((await run(big)).stderr).toBe(
      `robowatch: site list "${big}" is larger than 64 MiB: split it, or give it in parts\n`,
    );
    expect(await rows()).toEqual([]);
  });

  it('says what a file is when it is no UTF-8 text: zipped, gzipped, UTF-16, Latin-1', async () => {
    const { list, run, rows } = setup();
    const text = '1,a.example\n2,caf\u00e9.example\n';
    const file = (name: string, bytes: Uint8Array) => {
      const path = list(name, '');
      writeFileSync(path, bytes);
      return path;
    };
    // A zip archive's entry starts with its local header, "PK\x03\x04" (as Tranco's does).
    const zipped = file(
      'top-1m.csv.zip',
      Buffer.concat([
        Buffer.from('PK\x03\x04\x14\x00\x00\x00\x08\x00', 'latin1'),
        deflateRawSync(text),
      ]),
    );
    const cases: [string, string][] = [
      [zipped, 'is a zip archive: unzip it, then give the file inside'],
      [file('top.csv.gz', gzipSync(text)), 'is compressed (gzip): gunzip it first'],
      [
        file('utf16.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])),
        'is UTF-16 text: save it as UTF-8',
      ],
      [
        file('latin1.csv', Buffer.from(text, 'latin1')),
        'is not UTF-8 text (line 2 is not): save it as UTF-8',
      ],
    ];
    for (const [path, why] of cases) {
      const refused = await run(path);
      expect([refused.code, refused.stdout, refused.stderr]).toEqual([
        2,
        '',
        `robowatch: site list "${path}" ${why}\n`,
      ]);
    }
    expect(await rows()).toEqual([]);
    // The same list as UTF-8, with a byte order mark, is read as written.
    const utf8 = file(
      'utf8.csv',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]),
    );
    expect((await run(utf8)).code).toBe(0);
    expect((await rows()).map((r) => r.origin)).toEqual([
      'https://a.example',
      'https://xn--caf-dma.example',
    ]);
  });

  it('imports 20,000 sites in one command', async () => {
    const { list, run, rows } = setup('watch: [/, /about]\n');
    const lines = Array.from({ length: 20_000 }, (_, i) => `${i + 1},site-${i + 1}.example`);
    const result = await run(list('big.csv', `rank,domain\n${lines.join('\n')}\n`));
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('20,000 sites; added 20,000, 0 already watched');
    const stored = await rows();
    expect(stored).toHaveLength(20_000);
    // The top-level watch applies to sites whose line names none.
    expect(stored[19_999]).toEqual({
      origin: 'https://site-20000.example',
      settings: { rank: 20_000 },
    });
  }, 120_000);
});
