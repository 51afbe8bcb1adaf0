/**
 * A loopback Wayback Machine: the CDX server (`/cdx/search/cdx`, JSON output with its
 * field-name row, `fl`, `collapse=digest|timestamp:N`, `from`/`to`, `limit`,
 * `showResumeKey`/`resumeKey`) and raw captures (`/web/{timestamp}id_/{original}`), over
 * captures a test sets up, with refusals (429 and Retry-After) on demand.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { captureTime, cdxTime } from '../../src/policy/capture-time.js';

export interface FakeCapture {
  readonly timestamp: string;
  /** The archived status. */
  readonly status: number;
  readonly body?: string;
  readonly mimetype?: string;
  /** An archived redirect's target. */
  readonly location?: string;
}

export class WaybackServer {
  /** Captures by host, in time order. */
  readonly captures = new Map<string, FakeCapture[]>();
  /** Requests received, by path and query. */
  readonly requests: string[] = [];
  /** The next N requests are refused with this status (and Retry-After, seconds). */
  refuse: { count: number; status: 429 | 503; retryAfter?: string } = { count: 0, status: 429 };
  /**
   * How the CDX server pages: `honest`; or hostile, never ending: the first page again with
   * a new resume key (`same-page-new-key`) or with the key it gave (`same-key`), new
   * captures a second apart on every page (`endless`), empty pages (`empty-pages`).
   */
  listingMode: 'honest' | 'same-page-new-key' | 'same-key' | 'endless' | 'empty-pages' = 'honest';
  #pagesServed = 0;
  #server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://wayback');
      this.requests.push(url.pathname + url.search);
      if (this.refuse.count > 0) {
        this.refuse.count--;
        res.writeHead(this.refuse.status, {
          ...(this.refuse.retryAfter === undefined
            ? {}
            : { 'retry-after': this.refuse.retryAfter }),
        });
        res.end('slow down');
        return;
      }
      if (url.pathname === '/cdx/search/cdx') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(this.#listing(url.searchParams)));
        return;
      }
      const raw = /^\/web\/(\d{14})id_\/(.+)$/.exec(url.pathname + url.search);
      const capture = raw === null ? undefined : this.#find(raw[2]!, raw[1]!);
      const nearest = raw === null ? undefined : this.#nearest(raw[2]!, raw[1]!);
      if (capture === undefined && nearest !== undefined) {
        // As the Wayback Machine does: the capture nearest in time, by a redirect of its own.
        res.writeHead(302, { location: `/web/${nearest.timestamp}id_/${raw![2]}` });
        res.end();
        return;
      }
      if (capture === undefined) {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html>not in the archive</html>');
        return;
      }
      res.writeHead(capture.status, {
        'content-type': capture.mimetype ?? 'text/plain',
        ...(capture.location === undefined ? {} : { location: capture.location }),
      });
      res.end(capture.body ?? '');
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.#server ? this.#server.close(() => resolve()) : resolve(),
    );
  }

  #find(original: string, timestamp: string): FakeCapture | undefined {
    const host = new URL(original.includes('://') ? original : `http://${original}`).host;
    return this.captures.get(host)?.find((c) => c.timestamp === timestamp);
  }

  #nearest(original: string, timestamp: string): FakeCapture | undefined {
    const host = new URL(original.includes('://') ? original : `http://${original}`).host;
    const at = Number(timestamp);
    let best: FakeCapture | undefined;
    for (const c of this.captures.get(host) ?? [])
      if (
        best === undefined ||
        Math.abs(Number(c.timestamp) - at) < Math.abs(Number(best.timestamp) - at)
      )
        best = c;
    return best;
  }

  #listing(params: URLSearchParams): unknown[][] {
    const host = (params.get('url') ?? '').replace(/^[a-z]+:\/\//, '').split('/')[0]!;
    const fields = (params.get('fl') ?? 'timestamp,original,statuscode,mimetype,digest').split(',');
    const from = (params.get('from') ?? '').padEnd(14, '0');
    const to = (params.get('to') ?? '').padEnd(14, '9');
    const collapse = params.get('collapse');
    const limit = Number(params.get('limit') ?? 10_000);
    const start = Number(params.get('resumeKey') ?? 0);
    const digest = (c: FakeCapture) =>
      createHash('sha1')
        .update(`${c.status}\n${c.body ?? ''}`)
        .digest('base64');
    let rows = (this.captures.get(host) ?? []).filter(
      (c) => c.timestamp >= from && c.timestamp <= to,
    );
    if (collapse === 'digest')
      rows = rows.filter((c, i) => i === 0 || digest(rows[i - 1]!) !== digest(c));
    const prefix = /^timestamp:(\d+)$/.exec(collapse ?? '');
    if (prefix !== null) {
      const n = Number(prefix[1]);
      rows = rows.filter(
        (c, i) => i === 0 || rows[i - 1]!.timestamp.slice(0, n) !== c.timestamp.slice(0, n),
      );
    }
    const mode = this.listingMode;
    this.#pagesServed++;
    if (mode === 'endless') {
      // Captures made up on the spot, a second after the last one, and kept to be read.
      const list = this.captures.get(host) ?? [];
      const after = (rows.at(-1) ?? list.at(-1))?.timestamp ?? from;
      const next = Array.from({ length: limit }, (_, i) => ({
        timestamp: cdxTime(new Date(captureTime(after).getTime() + (i + 1) * 1000)),
        status: 200,
        body: `User-agent: *\nDisallow: /${after}-${i}\n`,
      }));
      this.captures.set(host, [...list, ...next]);
      rows = next;
    }
    const page =
      mode === 'honest'
        ? rows.slice(start, start + limit)
        : mode === 'empty-pages'
          ? []
          : rows.slice(0, limit);
    const value = (c: FakeCapture, f: string) =>
      f === 'timestamp'
        ? c.timestamp
        : f === 'original'
          ? `http://${host.includes(':') ? host : `${host}:80`}/robots.txt`
          : f === 'statuscode'
            ? String(c.status)
            : f === 'mimetype'
              ? (c.mimetype ?? 'text/plain')
              : f === 'digest'
                ? digest(c)
                : '-';
    const out: unknown[][] = [fields, ...page.map((c) => fields.map((f) => value(c, f)))];
    if (params.get('showResumeKey') === 'true') {
      if (mode === 'honest' && start + limit < rows.length) out.push([], [String(start + limit)]);
      else if (mode === 'same-key') out.push([], ['the-same-key']);
      else if (mode !== 'honest') out.push([], [`key-${this.#pagesServed}`]);
    }
    return out;
  }
}
