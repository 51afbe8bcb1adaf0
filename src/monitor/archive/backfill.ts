/**
 * Backfill: a site's robots.txt history before robowatch watched it, from the Internet
 * Archive. Lists the captures (CDX), reads each one it does not have yet (and stores it at
 * once: an interrupted run goes on where it stopped, a second run reads nothing again),
 * follows archived redirects to their target as the archive captured it then, and makes
 * the site's archived snapshots again from all its captures (monitor/archive/chain.ts).
 * The live history is left as it is: captures from the first live check on are not read.
 */
import { createHash } from 'node:crypto';
import type { SiteConfig } from '../../config/config.js';
import type { ArchiveClient, Capture, CaptureContent } from '../../fetch/archive.js';
import { ArchiveError } from '../../lib/errors.js';
import { captureTime } from '../../policy/capture-time.js';
import { readCalendarDay } from '../../policy/calendar-day.js';
import type { RedirectHop } from '../../policy/fetch-result.js';
import { archiveChain } from './chain.js';
import type { NewCapture } from '../records-archive.js';
import type { BackfillStore } from '../ports.js';

export const BACKFILL_EVERY = ['change', 'day', 'week', 'month'] as const;
export type BackfillEvery = (typeof BACKFILL_EVERY)[number];

export interface BackfillOptions {
  /** From this day (default: all the archive has). */
  readonly since?: Date;
  /** Up to this day (default: now); never past the site's first live check. */
  readonly until?: Date;
  /** Every change (default), or the first capture of each day, week or month. */
  readonly every?: BackfillEvery;
  /**
   * Read at most this many new captures, then make the chain and stop (`more` says so):
   * the daemon's jobs stay short, and what they read shows between them.
   */
  readonly limit?: number;
}

export interface BackfillDeps {
  readonly archive: ArchiveClient;
  readonly store: BackfillStore;
  now(): Date;
  /** After each capture read (for progress). */
  onCapture?(site: string, done: number, listed: number): void;
}

/** What a backfill of one site did. */
export interface BackfillOutcome {
  readonly site: string;
  /** Captures the archive listed for the period. */
  readonly listed: number;
  /** Read this run. */
  readonly fetched: number;
  /** Listed, and read by an earlier run. */
  readonly known: number;
  /** Left out of the history (an archived redirect whose target the archive lacks). */
  readonly skipped: number;
  /** The site's archived snapshots now (distinct consecutive states). */
  readonly snapshots: number;
  /** The end of the period read: the site's first live check, when it came before `until`. */
  readonly until: Date;
  /** Stopped at `limit`: captures are left to read. */
  readonly more: boolean;
  /**
   * Where the time went, in milliseconds: waiting on the CDX listing, reading captures
   * (and following redirects), storing them, making the archived snapshots.
   */
  readonly timings: {
    readonly list: number;
    readonly read: number;
    readonly store: number;
    readonly chain: number;
  };
}

/** How far from a redirect's capture its target's capture may be to stand for it. */
const REDIRECT_WINDOW_MS = 90 * 86_400_000;
/** Captures stored per transaction at most, and how long one waits to be stored at most. */
const STORE_BATCH = 50;
const STORE_WITHIN_MS = 5_000;
/** Redirects followed at most (as the live fetcher does). */
const MAX_REDIRECTS = 5;

/** Backfills one site; an ArchiveError (the archive refusing, or answering nonsense) stops it. */
export async function backfillSite(
  deps: BackfillDeps,
  site: SiteConfig,
  siteId: number,
  options: BackfillOptions = {},
): Promise<BackfillOutcome> {
  const live = await deps.store.liveHistoryStart(siteId);
  const requested = options.until ?? deps.now();
  const until = live !== null && live < requested ? live : requested;
  const known = await deps.store.storedCaptureTimes(siteId);
  let listed = 0;
  let fetched = 0;
  let skipped = 0;
  let seen = 0;
  let more = false;
  const listing = deps.archive.captures(site.origin, {
    ...(options.since === undefined ? {} : { from: options.since }),
    to: until,
    collapse: options.every === undefined || options.every === 'change' ? 'digest' : options.every,
  });
  const timings = { list: 0, read: 0, store: 0, chain: 0 };
  let mark = performance.now();
  const lap = (phase: keyof typeof timings) => {
    const now = performance.now();
    timings[phase] += now - mark;
    mark = now;
  };
  // Captures are stored a few at a time (one transaction for up to 50, or for what 5 s
  // read), and whatever was read when a run stops: a killed run reads at most that again.
  const unstored: NewCapture[] = [];
  let oldest = 0;
  const store = async () => {
    await deps.store.recordCaptures(siteId, unstored.splice(0));
    lap('store');
  };
  try {
    for await (const capture of listing) {
      lap('list');
      const at = captureTime(capture.timestamp);
      // The live history starts at its first check: the archive's later captures are not read.
      if (at >= until) continue;
      if (options.limit !== undefined && fetched >= options.limit) {
        more = true;
        break;
      }
      listed++;
      if (known.has(capture.timestamp)) {
        seen++;
        continue;
      }
      const read = await readCapture(deps.archive, capture);
      lap('read');
      if (unstored.length === 0) oldest = performance.now();
      unstored.push({ ...read, fetchedAt: deps.now() });
      if (unstored.length >= STORE_BATCH || performance.now() - oldest >= STORE_WITHIN_MS)
        await store();
      known.add(capture.timestamp);
      fetched++;
      if (read.skipped !== null) skipped++;
      deps.onCapture?.(site.origin, seen + fetched, listed);
    }
  } finally {
    await store();
  }
  lap('list');
  const chain = await deps.store.archiveChainCurrent(siteId);
  const snapshots = chain.current
    ? chain.snapshots
    : await deps.store.replaceArchiveChain(
        siteId,
        archiveChain(site, await deps.store.loadCaptures(siteId)),
        site.registry ?? null,
      );
  lap('chain');
  const ms = (value: number) => Math.round(value);
  return {
    site: site.origin,
    listed,
    fetched,
    known: seen,
    skipped,
    snapshots,
    until,
    more,
    timings: {
      list: ms(timings.list),
      read: ms(timings.read),
      store: ms(timings.store),
      chain: ms(timings.chain),
    },
  };
}

