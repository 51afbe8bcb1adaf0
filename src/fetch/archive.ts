/**
 * The Internet Archive's Wayback Machine, as robots.txt history: its CDX server lists the
 * captures of a site's robots.txt, and `/web/{timestamp}id_/{original}` gives each as it
 * was captured (the `id_` flag: the archived bytes and status, without the archive's
 * rewriting). `archive.url` points elsewhere for tests and mirrors.
 *
 * A good citizen: requests are spaced (24 a minute by default, p-throttle), a 429 or 503
 * waits its Retry-After (else backs off exponentially) and is tried again, and a run of
 * refusals stops with an error that says so. Every answer is hostile input: the CDX rows
 * are checked field by field, bodies are capped like robots.txt's.
 */
import pThrottle from 'p-throttle';
import type { DocumentRequest, DocumentResult } from '../policy/fetch-result.js';
import { MAX_ROBOTS_BYTES } from '../robots/index.js';
import { ArchiveError } from '../lib/errors.js';
import { ARCHIVE_START_MS, captureTime, cdxTime, isCaptureTime } from '../policy/capture-time.js';
import { grouped } from '../policy/wording/words.js';

export { ArchiveError, captureTime, cdxTime };

export interface ArchiveOptions {
  /** https://web.archive.org, or a mirror (tests: a loopback server). */
  readonly url: string;
  /** Requests a minute at most; 0: no limit (tests, benchmarks). */
  readonly requestsPerMinute: number;
  /** Refusals (429, 503) in a row before giving up. */
  readonly maxRefusals: number;
  /** Deadline of one request. */
  readonly timeoutMs: number;
  /** Captures per CDX page (5,000 by default). */
  readonly pageSize?: number;
  /** Waits (backoff, Retry-After). */
  sleep(ms: number): Promise<void>;
}

/** One capture of a robots.txt, as the CDX server lists it. */
export interface Capture {
  /** YYYYMMDDhhmmss, UTC. */
  readonly timestamp: string;
  readonly original: string;
  /** The status the archive recorded; null for `-` (a revisit or an unknown). */
  readonly status: number | null;
  readonly mimetype: string;
  readonly digest: string;
}

/** A capture as fetched: its recorded status, and its bytes for a 2xx. */
export interface CaptureContent {
  readonly status: number | null;
  readonly body: Uint8Array | null;
  /** Cut at 500 KiB. */
  readonly cut: boolean;
  /** An archived redirect's target (as recorded). */
  readonly location: string | null;
  readonly error: string | null;
}

type FetchDocument = (request: DocumentRequest) => Promise<DocumentResult>;

const FIELDS = ['timestamp', 'original', 'statuscode', 'mimetype', 'digest'] as const;
/** A CDX listing is read up to this size per page. */
const MAX_LISTING_BYTES = 20 * 1024 * 1024;
/** The first backoff when no Retry-After says (doubled each time). */
const FIRST_BACKOFF_MS = 5_000;
/** A Retry-After is honoured up to this long. */
const MAX_WAIT_MS = 10 * 60_000;

/** How long a Retry-After asks to wait (seconds or an HTTP date), bounded; null if unusable. */
export function retryAfterMs(value: string | null | undefined, now: number): number | null {
  if (value === null || value === undefined) return null;
  if (/^\d+$/.test(value.trim())) return Math.min(Number(value.trim()) * 1000, MAX_WAIT_MS);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.min(Math.max(0, at - now), MAX_WAIT_MS);
}

export class ArchiveClient {
  readonly #fetch: FetchDocument;
  readonly #options: ArchiveOptions;
  readonly #request: (request: DocumentRequest) => Promise<DocumentResult>;
  /** Requests made (for progress and tests). */
  requests = 0;

  constructor(fetchDocument: FetchDocument, options: ArchiveOptions) {
    this.#fetch = fetchDocument;
    this.#options = options;
    const once = (request: DocumentRequest) => {
      this.requests++;
      return this.#fetch(request);
    };
    this.#request =
      options.requestsPerMinute > 0
        ? pThrottle({ limit: 1, interval: Math.ceil(60_000 / options.requestsPerMinute) })(once)
        : once;
  }

