/**
 * A loopback farm answering robots.txt for many sites, run as a child process by
 * check.bench.ts. Each site is its own port on 127.0.0.1 (an origin of its own), each
 * answer a realistic file of its own; "version" (set over IPC) changes every file.
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

if (process.send) {
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
