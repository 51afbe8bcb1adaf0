import { lookup as dnsLookup } from 'node:dns';
import type * as Http from 'node:http';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type * as Https from 'node:https';
import { createRequire } from 'node:module';
import { connect as tlsConnect } from 'node:tls';
import { connect as netConnect, isIP } from 'node:net';
import type { LookupFunction, Socket } from 'node:net';
import pLimit from 'p-limit';
import type {
  DocumentRequest,
  DocumentResult,
  FetchErrorKind,
  FetchResult,
  RedirectHop,
} from '../policy/fetch-result.js';
import { MAX_ROBOTS_BYTES } from '../robots/index.js';
import { allowedAddresses } from './addresses.js';
import { bare, blockedError, publicOnly } from './public-lookup.js';
import { discard, readCapped, streamCapped } from './body.js';

// Node's HTTP clients by `require`, not `import`: on Node 22 an import of node:http builds
// its ES module face from every export, and the lazy ones load the HTTP/2 and WebSocket
// internals a check never uses (about 30 ms of CPU at every start).
const nodeRequire = createRequire(import.meta.url);
const { request: httpRequest } = nodeRequire('node:http') as typeof Http;
const { request: httpsRequest } = nodeRequire('node:https') as typeof Https;

export interface FetcherOptions {
  /** Sent as User-Agent; names robowatch and its version. */
  readonly userAgent: string;
  /** Budget for a whole fetch, redirects and body included. */
  readonly timeoutMs: number;
  /** Budget for each connection to be made, its name looked up (default: 10 s, at most timeoutMs). */
  readonly connectTimeoutMs?: number;
  /** Allow loopback, private and link-local addresses (intranets), or loopback only (tests). */
  readonly allowPrivateAddresses: boolean | 'loopback';
  /** Overrides the address check (tests use it to call some loopback addresses private). */
  readonly isAddressAllowed?: (address: string) => boolean;
  /** Name resolution (the benchmark maps its many site names to loopback). */
  readonly lookup?: LookupFunction;
  /** Bytes of body kept; 512,000 by default (seed 000: Google reads 500 KiB). */
  readonly maxBytes?: number;
  /** Bytes read past the limit only to count the lines lost; 1 MiB by default. */
  readonly drainBytes?: number;
  /** Fetches under way at once (more wait their turn; the timeout starts with the fetch). */
  readonly concurrency?: number;
}

export interface RobotsFetcher {
  /** GETs origin/robots.txt, following up to five redirects by hand. Never throws. */
  fetchRobots(origin: string): Promise<FetchResult>;
  /** GETs another document (a sitemap) and streams its body. Never throws. */
  fetchDocument(request: DocumentRequest): Promise<DocumentResult>;
  close(): Promise<void>;
}

/** An answer's status line, headers and body (not read yet). */
interface Answer {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: IncomingMessage;
}

/** Where following a URL's redirects ended: a response, or why there is none. */
type Reached = { readonly current: string; readonly redirects: RedirectHop[] } & (
  | { readonly kind: 'response'; readonly response: Answer }
  | {
      readonly kind: 'failed';
      readonly status: number | null;
      readonly error: FetchErrorKind;
      readonly errorDetail: string;
    }
);

/** Seed 000 and RFC 9309: follow at least five redirects; more means unavailable. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * What ends a fetch early: a robots.txt fetch's own deadline, or the signal of the caller
 * of a document fetch. `watch` is given each request the fetch sends.
 */
interface Stop {
  readonly stopped: boolean;
  /** The caller's signal, handed to the request; undefined for a deadline. */
  readonly signal: AbortSignal | undefined;
  reason(): Error;
  watch(request: ClientRequest): void;
}

/** The deadline's error: a timeout, by its name. */
class FetchTimeout extends Error {
  override readonly name = 'TimeoutError';
}

/**
 * A robots.txt fetch's deadline. When it passes, the fetch's request is destroyed with a
 * timeout: the request or its body fails with it. No AbortSignal is made per fetch, which
 * would add and remove a listener for every request.
 */