/**
 * A capture as a fetch of the site would have answered then: its archived status and
 * bytes, its archived redirects followed to the target's capture nearest in time (within
 * 90 days; else the capture is skipped, saying why).
 */
async function readCapture(
  archive: ArchiveClient,
  capture: Capture,
): Promise<Omit<NewCapture, 'fetchedAt'>> {
  const capturedAt = captureTime(capture.timestamp);
  const redirects: RedirectHop[] = [];
  let url = siteUrl(capture.original);
  let content: CaptureContent = await archive.content(capture);
  const base = {
    timestamp: capture.timestamp,
    capturedAt,
    originalUrl: url,
    redirects,
    truncated: false,
  };
  while (isRedirect(content.status) && content.location !== null) {
    let target: string;
    try {
      target = siteUrl(new URL(content.location, url).href);
    } catch {
      return { ...base, ...failed(url, content, 'invalid-response', 'a redirect to no URL') };
    }
    redirects.push({ url, status: content.status!, location: target });
    if (redirects.length > MAX_REDIRECTS)
      return {
        ...base,
        ...failed(url, content, 'too-many-redirects', `more than ${MAX_REDIRECTS} redirects`),
      };
    const next = await archive.nearest(target, capturedAt, REDIRECT_WINDOW_MS);
    if (next === null)
      return {
        ...base,
        status: null,
        error: null,
        errorDetail: null,
        finalUrl: target,
        body: null,
        skipped: `it redirects to ${target}, which the archive did not capture within 90 days`,
      };
    url = target;
    content = await archive.content(next);
  }
  if (content.error !== null)
    // The archive failed to give the capture (not the site): nothing to say about the site.
    throw new ArchiveError(
      `the archive could not give the capture ${capture.timestamp}: ${content.error}`,
    );
  return {
    ...base,
    status: content.status,
    error: null,
    errorDetail: null,
    finalUrl: url,
    body:
      content.body === null
        ? null
        : { sha256: createHash('sha256').update(content.body).digest('hex'), bytes: content.body },
    truncated: content.cut,
    skipped: null,
  };
}

function failed(
  url: string,
  content: CaptureContent,
  error: 'invalid-response' | 'too-many-redirects',
  detail: string,
) {
  return {
    status: content.status,
    error,
    errorDetail: detail,
    finalUrl: url,
    body: null,
    skipped: null,
  };
}

const isRedirect = (status: number | null) => status !== null && status >= 300 && status <= 399;

/** The archive's form of a URL (http://example.com:80/robots.txt) as a plain one. */
function siteUrl(original: string): string {
  return new URL(original.includes('://') ? original : `http://${original}`).href;
}

/**
 * Backfill options as written (the command's flags, the API's fields): days as
 * YYYY-MM-DD (or YYYY-MM, YYYY), `until` counting its whole day. Throws a one-line
 * message naming what is wrong.
 */
export function readBackfillOptions(input: {
  since?: string | undefined;
  until?: string | undefined;
  every?: string | undefined;
}): BackfillOptions {
  const day = (name: string, value: string, end: boolean): Date => {
    const read = readCalendarDay(value);
    if (read === undefined || read.start.getUTCFullYear() < 1996)
      throw new RangeError(`${name}: "${value}" is not a day (YYYY-MM-DD, from 1996)`);
    if (!end) return read.start;
    const next = new Date(read.start);
    if (read.unit === 'day') next.setUTCDate(next.getUTCDate() + 1);
    else if (read.unit === 'month') next.setUTCMonth(next.getUTCMonth() + 1);
    else next.setUTCFullYear(next.getUTCFullYear() + 1);
    return next;
  };
  const since = input.since === undefined ? undefined : day('since', input.since, false);
  const until = input.until === undefined ? undefined : day('until', input.until, true);
  if (since !== undefined && until !== undefined && since >= until)
    throw new RangeError(`since (${input.since}) is not before until (${input.until})`);
  if (input.every !== undefined && !(BACKFILL_EVERY as readonly string[]).includes(input.every))
    throw new RangeError(`every: "${input.every}" is not one of ${BACKFILL_EVERY.join(', ')}`);
  return {
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
    ...(input.every === undefined ? {} : { every: input.every as BackfillEvery }),
  };
}
