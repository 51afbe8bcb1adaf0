/** The robots.txt fetcher against real loopback HTTP servers playing each scenario. */
import type { LookupFunction } from 'node:net';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import type { FetcherOptions, RobotsFetcher } from '../../../src/fetch/robots-fetcher.js';
import { FixtureServer } from '../../support/fixture-server.js';

const server = new FixtureServer();
const other = new FixtureServer(); // a second host, 127.0.0.2
const fetchers: RobotsFetcher[] = [];

function fetcher(overrides: Partial<FetcherOptions> = {}): RobotsFetcher {
  const f = createRobotsFetcher({
    userAgent: 'robowatch-test/1.0',
    timeoutMs: 5_000,
    allowPrivateAddresses: 'loopback',
    ...overrides,
  });
  fetchers.push(f);
  return f;
}

beforeAll(async () => {
  await server.start('127.0.0.1');
  await other.start('127.0.0.2');
});
afterEach(() => {
  for (const s of [server, other]) {
    s.routes.clear();
    s.requests.length = 0;
    s.connections = 0;
  }
});
afterAll(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await server.stop();
  await other.stop();
});

describe('a plain fetch', () => {
  it('GETs origin/robots.txt unconditionally, identifying itself, and keeps the bytes', async () => {
    const bytes = new Uint8Array([
      0xef,
      0xbb,
      0xbf,
      ...new TextEncoder().encode('User-agent: *\nDisallow: /caf'),
      0xe9,
    ]);
    server.serve('/robots.txt', 200, bytes);
    const result = await fetcher().fetchRobots(server.origin);
    expect(result).toMatchObject({
      url: `${server.origin}/robots.txt`,
      finalUrl: `${server.origin}/robots.txt`,
      status: 200,
      error: null,
      redirects: [],
      cut: null,
    });
    expect([...result.body!]).toEqual([...bytes]); // BOM and non-UTF-8 byte kept raw
    const request = server.requests.at(-1)!;
    expect(request.path).toBe('/robots.txt');
    expect(request.headers['user-agent']).toBe('robowatch-test/1.0');
    expect(request.headers['if-modified-since']).toBeUndefined();
    expect(request.headers['if-none-match']).toBeUndefined();
  });

  it('fetches an IPv6 origin, and an origin written otherwise than canonically, alike', async () => {
    const v6 = await new FixtureServer().start('::1');
    try {
      v6.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /v6');
      const result = await fetcher().fetchRobots(v6.origin);
      expect(result).toMatchObject({ url: `${v6.origin}/robots.txt`, status: 200, error: null });
      expect(new TextDecoder().decode(result.body)).toBe('User-agent: *\nDisallow: /v6');
      expect(v6.requests.at(-1)!.path).toBe('/robots.txt');
      expect(v6.requests.at(-1)!.headers.host).toBe(v6.origin.slice('http://'.length));
    } finally {
      await v6.stop();
    }
    // Upper case, a default port: the URL parser reads it (the configuration never gives one).
    server.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /x');
    const port = new URL(server.origin).port;
    const written = await fetcher().fetchRobots(`HTTP://127.0.0.1:${port}`);
    expect(written).toMatchObject({ status: 200, error: null });
    expect(server.requests.at(-1)!.headers.host).toBe(`127.0.0.1:${port}`);
    const unusable = await fetcher().fetchRobots('http://127.0.0.1:99999');
    expect(unusable).toMatchObject({ status: null, error: 'network', errorDetail: 'Invalid URL' });
  });

  it.each([204, 206])('keeps the body of a %i', async (status) => {
    server.serve('/robots.txt', status, status === 204 ? '' : 'User-agent: *\n');
    const result = await fetcher().fetchRobots(server.origin);
    expect(result.status).toBe(status);
    expect(result.body).not.toBeNull();
  });

  it.each([400, 401, 403, 404, 410, 429, 500, 502, 503, 599])(
    'records a %i and no body',
    async (status) => {
      server.serve('/robots.txt', status, '<html>error page</html>');
      const result = await fetcher().fetchRobots(server.origin);
      expect(result).toMatchObject({ status, error: null, body: null });
    },
  );

  it('keeps an HTML page served with 200 (the parser reads what it can)', async () => {
    server.serve('/robots.txt', 200, '<!DOCTYPE html><html><body>Welcome</body></html>', {
      'content-type': 'text/html',
    });
    const result = await fetcher().fetchRobots(server.origin);
    expect(new TextDecoder().decode(result.body)).toContain('<!DOCTYPE html>');
  });
});