class Deadline implements Stop {
  stopped = false;
  readonly signal = undefined;
  #request: ClientRequest | undefined;

  constructor(readonly error: FetchTimeout) {}

  reason(): FetchTimeout {
    return this.error;
  }

  watch(request: ClientRequest): void {
    this.#request = request;
  }

  pass(): void {
    this.stopped = true;
    this.#request?.destroy(this.error);
  }
}

/** A document fetch stops with its caller's signal. */
function signalStop(signal: AbortSignal): Stop {
  return {
    get stopped() {
      return signal.aborted;
    },
    signal,
    reason: () =>
      signal.reason instanceof Error ? signal.reason : new Error('the fetch was aborted'),
    watch: () => undefined,
  };
}

/**
 * Where one request goes, in the fields Node's HTTP client reads from a URL
 * (`urlToHttpOptions`), with the URL itself: made once per hop, and for a site's
 * robots.txt without parsing (its origin is canonical already).
 */
interface Target {
  readonly href: string;
  readonly protocol: string;
  /** As the URL gives it: an IPv6 address in brackets. */
  readonly hostname: string;
  /** hostname[:port], for messages. */
  readonly host: string;
  /** '' for the scheme's default. */
  readonly port: string;
  readonly pathname: string;
  readonly search: string;
  readonly username: string;
  readonly password: string;
}

/** A canonical origin, as the configuration keeps one (the WHATWG serialisation). */
const CANONICAL_ORIGIN = /^(https?:)\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::([1-9][0-9]{0,4}))?$/;

/**
 * A site's robots.txt: its fields read off a canonical origin; else its URL, for the
 * fetch to parse (one that cannot be parsed is a failed fetch, not an exception).
 */
function robotsTarget(origin: string): Target | string {
  const href = `${origin}/robots.txt`;
  const canonical = CANONICAL_ORIGIN.exec(origin);
  const port = canonical?.[3] ?? '';
  if (canonical === null || Number(port) > 65535) return href;
  const protocol = canonical[1]!;
  const hostname = canonical[2]!;
  return {
    href,
    protocol,
    hostname,
    host: port === '' ? hostname : `${hostname}:${port}`,
    port,
    pathname: '/robots.txt',
    search: '',
    username: '',
    password: '',
  };
}

/**
 * The request options Node's client would make of the target's URL (urlToHttpOptions),
 * with the request's own, in one literal of one shape: no spread or property left out
 * (a fetch's code runs cold, where each costs a call into the runtime).
 */
function requestOptions(
  target: Target,
  headers: Record<string, string>,
  createConnection: unknown,
  timeout: number,
  signal: AbortSignal | undefined,
) {
  const { pathname, search, port, username, password } = target;
  return {
    protocol: target.protocol,
    hostname: bare(target.hostname),
    search,
    pathname,
    path: `${pathname}${search}`,
    href: target.href,
    port: port === '' ? undefined : Number(port),
    auth:
      username || password
        ? `${decodeURIComponent(username)}:${decodeURIComponent(password)}`
        : undefined,
    method: 'GET',
    headers,
    createConnection: createConnection as never,
    timeout,
    signal,
  };
}

/**
 * Creates the robots.txt fetcher: Node's HTTP client over connections of its own, with
 * connect, idle and whole-fetch timeouts, bodies decompressed and capped,
 * and an SSRF guard that checks the address each connection actually reached, on every
 * hop, before a byte is sent.
 */
