/**
 * What one GET of a robots.txt produced (DESIGN.md: "fetch result"). An HTTP status
 * or a network failure is an expected outcome and a value, never an exception.
 */

/** Why no HTTP status was obtained (or, for redirects, why the chain was abandoned). */
export const FETCH_ERROR_KINDS = [
  'dns',
  'refused',
  'reset',
  'timeout',
  'tls',
  'blocked',
  'too-many-redirects',
  'invalid-response',
  'network',
] as const;
export type FetchErrorKind = (typeof FETCH_ERROR_KINDS)[number];

export interface RedirectHop {
  /** The URL requested. */
  readonly url: string;
  /** Its 3xx status. */
  readonly status: number;
  /** Where it pointed, resolved. */
  readonly location: string;
}

/** What could not be kept of a body longer than the limit. */
export interface BodyCut {
  /** Bytes read past the limit and dropped. */
  readonly droppedBytes: number;
  /** Line breaks among them. */
  readonly droppedLineBreaks: number;
  /** False when reading stopped before the end (the body was longer still). */
  readonly complete: boolean;
}

export interface FetchResult {
  /** origin + /robots.txt, as first requested. */
  readonly url: string;
  /** The URL of the final response (after redirects). */
  readonly finalUrl: string;
  /** Status of the final response; for too-many-redirects the last 3xx; null on network failure. */
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
  /** A one-line description of the error, for people. */
  readonly errorDetail: string | null;
  readonly redirects: readonly RedirectHop[];
  /** The body of a 2xx response, decompressed and cut at 512,000 bytes; null otherwise. */
  readonly body: Uint8Array | null;
  /** The body was cut; `cut` says what was dropped. */
  readonly cut: BodyCut | null;
  readonly durationMs: number;
}

/** A GET of another document of a site (a sitemap), its body streamed. */
export interface DocumentRequest {
  readonly url: string;
  /** The validators of the copy already read: a 304 then says it has not changed. */
  readonly etag?: string | null | undefined;
  readonly lastModified?: string | null | undefined;
  /** The deadline (one for a whole discovery). */
  readonly signal: AbortSignal;
  /** Decompressed bytes read at most; past them the body is dropped and `cut` is set. */
  readonly maxBytes: number;
  /** Gets the body, decompressed, a chunk at a time. */
  readonly onChunk: (bytes: Uint8Array) => void;
  /** `report`: a redirect is the answer (its `location` said), not followed. Default: follow. */
  readonly redirects?: 'follow' | 'report';
}

export interface DocumentResult {
  readonly url: string;
  readonly finalUrl: string;
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
  readonly errorDetail: string | null;
  readonly redirects: readonly RedirectHop[];
  /** 304: the copy already read is current. */
  readonly notModified: boolean;
  readonly etag: string | null;
  readonly lastModified: string | null;
  /** Decompressed bytes given to onChunk. */
  readonly bytes: number;
  /** Whether the body went on past maxBytes (the rest was not read). */
  readonly cut: boolean;
  /** A redirect's target, as sent (with `redirects: 'report'`); null otherwise. */
  readonly location?: string | null;
  /** Retry-After of a 429 or 503, as sent; null without one. */
  readonly retryAfter?: string | null;
}

/** Where robots.txt was answered from when its URL redirected: the last URL and the hops. */
export interface RedirectSummary {
  readonly to: string;
  readonly hops: number;
}

/**
 * The redirect a fetch followed to its answer; null when the URL answered itself, or when
 * the redirects are the answer (more than five: no last answer to say where from).
 */
export function redirectOf(
  fetch: Pick<FetchResult, 'redirects' | 'finalUrl' | 'error'>,
): RedirectSummary | null {
  if (fetch.redirects.length === 0 || fetch.error === 'too-many-redirects') return null;
  return { to: fetch.finalUrl, hops: fetch.redirects.length };
}

/**
 * Where a site's robots.txt is answered from when a redirect takes it to another place:
 * the URL it ends on, without its query ("https://www.example.com/robots.txt"); null when
 * it answers at its own URL, or redirects in a loop. A place is a host and a path
 * (placeOf): http → https on the same host, or a redirect that adds a token each time, is
 * not a move, and crawlers read the same file.
 */
export function answeredFrom(
  fetch: Pick<FetchResult, 'finalUrl' | 'error'>,
  origin: string,
): string | null {
  if (fetch.error === 'too-many-redirects') return null;
  // Most fetches end where they began, and this runs several times in every check of
  // every site: no URL to parse for them ('' is a site with no state read yet).
  if (fetch.finalUrl === '' || fetch.finalUrl === `${origin}/robots.txt`) return null;
  let url: URL;
  try {
    url = new URL(fetch.finalUrl);
  } catch {
    return null;
  }
  return `${url.host}${url.pathname}` === `${new URL(origin).host}/robots.txt`
    ? null
    : `${url.protocol}//${url.host}${url.pathname}`;
}

/** The place of an answeredFrom URL, to compare two: its host and path; '' for its own URL. */
export function placeOf(url: string | null | undefined): string {
  if (url === null || url === undefined) return '';
  const { host, pathname } = new URL(url);
  return `${host}${pathname}`;
}