describe('redirects', () => {
  function chain(hops: number) {
    for (let i = 0; i < hops; i++) {
      server.routes.set(i === 0 ? '/robots.txt' : `/hop${i}`, (_req, res) => {
        res.writeHead(i % 2 ? 302 : 301, { location: `/hop${i + 1}` });
        res.end();
      });
    }
    server.serve(`/hop${hops}`, 200, 'User-agent: *\nDisallow: /end\n');
  }

  it('follows 5 hops and records each', async () => {
    chain(5);
    const result = await fetcher().fetchRobots(server.origin);
    expect(result.status).toBe(200);
    expect(result.finalUrl).toBe(`${server.origin}/hop5`);
    expect(
      result.redirects.map((h) => [
        h.status,
        new URL(h.url).pathname,
        new URL(h.location).pathname,
      ]),
    ).toEqual([
      [301, '/robots.txt', '/hop1'],
      [302, '/hop1', '/hop2'],
      [301, '/hop2', '/hop3'],
      [302, '/hop3', '/hop4'],
      [301, '/hop4', '/hop5'],
    ]);
  });

  it('gives up after a 6th hop: too many redirects, with the last status', async () => {
    chain(6);
    const result = await fetcher().fetchRobots(server.origin);
    expect(result).toMatchObject({ status: 302, error: 'too-many-redirects', body: null });
    expect(result.redirects).toHaveLength(6);
  });

  it('follows a redirect to another host', async () => {
    server.routes.set('/robots.txt', (_req, res) => {
      res.writeHead(308, { location: `${other.origin}/robots.txt` });
      res.end();
    });
    other.serve('/robots.txt', 200, 'User-agent: *\nDisallow: /other\n');
    const result = await fetcher().fetchRobots(server.origin);
    expect(result.finalUrl).toBe(`${other.origin}/robots.txt`);
    expect(new TextDecoder().decode(result.body)).toContain('/other');
  });

  it('refuses a redirect to a non-HTTP scheme', async () => {
    server.routes.set('/robots.txt', (_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    });
    expect(await fetcher().fetchRobots(server.origin)).toMatchObject({
      status: 302,
      error: 'invalid-response',
    });
  });
});

