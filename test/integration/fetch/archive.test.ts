/**
 * The Wayback Machine client against a loopback server that speaks its protocol: the
 * CDX listing (field row, collapse, from/to, resume keys), raw captures (2xx bytes, 4xx,
 * archived redirects not followed), refusals waited out (Retry-After) and given up on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import {
  ArchiveClient,
  ArchiveError,
  captureTime,
  readListing,
} from '../../../src/fetch/archive.js';
import type { Capture } from '../../../src/fetch/archive.js';
import { WaybackServer } from '../../support/wayback-server.js';

const wayback = new WaybackServer();
const fetcher = createRobotsFetcher({
  userAgent: 'robowatch-test',
  timeoutMs: 3_000,
  allowPrivateAddresses: 'loopback',
});
const waits: number[] = [];
const client = (options: { pageSize?: number; maxRefusals?: number } = {}) =>
  new ArchiveClient((r) => fetcher.fetchDocument(r), {
    url: wayback.url,
    requestsPerMinute: 0,
    maxRefusals: options.maxRefusals ?? 5,
    timeoutMs: 3_000,
    pageSize: options.pageSize ?? 5000,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  });
const all = async (captures: AsyncIterable<Capture>) => {
  const out: Capture[] = [];
  for await (const c of captures) out.push(c);
  return out;
};
const V1 = 'User-agent: *\nDisallow: /private/\n';
const V2 = 'User-agent: *\nDisallow: /\n';

beforeAll(async () => {
  await wayback.start();
  wayback.captures.set('example.com', [
    { timestamp: '20160105120000', status: 200, body: V1 },
    { timestamp: '20160120120000', status: 200, body: V1 },
    { timestamp: '20160210120000', status: 200, body: V2 },
    { timestamp: '20160301000000', status: 503, body: 'down' },
    { timestamp: '20160302000000', status: 301, location: 'https://www.example.com/robots.txt' },
    {
      timestamp: '20160310000000',
      status: 200,
      body: '<!DOCTYPE html><html>Not found</html>',
      mimetype: 'text/html',
    },
    { timestamp: '20170101000000', status: 200, body: V1 },
  ]);
});
afterAll(async () => {
  await fetcher.close();
  await wayback.stop();
});
beforeEach(() => {
  waits.length = 0;
  wayback.requests.length = 0;
  wayback.refuse = { count: 0, status: 429 };
});

describe('the Wayback Machine client', () => {
  it('lists the changes of a robots.txt, page by page through resume keys', async () => {
    const captures = await all(client({ pageSize: 2 }).captures('https://example.com', {}));
    // The January 20 capture is the same as January 5's: collapsed.
    expect(captures.map((c) => [c.timestamp, c.status])).toEqual([
      ['20160105120000', 200],
      ['20160210120000', 200],
      ['20160301000000', 503],
      ['20160302000000', 301],
      ['20160310000000', 200],
      ['20170101000000', 200],
    ]);
    expect(captures[4]!.mimetype).toBe('text/html');
    const queries = wayback.requests.filter((r) => r.startsWith('/cdx/'));
    expect(queries).toHaveLength(3);
    expect(queries[1]).toContain('resumeKey=2');
    expect(queries[0]).toContain('url=example.com%2Frobots.txt');
    expect(queries[0]).toContain('output=json');
  });

  it('keeps to a period, and to one capture a month or a week', async () => {
    const from = new Date('2016-02-01T00:00:00Z');
    const to = new Date('2016-12-31T23:59:59Z');
    const period = await all(client().captures('https://example.com', { from, to }));
    expect(period.map((c) => c.timestamp)).toEqual([
      '20160210120000',
      '20160301000000',
      '20160302000000',
      '20160310000000',
    ]);
    const monthly = await all(client().captures('https://example.com', { collapse: 'month' }));
    expect(monthly.map((c) => c.timestamp.slice(0, 6))).toEqual([
      '201601',
      '201602',
      '201603',
      '201701',
    ]);
    const weekly = await all(client().captures('https://example.com', { collapse: 'week' }));
    expect(weekly.map((c) => c.timestamp)).toEqual([
      '20160105120000',
      '20160120120000',
      '20160210120000',
      '20160301000000',
      '20160310000000',
      '20170101000000',
    ]);
    expect(captureTime('20160302000000').toISOString()).toBe('2016-03-02T00:00:00.000Z');
    expect(captureTime('20160229235959').toISOString()).toBe('2016-02-29T23:59:59.000Z');
    for (const time of ['00000000000000', '20191301000000', '20170229000000', '2016030200000'])
      expect(() => captureTime(time)).toThrow(`"${time}" is not a capture time`);
  });

  it('gives each capture as archived: bytes, a status without bytes, a redirect not followed', async () => {
    const [first, , down, moved, html] = await all(client().captures('https://example.com', {}));
    expect(new TextDecoder().decode((await client().content(first!)).body)).toBe(V1);
    expect(await client().content(down!)).toMatchObject({ status: 503, body: null });
    const redirect = await client().content(moved!);
    expect(redirect).toMatchObject({
      status: 301,
      body: null,
      location: 'https://www.example.com/robots.txt',
    });
    expect(wayback.requests.some((r) => r.includes('www.example.com'))).toBe(false);
    expect(new TextDecoder().decode((await client().content(html!)).body)).toMatch(
      /^<!DOCTYPE html>/,
    );
    expect(wayback.requests.filter((r) => r.startsWith('/web/'))[0]).toBe(
      '/web/20160105120000id_/http://example.com:80/robots.txt',
    );
  });

  it('waits out refusals (Retry-After, else backing off), and stops after too many', async () => {
    wayback.refuse = { count: 2, status: 429, retryAfter: '3' };
    const captures = await all(client().captures('https://example.com', {}));
    expect(captures).toHaveLength(6);
    expect(waits).toEqual([3_000, 3_000]);
    waits.length = 0;
    wayback.refuse = { count: 2, status: 503 };
    await all(client().captures('https://example.com', {}));
    expect(waits).toEqual([5_000, 10_000]);
    wayback.refuse = { count: 10, status: 429, retryAfter: '1' };
    await expect(
      all(client({ maxRefusals: 3 }).captures('https://example.com', {})),
    ).rejects.toThrow(
      new ArchiveError(
        `${new URL(wayback.url).host} refused 3 requests in a row (429); stopped: try again later`,
      ),
    );
  });

  it('reads a CDX page defensively', () => {
    expect(readListing(new TextEncoder().encode(''))).toEqual({ captures: [], resumeKey: null });
    expect(() => readListing(new TextEncoder().encode('<html>'))).toThrow(
      'the CDX server answered what is not JSON',
    );
    expect(() => readListing(new TextEncoder().encode('[["urlkey"]]'))).toThrow(
      'the CDX listing lacks the fields timestamp, original, statuscode, mimetype, digest',
    );
    const page = readListing(
      new TextEncoder().encode(
        JSON.stringify([
          ['timestamp', 'original', 'statuscode', 'mimetype', 'digest'],
          ['2016', 'x', '200', 'text/plain', 'A'],
          // No times the calendar has, or before the archive began: none is a capture.
          ['00000000000000', 'http://a.com/robots.txt', '200', 'text/plain', 'Z'],
          ['20191301000000', 'http://a.com/robots.txt', '200', 'text/plain', 'M'],
          ['20190230000000', 'http://a.com/robots.txt', '200', 'text/plain', 'F'],
          ['20190101246000', 'http://a.com/robots.txt', '200', 'text/plain', 'H'],
          ['19951231235959', 'http://a.com/robots.txt', '200', 'text/plain', 'E'],
          ['99991231000000', 'http://a.com/robots.txt', '200', 'text/plain', 'L'],
          ['20160101000000', 'http://a.com/robots.txt', '-', 'warc/revisit', 'B'],
          [],
          ['next-key'],
        ]),
      ),
    );
    expect(page).toEqual({
      captures: [
        {
          timestamp: '20160101000000',
          original: 'http://a.com/robots.txt',
          status: null,
          mimetype: 'warc/revisit',
          digest: 'B',
        },
      ],
      resumeKey: 'next-key',
    });
  });
});
