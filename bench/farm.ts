/**
 * A loopback farm answering robots.txt for many sites, run as a child process by the
 * benchmarks; each answer is a realistic file of its own, and "version" (set over IPC)
 * changes every file. Each site is an origin of its own: by default its own port on
 * 127.0.0.1 (check.bench.ts); with `hosts` (scale.bench.ts, past the 28,000 ports a
 * machine has) one port on every loopback address, site i at hostAddress(i).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let version = 0;

export function robotsBody(site: number, v: number): string {
  return [
    `# robots.txt for site ${site}`,
    'User-agent: *',
    'Disallow: /admin/',
    'Disallow: /cart',
    'Disallow: /search',
    'Allow: /search/about',
    'Disallow: /*?sessionid=',
    'Disallow: /*.pdf$',
    ...(v > 0 ? ['Disallow: /blog/'] : []),
    '',
    'User-agent: GPTBot',
    'User-agent: CCBot',
    'Disallow: /',
    '',
    'User-agent: Googlebot',
    'Allow: /',
    'Disallow: /private/',
    '',
    `Sitemap: https://site-${site}.example/sitemap.xml`,
    '',
  ].join('\n');
}

async function listen(site: number): Promise<number> {
  const server = createServer((req, res) => {
    if (req.url !== '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(robotsBody(site, version));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', 4096, resolve));
  return (server.address() as AddressInfo).port;
}

/** Site i's loopback address in `hosts` mode: 127.1.0.0 onwards (127.0.0.0/8 is loopback). */
export function hostAddress(site: number): string {
  return `127.${1 + (site >> 16)}.${(site >> 8) & 255}.${site & 255}`;
}

function siteOfHost(host: string | undefined): number {
  const match = /^127\.(\d+)\.(\d+)\.(\d+)/.exec(host ?? '');
  return match ? ((Number(match[1]) - 1) << 16) | (Number(match[2]) << 8) | Number(match[3]) : -1;
}

async function listenForHosts(): Promise<number> {
  const server = createServer((req, res) => {
    const site = siteOfHost(req.headers.host);
    if (req.url !== '/robots.txt' || site < 0) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(robotsBody(site, version));
  });
  // Every address of 127.0.0.0/8, which only 0.0.0.0 covers.
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', 4096, resolve));
  return (server.address() as AddressInfo).port;
}

if (process.send && process.argv[3] === 'hosts') {
  process.send({ port: await listenForHosts() });
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: { version: number }) => {
    version = message.version;
    process.send!({ version });
  });
} else if (process.send) {
  const sites = Number(process.argv[2] ?? 10_000);
  const ports: number[] = [];
  for (let i = 0; i < sites; i++) ports.push(await listen(i));
  process.send({ ports });
  // Die with the benchmark, whatever ends it.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: { version: number }) => {
    version = message.version;
    process.send!({ version });
  });
}