describe('limits', () => {
  it('cuts a 600 KiB body at 512,000 bytes and counts the lines it drops', async () => {
    const head = 'User-agent: *\n' + '# filler line of forty bytes..........\n'.repeat(13_200);
    const body = head + 'Disallow: /past-the-cut\n';
    expect(body.length).toBeGreaterThan(512_000);
    server.serve('/robots.txt', 200, body);
    const result = await fetcher().fetchRobots(server.origin);
    expect(result.body).toHaveLength(512_000);
    const keptLines = new TextDecoder().decode(result.body).split('\n').length - 1;
    const totalLines = body.split('\n').length - 1;
    expect(result.cut).toEqual({
      droppedBytes: body.length - 512_000,
      droppedLineBreaks: totalLines - keptLines,
      complete: true,
    });
  });

  it('caps a gzip bomb after decompression', async () => {
    const bomb = gzipSync(new Uint8Array(50 * 1024 * 1024)); // 50 MiB of zeros, ~50 KiB compressed
    server.serve('/robots.txt', 200, bomb, { 'content-encoding': 'gzip' });
    const result = await fetcher().fetchRobots(server.origin);
    expect(result.status).toBe(200);
    expect(result.body).toHaveLength(512_000);
    expect(result.cut?.complete).toBe(false);
  });

  // Stacked codings are undone last-applied first; raw deflate (no zlib wrapper) is read
  // as browsers read it.
  it.each([
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
    ['br', brotliCompressSync],
    ['gzip', gzipSync],
    ['gzip, gzip', (b: Buffer) => gzipSync(gzipSync(b))],
    ['deflate, br', (b: Buffer) => brotliCompressSync(deflateRawSync(b))],
    ['identity, gzip', gzipSync],
  ] as const)('decodes a body sent as %s (%#)', async (encoding, compress) => {
    server.serve('/robots.txt', 200, compress(Buffer.from('User-agent: *\nDisallow: /z\n')), {
      'content-encoding': encoding,
    });
    const result = await fetcher().fetchRobots(server.origin);
    expect(result).toMatchObject({ status: 200, error: null });
    expect(new TextDecoder().decode(result.body)).toBe('User-agent: *\nDisallow: /z\n');
  });

  it('caps a bomb wrapped twice after the last decompression', async () => {
    const bomb = gzipSync(gzipSync(new Uint8Array(50 * 1024 * 1024)));
    server.serve('/robots.txt', 200, bomb, { 'content-encoding': 'gzip, gzip' });
    const result = await fetcher().fetchRobots(server.origin);
    expect(result.body).toHaveLength(512_000);
    expect(result.cut?.complete).toBe(false);
  });

  it('keeps a body in a coding it cannot undo as sent', async () => {
    server.serve('/robots.txt', 200, 'User-agent: *\n', { 'content-encoding': 'compress' });
    const result = await fetcher().fetchRobots(server.origin);
    expect(result).toMatchObject({ status: 200, error: null });
    expect(new TextDecoder().decode(result.body)).toBe('User-agent: *\n');
  });

  it('reports a body that is not what its encoding says as an invalid response', async () => {
    server.serve('/robots.txt', 200, 'not gzip at all', { 'content-encoding': 'gzip' });
    expect(await fetcher().fetchRobots(server.origin)).toMatchObject({
      status: 200,
      error: 'invalid-response',
      body: null,
    });
  });

  it('reads an empty body as an empty file, and an empty coded one as an invalid response', async () => {
    server.serve('/robots.txt', 200, '');
    expect(await fetcher().fetchRobots(server.origin)).toMatchObject({
      status: 200,
      error: null,
      body: new Uint8Array(),
      cut: null,
    });
    // A deflate body is peeked at before it is read: it has ended by the time it is.
    for (const coding of ['deflate', 'gzip', 'br']) {
      server.serve('/robots.txt', 200, '', { 'content-encoding': coding });
      expect(await fetcher().fetchRobots(server.origin)).toMatchObject({
        status: 200,
        error: 'invalid-response',
        errorDetail: 'unexpected end of file',
        body: null,
      });
    }
  });

  it('stops a server trickling bytes at the whole-fetch deadline', async () => {
    server.routes.set('/robots.txt', (_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('#'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const result = await fetcher({ timeoutMs: 600 }).fetchRobots(server.origin);
    expect(result).toMatchObject({
      status: 200,
      error: 'timeout',
      errorDetail: 'no whole answer within 600 ms',
      body: null,
    });
  });

  it('times out a server that never answers', async () => {
    server.routes.set('/robots.txt', () => undefined);
    expect(await fetcher({ timeoutMs: 300 }).fetchRobots(server.origin)).toMatchObject({
      status: null,
      error: 'timeout',
      errorDetail: 'no whole answer within 300 ms',
    });
  });

  it('runs at most `concurrency` fetches at once; the others wait their turn, not their deadline', async () => {
    // Answers are held until three requests are open, or until the test lets them go:
    // with a limit of two, the third never arrives while two are held.
    let open = 0;
    let most = 0;
    const held: (() => void)[] = [];
    server.routes.set('/robots.txt', (_req, res) => {
      open++;
      most = Math.max(most, open);
      held.push(() => {
        open--;
        res.writeHead(200).end('User-agent: *\nDisallow: /x\n');
      });
    });
    const limited = fetcher({ concurrency: 2, timeoutMs: 60_000 });
    const results = Promise.all(
      Array.from({ length: 6 }, () => limited.fetchRobots(server.origin)),
    );
    let answered = 0;
    while (answered < 6) {
      await waitFor(() => held.length > 0);
      // Both slots are taken before one is let go (until fewer than two remain).
      if (answered < 5) await waitFor(() => held.length === Math.min(2, 6 - answered));
      held.shift()!();
      answered++;
    }
    expect((await results).map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(most).toBe(2);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('network failures', () => {
  it('reports a connection reset mid-body', async () => {
    server.routes.set('/robots.txt', (req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('User-agent: *\nDisall');
      setTimeout(() => req.socket.destroy(), 20);
    });
    expect(await fetcher().fetchRobots(server.origin)).toMatchObject({
      status: 200,
      error: 'reset',
      body: null,
    });
  });

  it('reports a refused connection', async () => {
    const closed = new FixtureServer();
    await closed.start();
    await closed.stop();
    expect(await fetcher().fetchRobots(closed.origin)).toMatchObject({
      status: null,
      error: 'refused',
    });
  });

  it('reports a name that does not resolve', async () => {
    const lookup = ((hostname: string, _options: unknown, callback: (error: Error) => void) => {
      callback(
        Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
      );
    }) as unknown as LookupFunction;
    expect(await fetcher({ lookup }).fetchRobots('http://no-such-host.example')).toMatchObject({
      status: null,
      error: 'dns',
    });
  });

  it('gives up on a connection not made within the connect timeout, before the deadline', async () => {
    // A name server that never answers: the connection is never made.
    const lookup = (() => undefined) as unknown as LookupFunction;
    const result = await fetcher({ lookup, connectTimeoutMs: 200 }).fetchRobots(
      'http://silent-dns.example',
    );
    expect(result).toMatchObject({
      status: null,
      error: 'timeout',
      errorDetail: 'no connection to silent-dns.example within 200 ms',
    });
  });

  it('reports a TLS failure', async () => {
    server.serve('/robots.txt', 200, 'User-agent: *\n');
    const https = server.origin.replace('http:', 'https:');
    expect(await fetcher().fetchRobots(https)).toMatchObject({ status: null, error: 'tls' });
  });
});

describe('the SSRF guard', () => {
  it('refuses a private address in the URL before connecting to it', async () => {
    server.serve('/robots.txt', 200, 'User-agent: *\n');
    const result = await fetcher({ allowPrivateAddresses: false }).fetchRobots(server.origin);
    expect(result).toMatchObject({ status: null, error: 'blocked' });
    expect(result.errorDetail).toBe('127.0.0.1 is a private or reserved address');
    expect(server.connections).toBe(0);
  });

  it('refuses a name that resolves only to private addresses, naming none of them', async () => {
    const port = new URL(server.origin).port;
    const lookup = privateLookup(['127.0.0.1']);
    const result = await fetcher({ allowPrivateAddresses: false, lookup }).fetchRobots(
      `http://intranet.example:${port}`,
    );
    expect(result).toMatchObject({ status: null, error: 'blocked' });
    expect(result.errorDetail).toBe(
      'intranet.example resolves only to private or reserved addresses',
    );
    expect(server.connections).toBe(0);
  });

  it("fetches this machine's sites with allowPrivateAddresses: loopback, by address and by name", async () => {
    server.serve('/robots.txt', 200, 'User-agent: *\n');
    const port = new URL(server.origin).port;
    const loopback = fetcher({
      allowPrivateAddresses: 'loopback',
      lookup: privateLookup(['127.0.0.1']),
    });
    expect(await loopback.fetchRobots(server.origin)).toMatchObject({ status: 200, error: null });
    expect(await loopback.fetchRobots(`http://staging.example:${port}`)).toMatchObject({
      status: 200,
      error: null,
    });
    expect(server.requests).toHaveLength(2);
  });

  it('connects only to the allowed addresses a name resolves to', async () => {
    server.serve('/robots.txt', 200, 'User-agent: *\n');
    const port = new URL(server.origin).port;
    // 127.0.0.2 (private here) comes first; nothing listens on it at that port anyway.
    const lookup = privateLookup(['127.0.0.2', '127.0.0.1']);
    const result = await fetcher({
      isAddressAllowed: (a) => a === '127.0.0.1',
      lookup,
    }).fetchRobots(`http://mixed.example:${port}`);
    expect(result).toMatchObject({ status: 200, error: null });
    expect(other.connections).toBe(0);
  });

  it('checks the address of every hop', async () => {
    server.routes.set('/robots.txt', (_req, res) => {
      res.writeHead(302, { location: `${other.origin}/robots.txt` });
      res.end();
    });
    other.serve('/robots.txt', 200, 'User-agent: *\n');
    // Here 127.0.0.1 counts as public and 127.0.0.2 as private.
    const result = await fetcher({ isAddressAllowed: (a) => a === '127.0.0.1' }).fetchRobots(
      server.origin,
    );
    expect(result).toMatchObject({
      status: null,
      error: 'blocked',
      finalUrl: `${other.origin}/robots.txt`,
    });
    expect(result.redirects).toHaveLength(1);
    expect(other.requests).toHaveLength(0);
  });
});

/** A lookup answering every name with `addresses`, as DNS would. */
function privateLookup(addresses: string[]): LookupFunction {
  return ((
    _hostname: string,
    options: { all?: boolean },
    callback: (error: null, a: unknown, family?: number) => void,
  ) => {
    const all = addresses.map((address) => ({ address, family: 4 }));
    if (options.all) callback(null, all);
    else callback(null, all[0]!.address, 4);
  }) as unknown as LookupFunction;
}

describe('a misbehaving server', () => {
  /** A raw TCP server answering each request with `chunks`, written one by one. */
  async function rawServer(chunks: string[]): Promise<{ origin: string; close(): void }> {
    const raw = createServer((socket) => {
      socket.once('data', () => {
        const write = (i: number): void => {
          if (i === chunks.length) socket.end();
          else socket.write(chunks[i]!, () => setImmediate(write, i + 1));
        };
        write(0);
      });
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const { port } = raw.address() as AddressInfo;
    return { origin: `http://127.0.0.1:${port}`, close: () => raw.close() };
  }
  const robots = 'User-agent: *\nDisallow: /\n';
  const ok = `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${robots.length}\r\nConnection: close\r\n\r\n${robots}`;

  it.each([
    ['an unsolicited 100 Continue in one piece', ['HTTP/1.1 100 Continue\r\n\r\n' + ok]],
    [
      'two unsolicited 100 Continue split anywhere',
      ['HTT', 'P/1.1 10', '0 Continue\r', '\n\r\nHTTP/1.1 100 Continue\r\n\r\n', ok],
    ],
    ['an ordinary answer a few bytes at a time', ok.match(/[\s\S]{1,5}/g)!],
  ])('reads the answer after %s', async (_name, chunks) => {
    const raw = await rawServer(chunks);
    try {
      const result = await fetcher().fetchRobots(raw.origin);
      expect(result).toMatchObject({ status: 200, error: null });
      expect(new TextDecoder().decode(result.body)).toBe(robots);
    } finally {
      raw.close();
    }
  });
});