export function createRobotsFetcher(options: FetcherOptions): RobotsFetcher {
  const maxBytes = options.maxBytes ?? MAX_ROBOTS_BYTES;
  const drainBytes = options.drainBytes ?? 1024 * 1024;
  const allowed = options.isAddressAllowed ?? allowedAddresses(options.allowPrivateAddresses);
  const connectTimeout = Math.min(options.timeoutMs, options.connectTimeoutMs ?? 10_000);
  // With every address allowed there is nothing to filter.
  const lookup =
    options.allowPrivateAddresses === true && options.isAddressAllowed === undefined
      ? options.lookup
      : publicOnly(options.lookup ?? dnsLookup, allowed);

  /**
   * The connection of one request, handed to Node's HTTP client only once its address
   * passed the guard: nothing is written to a refused one. Opened with Node's own `net`
   * and `tls` (undici's connector, used before, cost 0.07 ms of CPU more per connection:
   * its keep-alive, timer wheel and weak reference, for a connection used once).
   */
  const connectTo =
    (target: Target) =>
    (_options: unknown, done: (error: Error | null, socket?: Socket) => void): undefined => {
      // An address written in the URL is judged before connecting: no packet reaches it.
      const host = bare(target.hostname);
      const literal = isIP(host) !== 0;
      if (literal && !allowed(host)) {
        done(blockedError(target.hostname, host));
        return undefined;
      }
      const tls = target.protocol === 'https:';
      const port = Number(target.port) || (tls ? 443 : 80);
      // A name is judged by the lookup before connecting; the address reached is checked
      // again once connected, so that nothing (a proxy, a test's lookup) slips past.
      const socket = tls
        ? tlsConnect({
            host,
            port,
            ...(literal ? {} : { servername: host }),
            ALPNProtocols: ['http/1.1'],
            ...(lookup === undefined ? {} : { lookup }),
          })
        : netConnect({ host, port, ...(lookup === undefined ? {} : { lookup }) });
      let settled = false;
      const settle = (error: Error | null) => {
        if (settled) return;
        settled = true;
        socket.setTimeout(0);
        socket.removeListener('timeout', timedOut);
        if (error !== null) {
          socket.destroy();
          return done(error);
        }
        const address = socket.remoteAddress ?? '';
        if (!allowed(address)) {
          socket.destroy();
          return done(blockedError(target.hostname, address));
        }
        done(null, socket);
      };
      const timedOut = () =>
        settle(
          Object.assign(new Error(`no connection to ${target.host} within ${connectTimeout} ms`), {
            code: 'ETIMEDOUT',
          }),
        );
      socket.setTimeout(connectTimeout, timedOut);
      socket.once(tls ? 'secureConnect' : 'connect', () => settle(null));
      // Kept after the hand-over, like the client's own: a late error is not unhandled.
      socket.on('error', settle);
      return undefined;
    };

  /**
   * One connection per request, closed by the server's answer (the request says
   * `Connection: close`): each site's robots.txt is fetched once a run, so a kept
   * connection would never be reused and thousands of idle ones would only hold sockets
   * (and the servers' slots). Node's HTTP client parses the answer natively: 0.30 ms of
   * CPU per GET in a fresh process here against 0.43 for an undici Client per request,
   * whose WebAssembly parser is compiled again by every process (docs/performance.md).
   * An interim `100 Continue` sent unasked is skipped, as browsers and crawlers do.
   */
  const open = new Set<ClientRequest>();
  const requestOnce = (
    target: Target,
    headers: Record<string, string>,
    stop: Stop,
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      if (stop.stopped) return reject(stop.reason());
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      // Options, not the URL: the client would read the URL's fields again (10 µs a GET).
      const request = send(
        requestOptions(
          target,
          headers,
          // No agent: the connection is this request's own (and it asks to be closed).
          connectTo(target),
          // Between two reads (connecting included): a server that stops answering.
          options.timeoutMs,
          stop.signal,
        ),
      );
      stop.watch(request);
      open.add(request);
      request.once('close', () => open.delete(request));
      request.once('timeout', () =>
        request.destroy(new FetchTimeout(`nothing received for ${options.timeoutMs} ms`)),
      );
      // Kept after the answer: a late error (the deadline, a reset) reaches its body too.
      request.on('error', reject);
      request.once('response', (body: IncomingMessage) =>
        resolve({ statusCode: body.statusCode ?? 0, headers: body.headers, body }),
      );
      request.end();
    });

  const limit = pLimit(options.concurrency ?? Number.POSITIVE_INFINITY);
  // What a robots.txt fetch that outlived its deadline ends with (one error for all).
  const timedOut = new FetchTimeout(`no whole answer within ${options.timeoutMs} ms`);

  function fetchRobots(origin: string): Promise<FetchResult> {
    return limit(() => fetchNow(origin));
  }

  async function fetchNow(origin: string): Promise<FetchResult> {
    // One deadline for the whole fetch, cleared when it ends so that nothing fires later.
    const deadline = new Deadline(timedOut);
    const timer = setTimeout(() => deadline.pass(), options.timeoutMs);
    try {
      return await fetchWithin(origin, deadline);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * GETs a URL, following up to five redirects by hand (each hop through the SSRF guard):
   * the final response, or why there is none.
   */
  async function follow(
    /** A URL (parsed here: one that cannot be is a failed fetch), or a target made already. */
    first: Target | string,
    headers: Record<string, string>,
    stop: Stop,
    redirectsToo = true,
  ): Promise<Reached> {
    const redirects: RedirectHop[] = [];
    let target = first;
    let current = typeof first === 'string' ? first : first.href;
    for (;;) {
      let response: Answer;
      try {
        response = await requestOnce(
          typeof target === 'string' ? new URL(target) : target,
          { 'user-agent': options.userAgent, ...headers },
          stop,
        );
      } catch (error) {
        return {
          kind: 'failed',
          status: null,
          ...describeError(error, stop),
          current,
          redirects,
        };
      }

      const { statusCode, headers: answered } = response;
      const location = answered['location'];
      if (redirectsToo && REDIRECT_STATUSES.has(statusCode) && typeof location === 'string') {
        discard(response.body);
        const next = URL.canParse(location, current) ? new URL(location, current) : undefined;
        if (next === undefined || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
          return {
            kind: 'failed',
            status: statusCode,
            error: 'invalid-response',
            errorDetail: `redirect to an unusable location: ${location.slice(0, 200)}`,
            current,
            redirects,
          };
        }
        next.hash = '';
        redirects.push({ url: current, status: statusCode, location: next.href });
        if (redirects.length > MAX_REDIRECTS) {
          return {
            kind: 'failed',
            status: statusCode,
            error: 'too-many-redirects',
            errorDetail: `more than ${MAX_REDIRECTS} redirects`,
            current,
            redirects,
          };
        }
        current = next.href;
        target = next;
        continue;
      }
      return { kind: 'response', response, current, redirects };
    }
  }

  async function fetchWithin(origin: string, stop: Stop): Promise<FetchResult> {
    const started = performance.now();
    const target = robotsTarget(origin);
    const url = typeof target === 'string' ? target : target.href;
    const reached = await follow(
      target,
      { accept: 'text/plain, */*;q=0.5', 'accept-encoding': 'gzip, deflate, br' },
      stop,
    );
    const result = (fields: Partial<FetchResult>): FetchResult => ({
      url,
      finalUrl: reached.current,
      status: null,
      error: null,
      errorDetail: null,
      redirects: reached.redirects,
      body: null,
      cut: null,
      ...fields,
      durationMs: Math.round(performance.now() - started),
    });
    if (reached.kind === 'failed') {
      const { status, error, errorDetail } = reached;
      return result({ status, error, errorDetail });
    }
    const { statusCode, headers, body } = reached.response;
    if (statusCode < 200 || statusCode > 299) {
      discard(body); // only a 2xx body is robots.txt
      return result({ status: statusCode });
    }
    try {
      const read = await readCapped(body, headers['content-encoding'], maxBytes, drainBytes);
      return result({ status: statusCode, body: read.bytes, cut: read.cut });
    } catch (error) {
      return result({ status: statusCode, ...describeError(error, stop) });
    }
  }

  /**
   * GETs another document of a site (a sitemap), conditionally when validators are given,
   * and streams its body, decompressed (a gzip file served as such too), to `onChunk`,
   * stopping at `maxBytes`. Never throws; its time is the caller's signal's.
   */
  function fetchDocument(request: DocumentRequest): Promise<DocumentResult> {
    return limit(() => fetchDocumentNow(request));
  }

  async function fetchDocumentNow(request: DocumentRequest): Promise<DocumentResult> {
    const { url, signal } = request;
    const stop = signalStop(signal);
    const headers: Record<string, string> = {
      accept: 'application/xml, text/xml, text/plain, */*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
    };
    if (request.etag) headers['if-none-match'] = request.etag;
    if (request.lastModified) headers['if-modified-since'] = request.lastModified;
    const reached = await follow(url, headers, stop, request.redirects !== 'report');
    const result = (fields: Partial<DocumentResult>): DocumentResult => ({
      url,
      finalUrl: reached.current,
      status: null,
      error: null,
      errorDetail: null,
      redirects: reached.redirects,
      notModified: false,
      etag: null,
      lastModified: null,
      bytes: 0,
      cut: false,
      ...fields,
    });
    if (reached.kind === 'failed') {
      const { status, error, errorDetail } = reached;
      return result({ status, error, errorDetail });
    }
    const { statusCode, headers: answered, body } = reached.response;
    const header = (name: string) => {
      const value = answered[name];
      return typeof value === 'string' && value.length <= 512 ? value : null;
    };
    const validators = { etag: header('etag'), lastModified: header('last-modified') };
    if (statusCode === 304) {
      discard(body);
      return result({ status: statusCode, notModified: true, ...validators });
    }
    if (statusCode < 200 || statusCode > 299) {
      discard(body);
      return result({
        status: statusCode,
        location: header('location'),
        retryAfter: header('retry-after'),
      });
    }
    try {
      const read = await streamCapped(
        body,
        answered['content-encoding'],
        request.maxBytes,
        request.onChunk,
      );
      return result({ status: statusCode, ...validators, ...read });
    } catch (error) {
      return result({ status: statusCode, ...describeError(error, stop) });
    }
  }

  return {
    fetchRobots,
    fetchDocument,
    close: () => {
      for (const request of open) request.destroy();
      return Promise.resolve();
    },
  };
}

/** Maps a failure to its kind: DNS, refused, reset, timeout, TLS, blocked, or other. */
function describeError(error: unknown, stop: Stop): { error: FetchErrorKind; errorDetail: string } {
  const errors = [error, (error as { cause?: unknown })?.cause].filter(Boolean) as (Error & {
    code?: string;
  })[];
  const codes = errors.map((e) => e.code ?? e.name);
  // A stopped fetch says why it stopped (its deadline), not how its connection ended.
  const detail = stop.stopped
    ? stop.reason().message
    : (errors.map((e) => e.message).find((m) => m !== '') ?? String(error));
  const kind: FetchErrorKind =
    stop.stopped || codes.some((c) => /TIMEOUT|TimeoutError|AbortError|ETIMEDOUT/.test(c))
      ? 'timeout'
      : codes.includes('ROBOWATCH_BLOCKED_ADDRESS')
        ? 'blocked'
        : codes.some((c) => c === 'ENOTFOUND' || c === 'EAI_AGAIN' || c === 'EAI_NODATA')
          ? 'dns'
          : codes.includes('ECONNREFUSED')
            ? 'refused'
            : // A connection dropped mid-body surfaces as a socket error (Node's client
              // reports a body cut short of its declared length as a reset too).
              codes.some((c) => c === 'ECONNRESET' || c === 'EPIPE')
              ? 'reset'
              : codes.some((c) => /^ERR_TLS|CERT|SSL|^UNABLE_TO|SELF_SIGNED/.test(c))
                ? 'tls'
                : codes.some(
                      (c) =>
                        c.startsWith('Z_') ||
                        c === 'ERR_PADDING_1' ||
                        /^ERR_.*(GZIP|BROTLI|ZLIB)/.test(c),
                    )
                  ? 'invalid-response'
                  : codes.some((c) => c.startsWith('HPE_'))
                    ? 'invalid-response'
                    : 'network';
  return { error: kind, errorDetail: detail.split('\n')[0]!.slice(0, 300) };
}
