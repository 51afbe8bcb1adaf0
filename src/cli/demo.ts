/**
 * `robowatch demo`: the product on four local sites whose robots.txt changes every few
 * minutes (a page newly blocked, a 503, an HTML page served as robots.txt, a site that
 * keeps AI crawlers out), on the embedded database, with no internet needed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../lib/errors.js';
import type { CliContext } from './context.js';
import { runDaemon } from './start.js';

/** What a demo site answers at one step of its story. */
interface Answer {
  readonly status: number;
  readonly type?: string;
  readonly body: string;
}

interface DemoSite {
  readonly name: string;
  readonly tags: readonly string[];
  readonly watch: readonly string[];
  /** Its other pages, listed in its sitemap with the watched ones. */
  readonly pages: readonly string[];
  /**
   * Watched pages its owner blocks on purpose (the demo's intent says so), which its
   * sitemap leaves out, as a well-kept one does: listing them would be Search Console's
   * "Submitted URL blocked by robots.txt".
   */
  readonly keptOut: readonly string[];
  /** Its robots.txt, step after step (then again from the start). */
  readonly story: readonly Answer[];
}

const robots = (body: string): Answer => ({ status: 200, body });

const SHOP = `User-agent: *\nDisallow: /cart\nDisallow: /checkout\n`;
const NEWS = `User-agent: *\nDisallow: /admin/\n\nUser-agent: GPTBot\nDisallow: /\n`;
const BLOG = `User-agent: *\nAllow: /\n`;
const DOCS = `User-agent: *\nDisallow: /search\n\nUser-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nDisallow: /\n`;

/** Four small stories of what goes wrong with robots.txt, told over and over. */
export const DEMO_SITES: readonly DemoSite[] = [
  {
    name: 'Shop',
    tags: ['shop'],
    watch: ['/', '/products/shoes', '/cart', '/pricing'],
    pages: ['/products/hats', '/products/socks', '/products/coats', '/about', '/contact'],
    keptOut: ['/cart'],
    story: [
      robots(SHOP),
      robots(SHOP),
      // A deploy blocks every product page for every crawler.
      robots(
        `${SHOP.replace('Disallow: /checkout\n', 'Disallow: /checkout\nDisallow: /products/\n')}`,
      ),
      robots(SHOP),
    ],
  },
  {
    name: 'News',
    tags: ['news'],
    watch: ['/', '/world/today', '/admin/login'],
    pages: ['/world/yesterday', '/sport/today', '/culture/books', '/about'],
    keptOut: ['/admin/login'],
    story: [
      robots(NEWS),
      // The file answers 503: Google crawls nothing while it lasts.
      { status: 503, body: 'Service Unavailable' },
      robots(NEWS),
      robots(NEWS),
    ],
  },
  {
    name: 'Blog',
    tags: ['content'],
    watch: ['/', '/2026/hello-world'],
    pages: ['/2026/second-post', '/2025/archive', '/about'],
    keptOut: [],
    story: [
      robots(BLOG),
      robots(BLOG),
      robots(BLOG),
      // A CMS update serves its home page at /robots.txt.
      {
        status: 200,
        type: 'text/html',
        body: '<!doctype html><html><head><title>Blog</title></head><body><h1>Welcome</h1></body></html>',
      },
    ],
  },
  {
    name: 'Docs',
    tags: ['content'],
    watch: ['/', '/guide/start', '/search'],
    pages: ['/guide/install', '/guide/configure', '/reference/api'],
    keptOut: ['/search'],
    story: [robots(DOCS)],
  },
];

/** Serves each demo site on a loopback port; the step moves every `stepMs`. */
async function startFarm(
  stepMs: number,
  now: () => number,
  /** The ports of the last run, taken again where they are free (its history carries on). */
  ports: readonly number[] = [],
): Promise<{
  origins: string[];
  /** Where the demo's alerts go (a loopback receiver that takes them all). */
  chat: string;
  close(): Promise<void>;
}> {
  const started = now();
  const servers: Server[] = [];
  const origins: string[] = [];
  for (const site of DEMO_SITES) {
    const server = createServer((req, res) => {
      if (req.url === '/sitemap.xml') {
        // Its pages, for coverage: the watched ones and a few more of each section, but
        // not those it keeps out of crawlers' reach.
        const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
        const paths = [...site.watch, ...site.pages].filter((p) => !site.keptOut.includes(p));
        res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${paths.map((p) => `  <url><loc>${origin}${p}</loc></url>`).join('\n')}\n</urlset>\n`,
          );
        return;
      }
      if (req.url !== '/robots.txt') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>${site.name}</h1>`);
        return;
      }
      const step = Math.floor((now() - started) / stepMs);
      const answer = site.story[step % site.story.length]!;
      res
        .writeHead(answer.status, { 'content-type': answer.type ?? 'text/plain' })
        .end(answer.body);
    });
    const wanted = ports[servers.length] ?? 0;
    await new Promise<void>((ready, fail) => {
      server.once('error', fail);
      server.listen(wanted, '127.0.0.1', ready);
    }).catch(
      // Taken by something else since: another port (that site's history starts afresh).
      () => new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready)),
    );
    servers.push(server);
    origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  // A team's chat on loopback: it takes every alert (Slack's form), so that the alert log
  // shows what the demo sent and that it arrived.
  const chat = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((ready, fail) => {
    chat.once('error', fail);
    chat.listen(ports[DEMO_SITES.length] ?? 0, '127.0.0.1', ready);
  }).catch(() => new Promise<void>((ready) => chat.listen(0, '127.0.0.1', ready)));
  servers.push(chat);
  return {
    origins,
    chat: `http://127.0.0.1:${(chat.address() as AddressInfo).port}/chat`,
    close: async () => {
      await Promise.all(servers.map((s) => new Promise<void>((done) => s.close(() => done()))));
    },
  };
}

