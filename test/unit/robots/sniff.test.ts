/** Telling robots.txt from what servers send instead: HTML pages, UTF-16, binary data. */
import { describe, expect, it } from 'vitest';
import { fileCondition } from '../../../src/policy/file-condition.js';
import { errorFindings, parseRobotsTxt, sniffContent } from '../../../src/robots/index.js';
import { readFixture, realWorldFiles } from '../../support/fixtures.js';

const encode = (text: string) => new TextEncoder().encode(text);

describe('sniffContent on real files', () => {
  const files = realWorldFiles().map((f) => ({
    ...f,
    sniffed: sniffContent(readFixture(`realworld/${f.path}`)),
  }));

  it('finds the UTF-16 files, an icon served as robots.txt, and the HTML pages', () => {
    const of = (kind: string) => files.filter((f) => f.sniffed === kind).map((f) => f.path);
    expect(of('utf16').sort()).toEqual(['protego/store.usps.com', 'protego/www.myvue.com']);
    expect(of('binary')).toEqual(['protego/www.pch.com']);
    expect(of('html')).toContain('protego/www.cia.gov');
    // Every file the selection kept as an HTML page is found as one.
    for (const f of files.filter((f) => f.category === 'html'))
      expect(f.sniffed, f.path).toBe('html');
  });

  it('finds no rule Google would read in anything it calls not robots.txt', () => {
    for (const f of files.filter((f) => f.sniffed !== null)) {
      const parsed = parseRobotsTxt(readFixture(`realworld/${f.path}`), { lint: false });
      expect(
        parsed.groups.flatMap((g) => g.rules),
        f.path,
      ).toEqual([]);
    }
  });
});

describe('sniffContent', () => {
  it.each([
    ['User-agent: *\nDisallow: /\n', null],
    ['  \n<!DOCTYPE html><html><body>404</body></html>', 'html'],
    ['\uFEFF<html lang="en"><head>', 'html'],
    ['<b>not a page</b>', null],
  ])('%j is %s', (text, kind) => expect(sniffContent(encode(text))).toBe(kind));

  it('calls text padded with NULs after its rules text, and a gzip stream binary', () => {
    const padded = new Uint8Array([...encode('User-agent: *\nDisallow: /x\n'.repeat(30)), 0, 0, 0]);
    expect(sniffContent(padded)).toBeNull();
    expect(sniffContent(new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2]))).toBe('binary');
  });

  it('reports binary data as a lint error', () => {
    const lint = parseRobotsTxt(
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]),
    ).lint;
    expect(lint.map((f) => [f.code, f.severity])).toContainEqual(['binary', 'error']);
  });

  it('says binary data or UTF-16 once, not each line of it', () => {
    // A PNG's header, then lines that would each be a finding: no colon, an unknown key.
    const noise = Array.from({ length: 200 }, (_, i) => `Foo ${i}\nk${i}: v\n`).join('');
    const header = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d];
    const png = new Uint8Array([...header, ...encode(noise)]);
    expect(parseRobotsTxt(png).lint.map((f) => f.code)).toEqual(['binary']);
    const utf16 = new Uint8Array([0xff, 0xfe, ...encode(noise)]);
    expect(parseRobotsTxt(utf16).lint.map((f) => f.code)).toEqual(['utf16']);
    // How much of such a file counts is still said.
    const large = new Uint8Array([...png, ...new Uint8Array(600_000).fill(0x41)]);
    expect(parseRobotsTxt(large).lint.map((f) => f.code)).toEqual(['binary', 'content-past-limit']);
    // The same lines in a text file are each reported.
    expect(parseRobotsTxt(encode(`User-agent: *\n${noise}`)).lint.length).toBeGreaterThan(50);
  });
});

describe('fileCondition', () => {
  it('is cut past 500 KiB, or when the fetcher cut it', () => {
    expect(fileCondition(encode('User-agent: *\n'), false)).toBe('robots');
    expect(fileCondition(encode('User-agent: *\n'), true)).toBe('cut');
    expect(fileCondition(encode(`User-agent: *\n${'#'.repeat(512_001)}`), false)).toBe('cut');
    expect(fileCondition(encode('<html><body>'), true)).toBe('html');
  });
});

describe('errorFindings', () => {
  const lintErrors = (bytes: Uint8Array, cut?: Parameters<typeof parseRobotsTxt>[1]) =>
    parseRobotsTxt(bytes, cut).lint.filter((f) => f.severity === 'error');

  it('gives what the full lint gives for every real file', () => {
    for (const f of realWorldFiles()) {
      const bytes = readFixture(`realworld/${f.path}`);
      expect(errorFindings(bytes), f.path).toEqual(lintErrors(bytes));
    }
  });

  it.each([
    ['rules', 'User-agent: *\nDisallow: /\n', []],
    ['a page after white space', ' \t\r\n\v\f<html><body>', ['html']],
    ['a page after a byte order mark', '\uFEFF\n<!doctype html>', ['html']],
    ['a page after much white space', `${' '.repeat(5000)}<html>`, ['html']],
    ['markup that is not a page', '<b>x</b>\nUser-agent: *', []],
    ['content past the limit', `User-agent: *\n${'#'.repeat(512_001)}`, ['content-past-limit']],
  ])('finds %s as the lint does', (_, text, codes) => {
    const bytes = encode(text);
    expect(errorFindings(bytes).map((f) => f.code)).toEqual(codes);
    expect(errorFindings(bytes)).toEqual(lintErrors(bytes));
  });

  it('skips a no-break space byte before a page, as the lint does', () => {
    const bytes = new Uint8Array([0x20, 0xa0, ...encode('<html><body>')]);
    expect(errorFindings(bytes).map((f) => f.code)).toEqual(['html']);
    expect(errorFindings(bytes)).toEqual(lintErrors(bytes));
  });

  it('finds UTF-16, binary data and a file the fetcher cut', () => {
    const utf16 = new Uint8Array([0xff, 0xfe, 0x55, 0, 0x73, 0]);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]);
    expect(errorFindings(utf16).map((f) => f.code)).toEqual(['utf16']);
    expect(errorFindings(png).map((f) => f.code)).toEqual(['binary']);
    const cut = { droppedBytes: 10, droppedLineBreaks: 1, complete: true };
    const rules = encode('User-agent: *\nDisallow: /\n');
    expect(errorFindings(rules, { cut }).map((f) => f.code)).toEqual(['content-past-limit']);
    expect(errorFindings(rules, { cut })).toEqual(lintErrors(rules, { cut }));
  });
});
