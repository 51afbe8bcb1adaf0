/**
 * `robowatch demo`: the product on four local sites whose robots.txt changes every few
 * minutes (a page newly blocked, a 503, an HTML page served as robots.txt, a site that
 * keeps AI crawlers out), on the embedded database, with no internet needed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
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
  /** Its robots.txt, step after step (then again from the start). */
  readonly story: readonly Answer[];
}

const robots = (body: string): Answer => ({ status: 200, body });

const SHOP = `User-agent: *\nDisallow: /cart\nDisallow: /checkout\n\nSitemap: https://shop.example/sitemap.xml\n`;
const NEWS = `User-agent: *\nDisallow: /admin/\n\nUser-agent: GPTBot\nDisallow: /\n`;
const BLOG = `User-agent: *\nAllow: /\n`;
const DOCS = `User-agent: *\nDisallow: /search\n\nUser-agent: GPTBot\nUser-agent: ClaudeBot\nUser-agent: CCBot\nDisallow: /\n`;

/** Four small stories of what goes wrong with robots.txt, told over and over. */
export const DEMO_SITES: readonly DemoSite[] = [
  {
    name: 'Shop',
    tags: ['shop'],
    watch: ['/', '/products/shoes', '/cart', '/pricing'],
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
    story: [robots(DOCS)],
  },
];

/** Serves each demo site on a loopback port; the step moves every `stepMs`. */
async function startFarm(
  stepMs: number,
  now: () => number,
): Promise<{
  origins: string[];
  close(): Promise<void>;
}> {
  const started = now();
  const servers: Server[] = [];
  const origins: string[] = [];
  for (const site of DEMO_SITES) {
    const server = createServer((req, res) => {
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
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    servers.push(server);
    origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  return {
    origins,
    close: async () => {
      await Promise.all(servers.map((s) => new Promise<void>((done) => s.close(() => done()))));
    },
  };
}

/** The demo's configuration: the four sites, checked often, a token to sign in with. */
export function demoConfig(options: {
  dataDir: string;
  origins: readonly string[];
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
fetch: {allowPrivateAddresses: true, confirmRetries: 0, timeoutMs: 5000}
schedule: {check: ${q(options.schedule)}}
web: {listen: ${q(options.listen)}, token: ${q(options.token)}}
`;
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
      const farm = await startFarm(step * 1000, () => context.now().getTime());
      // Each site is checked twice per step: every change is seen.
      const every = Math.max(1, Math.floor(step / 2));
      const schedule = every < 60 ? `*/${every} * * * * *` : `*/${Math.floor(every / 60)} * * * *`;
      const token = randomBytes(12).toString('hex');
      const file = join(dataDir, 'robowatch-demo.yaml');
      writeFileSync(
        file,
        demoConfig({
          dataDir: join(dataDir, 'data'),
          origins: farm.origins,
          listen: options.listen,
          token,
          schedule,
        }),
      );
      try {
        await runDaemon(context, {
          config: file,
          web: true,
          onListening: (url) =>
            context.io.stderr.write(
              `robowatch demo: ${DEMO_SITES.length} local sites whose robots.txt changes every ${step} s.\n` +
                `Open ${url} and sign in with the token ${token} (its configuration: ${file}).\n`,
            ),
        });
      } finally {
        await farm.close();
      }
    });
}