/** The demo's configuration: the four sites, checked often, a token to sign in with. */
export function demoConfig(options: {
  dataDir: string;
  origins: readonly string[];
  /** The loopback receiver its alerts go to. */
  chat?: string;
  listen: string;
  token: string;
  schedule: string;
}): string {
  const q = (s: string) => JSON.stringify(s);
  const sites = DEMO_SITES.map(
    (site, i) =>
      `  - url: ${q(options.origins[i]!)}\n    name: ${q(site.name)}\n    tags: [${site.tags.map(q).join(', ')}]\n    watch: [${site.watch.map(q).join(', ')}]`,
  ).join('\n');
  return `# Written by robowatch demo: four local sites whose robots.txt changes over time.
dataDir: ${q(options.dataDir)}
agents: [Googlebot, Bingbot, GPTBot, ClaudeBot, "*"]
# What a site added without watched URLs of its own watches ("Add many", the API).
watch: ["/", "/pricing", "/blog/"]
sites:
${sites}
# What the owners intend: every watched page crawled by the search engines, but the shop's
# cart, the newsroom's admin and the docs' search results kept out on purpose. Blocking
# those is no incident; a deploy that blocks the products is. Top-level, so that each site's
# intent can still be changed in the UI (Accept as intended).
intent:
  - {watch: "/*", agents: ["@search"], expect: allowed}
  - {watch: "/cart", agents: ["@search", "*"], expect: disallowed}
  - {watch: "/admin/*", agents: ["@search", "*"], expect: disallowed}
  - {watch: "/search", agents: ["@search", "*"], expect: disallowed}
fetch: {allowPrivateAddresses: loopback, confirmRetries: 0, timeoutMs: 5000}
schedule: {check: ${q(options.schedule)}}
web: {listen: ${q(options.listen)}, token: ${q(options.token)}}
${options.chat === undefined ? '' : `notify: {webhooks: [{url: ${q(options.chat)}, format: slack}], flapWindow: 2m}\n`}`;
}

/** The last run's token and site ports, if it left them (and they read as such). */
function readDemoState(file: string): { token: string; ports: number[] } | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as { token?: unknown; ports?: unknown };
    if (
      typeof value.token === 'string' &&
      /^[0-9a-f]{24}$/.test(value.token) &&
      Array.isArray(value.ports) &&
      value.ports.every((p) => Number.isInteger(p) && (p as number) > 0 && (p as number) < 65536)
    )
      return { token: value.token, ports: value.ports as number[] };
  } catch {
    // none, or unreadable: a fresh start
  }
  return undefined;
}

export function registerDemo(program: Command, context: CliContext): void {
  program
    .command('demo')
    .summary('run robowatch on four local sites whose robots.txt changes (no internet needed)')
    .description(
      'Starts four small sites on 127.0.0.1 whose robots.txt changes every --step seconds (a page newly blocked, a 503, an HTML page served as robots.txt, AI crawlers kept out), writes a configuration for them, and runs the daemon and the web UI on the embedded database in --data-dir. Ctrl-C stops it.',
    )
    .option('--listen <address>', 'where the web UI listens', '127.0.0.1:8080')
    .option(
      '--data-dir <dir>',
      'where the demo keeps its database and configuration',
      './demo-data',
    )
    .option('--step <seconds>', 'how often the sites change their robots.txt', '120')
    .action(async (options: { listen: string; dataDir: string; step: string }) => {
      const step = Number(options.step);
      if (!Number.isInteger(step) || step < 2 || step > 86_400)
        throw new UsageError(
          `--step must be a whole number of seconds from 2 to 86400, not "${options.step}"`,
        );
      const dataDir = resolve(context.cwd, options.dataDir);
      mkdirSync(dataDir, { recursive: true });
      // The last run's sites (their ports) and token are kept in the data directory: the
      // demo's history, sites and sign-in carry on across restarts.
      const state = join(dataDir, 'demo-state.json');
      const previous = readDemoState(state);
      const farm = await startFarm(step * 1000, () => context.now().getTime(), previous?.ports);
      // Each site is checked twice per step: every change is seen.
      const every = Math.max(1, Math.floor(step / 2));
      const schedule = every < 60 ? `*/${every} * * * * *` : `*/${Math.floor(every / 60)} * * * *`;
      const token = previous?.token ?? randomBytes(12).toString('hex');
      const ports = [...farm.origins, farm.chat].map((o) => Number(new URL(o).port));
      writeFileSync(state, JSON.stringify({ token, ports }), { mode: 0o600 });
      const fresh =
        previous === undefined
          ? 'starting fresh'
          : ports.every((p, i) => p === previous.ports[i])
            ? 'carrying on from its last run (delete the data directory to start fresh)'
            : 'carrying on from its last run; some sites got new ports, so their history starts afresh';
      const file = join(dataDir, 'robowatch-demo.yaml');
      writeFileSync(
        file,
        demoConfig({
          dataDir: join(dataDir, 'data'),
          origins: farm.origins,
          chat: farm.chat,
          listen: options.listen,
          token,
          schedule,
        }),
      );
      try {
        await runDaemon(context, {
          config: file,
          web: true,
          command: 'demo',
          onListening: (url) =>
            context.io.stderr.write(
              `robowatch demo: ${DEMO_SITES.length} local sites whose robots.txt changes every ${step} s, ${fresh} (${dataDir}).\n` +
                `Open ${url} and sign in with the token ${token} (its configuration: ${file}).\n`,
            ),
        });
      } finally {
        await farm.close();
      }
    });
}