  /**
   * One GET, with its body; 429 and 503 waited out and tried again, up to maxRefusals (a
   * 503 that is the capture's own recorded status, `archived`, is its answer).
   */
  async #get(
    url: string,
    maxBytes: number,
    redirects: 'follow' | 'report' = 'follow',
    archived: number | null = null,
  ): Promise<{ result: DocumentResult; body: Uint8Array }> {
    let backoff = FIRST_BACKOFF_MS;
    for (let refusals = 0; ; refusals++) {
      const chunks: Uint8Array[] = [];
      const result = await this.#request({
        url,
        signal: AbortSignal.timeout(this.#options.timeoutMs),
        maxBytes,
        onChunk: (bytes) => chunks.push(bytes),
        redirects,
      });
      const refused = result.status === 429 || (result.status === 503 && archived !== 503);
      if (!refused) return { result, body: Buffer.concat(chunks) };
      if (refusals + 1 >= this.#options.maxRefusals)
        throw new ArchiveError(
          `${new URL(this.#options.url).host} refused ${refusals + 1} requests in a row (${result.status}); stopped: try again later`,
        );
      const wait = retryAfterMs(result.retryAfter, Date.now()) ?? backoff;
      backoff = Math.min(backoff * 2, MAX_WAIT_MS);
      await this.#options.sleep(wait);
    }
  }

  /**
   * The captures of `host`'s robots.txt, oldest first, a page at a time (the CDX server's
   * resume key): those whose content differs from the capture before (`collapse=digest`),
   * or one per period (`collapse=timestamp:N`: 8 a day, 6 a month).
   */
  async *captures(
    site: string,
    options: { from?: Date; to?: Date; collapse?: 'digest' | 'day' | 'week' | 'month' },
  ): AsyncGenerator<Capture> {
    yield* this.#list(`${new URL(site).host}/robots.txt`, options);
  }

  /**
   * The capture of `url` nearest to `at`, within `withinMs` either side (an archived
   * redirect's target is read as the archive saw it then); null when it has none.
   */
  async nearest(url: string, at: Date, withinMs: number): Promise<Capture | null> {
    const target = new URL(url);
    let best: Capture | null = null;
    let distance = Infinity;
    for await (const capture of this.#list(`${target.host}${target.pathname}${target.search}`, {
      from: new Date(at.getTime() - withinMs),
      to: new Date(at.getTime() + withinMs),
      collapse: 'none',
    })) {
      const d = Math.abs(captureTime(capture.timestamp).getTime() - at.getTime());
      if (d < distance) [best, distance] = [capture, d];
    }
    return best;
  }

  async *#list(
    key: string,
    options: { from?: Date; to?: Date; collapse?: 'digest' | 'day' | 'week' | 'month' | 'none' },
  ): AsyncGenerator<Capture> {
    const base = new URL('/cdx/search/cdx', this.#options.url);
    const params = new URLSearchParams({
      url: key,
      output: 'json',
      fl: FIELDS.join(','),
      showResumeKey: 'true',
      limit: String(this.#options.pageSize ?? 5000),
    });
    const collapse = options.collapse ?? 'digest';
    // A week is not a timestamp prefix: days are listed and thinned below.
    if (collapse !== 'none')
      params.set(
        'collapse',
        collapse === 'digest' ? 'digest' : `timestamp:${collapse === 'month' ? 6 : 8}`,
      );
    if (options.from !== undefined) params.set('from', cdxTime(options.from));
    if (options.to !== undefined) params.set('to', cdxTime(options.to));
    let lastWeek: number | null = null;
    let resumeKey: string | null = null;
    const bounds = listingBounds(options, collapse, this.#options.pageSize ?? 5000);
    const keys = new Set<string>();
    // Captures are listed oldest first: one not after the last listed is a repeat.
    let last = '';
    let listed = 0;
    let pages = 0;
    const stop = (why: string) =>
      new ArchiveError(`the CDX server's listing of ${key} ${why}; stopped`);
    do {
      if (resumeKey !== null) params.set('resumeKey', resumeKey);
      if (++pages > bounds.pages)
        throw stop(`runs past ${grouped(bounds.pages)} pages, more than ${bounds.period} can hold`);
      base.search = params.toString();
      const { result, body } = await this.#get(base.toString(), MAX_LISTING_BYTES);
      if (result.error !== null)
        throw new ArchiveError(`${base.host}: ${result.errorDetail ?? result.error}`);
      if (result.status !== 200)
        throw new ArchiveError(`${base.host} answered ${result.status} to a CDX query`);
      const page = readListing(body);
      resumeKey = page.resumeKey;
      let fresh = 0;
      for (const capture of page.captures) {
        if (capture.timestamp <= last) continue;
        last = capture.timestamp;
        fresh++;
        if (++listed > bounds.captures)
          throw stop(
            `holds more than ${grouped(bounds.captures)} captures, more than ${bounds.period} can hold`,
          );
        if (collapse === 'week') {
          const week = Math.floor(captureTime(capture.timestamp).getTime() / (7 * 86_400_000));
          if (week === lastWeek) continue;
          lastWeek = week;
        }
        yield capture;
      }
      if (resumeKey !== null) {
        if (keys.has(resumeKey))
          throw stop(`loops: page ${pages} gives a resume key it gave before`);
        keys.add(resumeKey);
        if (fresh === 0 && page.captures.length > 0)
          throw stop(`loops: page ${pages} lists only captures it listed before`);
      }
    } while (resumeKey !== null);
  }

  /**
   * A capture's content as recorded (the archived status, and a 2xx's bytes). When the
   * archive itself redirects (to the same URL at a nearby time: a capture it keeps under
   * another timestamp), that is followed; an archived redirect (the capture's own 3xx) is
   * the answer, its target in `location`, taken out of the archive's URL when it is one.
   */
  async content(capture: Capture): Promise<CaptureContent> {
    let url = new URL(`/web/${capture.timestamp}id_/${capture.original}`, this.#options.url);
    const archivedRedirect =
      capture.status !== null && capture.status >= 300 && capture.status <= 399;
    for (let hops = 0; ; hops++) {
      const { result, body } = await this.#get(
        url.toString(),
        MAX_ROBOTS_BYTES,
        'report',
        capture.status,
      );
      if (result.error !== null)
        return {
          status: null,
          body: null,
          cut: false,
          location: null,
          error: result.errorDetail ?? result.error,
        };
      const status = result.status;
      const location = result.location ?? null;
      const redirect = status !== null && status >= 300 && status <= 399 && location !== null;
      const inArchive = redirect ? this.#archived(location, url) : null;
      if (redirect && inArchive !== null && !archivedRedirect && hops < 3) {
        url = new URL(inArchive.path, this.#options.url);
        continue;
      }
      const ok = status !== null && status >= 200 && status <= 299;
      return {
        status,
        body: ok ? body : null,
        cut: result.cut,
        location: redirect
          ? (inArchive?.original ?? new URL(location, capture.original).href)
          : location,
        error: null,
      };
    }
  }

  /** An archive URL (/web/{timestamp}{flags}/{original}) on the archive's host, or null. */
  #archived(location: string, base: URL): { path: string; original: string } | null {
    const url = new URL(location, base);
    if (url.host !== new URL(this.#options.url).host) return null;
    const m = /^\/web\/(\d{14})[a-z_]*\/(.+)$/.exec(url.pathname + url.search);
    if (m === null) return null;
    return { path: `/web/${m[1]}id_/${m[2]}`, original: m[2]! };
  }
}

const DAY_MS = 86_400_000;

/**
 * How much a listing of a period may hold, so that a CDX server that never stops (a new
 * resume key on every page) is stopped: at most a capture a minute listed raw (the pages,
 * at a page size of raw rows), and as listed at most a distinct state an hour (`digest`),
 * one a day (`day`, `week`: days are listed and thinned) or one a month.
 */
export function listingBounds(
  options: { from?: Date; to?: Date },
  collapse: 'digest' | 'day' | 'week' | 'month' | 'none',
  pageSize: number,
): { captures: number; pages: number; period: string } {
  const from = options.from?.getTime() ?? ARCHIVE_START_MS; // a listing with no start
  const to = options.to?.getTime() ?? Date.now();
  const days = Math.max(1, Math.ceil((to - from) / DAY_MS));
  const perDay =
    collapse === 'none' ? 1440 : collapse === 'digest' ? 24 : collapse === 'month' ? 1 / 28 : 1;
  const captures = Math.max(1_000, Math.ceil(days * perDay) + 1);
  const pages = Math.max(100, Math.ceil((days * 1440) / pageSize) + 1);
  const period = `${grouped(days)} day${days === 1 ? '' : 's'}`;
  return { captures, pages, period };
}

/**
 * A CDX JSON page: an array of arrays, the first the field names, then a row per capture,
 * then (with showResumeKey) an empty row and `[resumeKey]`.
 */
export function readListing(bytes: Uint8Array): {
  captures: Capture[];
  resumeKey: string | null;
} {
  const text = new TextDecoder().decode(bytes).trim();
  if (text === '') return { captures: [], resumeKey: null };
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch {
    throw new ArchiveError('the CDX server answered what is not JSON');
  }
  if (!Array.isArray(rows) || rows.some((r) => !Array.isArray(r)))
    throw new ArchiveError('the CDX server answered JSON that is not an array of rows');
  const [header, ...rest] = rows as unknown[][];
  if (header === undefined) return { captures: [], resumeKey: null };
  const index = FIELDS.map((f) => header.indexOf(f));
  if (index.some((i) => i < 0))
    throw new ArchiveError(`the CDX listing lacks the fields ${FIELDS.join(', ')}`);
  let resumeKey: string | null = null;
  const captures: Capture[] = [];
  const now = new Date();
  for (const [i, row] of rest.entries()) {
    if (row.length === 0) {
      const key = rest[i + 1]?.[0];
      resumeKey = typeof key === 'string' && key !== '' ? key : null;
      break;
    }
    const [timestamp, original, status, mimetype, digest] = index.map((j) => row[j]);
    if (
      typeof timestamp !== 'string' ||
      !isCaptureTime(timestamp, now) ||
      typeof original !== 'string' ||
      !URL.canParse(original.includes('://') ? original : `http://${original}`)
    )
      continue; // a row that is not a capture (no real time from 1996 to now): skipped
    captures.push({
      timestamp,
      original,
      status: typeof status === 'string' && /^\d{3}$/.test(status) ? Number(status) : null,
      mimetype: typeof mimetype === 'string' ? mimetype : '',
      digest: typeof digest === 'string' ? digest : '',
    });
  }
  return { captures, resumeKey };
}
