import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Config, SiteConfig } from '../config/config.js';
import { ConfigError } from '../config/config.js';
import { parseConfig, resolveSiteSettings } from '../config/validate.js';
import { DEFAULT_CONFIG_PATH } from '../config/load.js';
import { FatalError, UsageError } from '../lib/errors.js';
import { DEFAULT_DISCOVERY_LIMITS } from '../monitor/check/sitemaps.js';
import { runGate } from '../monitor/gate.js';
import { siteLabel } from '../policy/wording/format.js';
import type { CliContext } from './context.js';
import { firstOf, ONE_CONNECTION, openStore, originOf, originsOf, readConfig } from './context.js';
import { GATE_FORMATS, gateReport } from './gate-report.js';
import type { GateFormat } from './gate-report.js';
import { collect, readInput, write } from './io.js';
import { ALLOW_LOOPBACK_HELP, addressesAllowed } from './address-flags.js';
import type { AddressFlags } from './address-flags.js';
import { wireCatalog } from '../compose.js';

interface GateOptions extends AddressFlags {
  site?: string;
  against?: string;
  watch?: string[];
  agent?: string[];
  sitemaps: boolean;
  newOnly?: boolean;
  format: string;
  output?: string;
  config?: string;
}

/** `robowatch gate FILE`: may this draft robots.txt ship? Exit 0 yes, 1 no, 2 bad usage. */
export function registerGate(program: Command, context: CliContext): void {
  program
    .command('gate')
    .summary('judge a draft robots.txt before it ships (exit 1 when it must not)')
    .description(
      'Compares a draft robots.txt with the live one over the site’s watched pages, its\n' +
        'sitemap URL set and its intent, and says what crawlers would do differently, in\n' +
        'the words of alerts. Exits 0 when the draft keeps the site as intended and newly\n' +
        'blocks no more of the URL set than notify.coverage allows, 1 when it does not, 2 on\n' +
        'a usage error. Nothing is recorded, and no database is needed for a site of the\n' +
        'configuration file; with one (DATABASE_URL, or the embedded one), its intent set\n' +
        "in the web UI applies, as it does to the daemon's alerts.",
    )
    .argument('<file>', 'the draft robots.txt ("-" reads standard input)')
    .option('--site <origin>', 'a site of the configuration: its watched pages, crawlers, intent')
    .option(
      '--against <url>',
      'fetch the live robots.txt from this site instead (https://example.com); without --site, judge it with --watch and --agent and the default intent',
    )
    .option(
      '--watch <url>',
      'with --against alone: a page to judge (a path or URL); repeat for several (default: the home page)',
      collect,
    )
    .option(
      '--agent <token>',
      'with --against alone: a crawler or preset (@search, @ai-training); repeat for several (default: the configuration’s agents)',
      collect,
    )
    .option('--no-sitemaps', 'do not read the sitemap URL set (only the watched pages)')
    .option(
      '--new-only',
      'fail only on what the draft makes worse: pairs the live file already gets wrong are warnings',
    )
    .option('--format <format>', `what to print: ${GATE_FORMATS.join(', ')}`, 'text')
    .option('-o, --output <file>', 'write the report to this file instead of standard output')
    .option(
      '--allow-private-addresses',
      'fetch from any address, loopback, private networks and the cloud metadata address included (a staging site on this network)',
    )
    .option('--allow-loopback', ALLOW_LOOPBACK_HELP)
    .option(
      '--config <file>',
      'configuration file (default: $ROBOWATCH_CONFIG or config/robowatch.yaml; optional with --against)',
    )
    .addHelpText(
      'after',
      `
Examples:
  robowatch gate public/robots.txt --site https://shop.example --format github
  robowatch gate public/robots.txt --site https://shop.example --format junit -o gate.xml
  robowatch gate robots.txt --against https://example.com --watch / --watch /pricing`,
    )
    .action(async (file: string, options: GateOptions) => {
      const format = formatOf(options.format);
      if (options.site === undefined && options.against === undefined)
        throw new UsageError(
          'name the site: --site ORIGIN (a site of the configuration) or --against URL (any site, with --watch)',
        );
      if (
        options.site !== undefined &&
        (options.watch !== undefined || options.agent !== undefined)
      )
        throw new UsageError(
          '--watch and --agent go with --against alone: a configured site’s watched pages and crawlers come from the configuration',
        );
      const liveOrigin = options.against === undefined ? undefined : againstOrigin(options.against);
      const config = await gateConfig(context, options);
      const site =
        options.site !== undefined
          ? await configuredSite(context, config, options.site)
          : adHocSite(config, liveOrigin!, options);
      const draft = await readInput(file, 'draft robots.txt', context);
      const allowPrivateAddresses = addressesAllowed(options, config.fetch.allowPrivateAddresses);
      const fetcher = context.createFetcher({
        ...config,
        fetch: { ...config.fetch, allowPrivateAddresses },
      });
      let report;
      try {
        report = await runGate(fetcher, {
          site,
          draft,
          liveOrigin: liveOrigin ?? site.origin,
          sitemaps: options.sitemaps,
          limits: {
            ...DEFAULT_DISCOVERY_LIMITS,
            maxUrls: config.fetch.sitemapMaxUrls,
            timeoutMs: config.fetch.sitemapTimeoutMs,
          },
          thresholds: config.notify.coverage,
          newOnly: options.newOnly === true,
          allowPrivateAddresses,
        });
      } finally {
        await fetcher.close();
      }
      const text = gateReport(format, report, {
        file: file === '-' ? '-' : shownPath(context.cwd, file),
        at: context.now(),
      });
      if (options.output === undefined) await write(context.io.stdout, text);
      else
        await writeFile(resolve(context.cwd, options.output), text).catch(
          (error: NodeJS.ErrnoException) => {
            throw new UsageError(
              `cannot write "${options.output}": ${error.code ?? error.message}`,
            );
          },
        );
      if (!report.result.passed)
        throw new FatalError(
          `gate failed: the draft must not ship for ${siteLabel(site.origin, site.name)}; the report${options.output === undefined ? ' above' : ` in ${options.output}`} says why`,
        );
    });
}

function formatOf(value: string): GateFormat {
  if ((GATE_FORMATS as readonly string[]).includes(value)) return value as GateFormat;
  throw new UsageError(`--format must be one of ${GATE_FORMATS.join(', ')}, not "${value}"`);
}

/** The origin --against names: a site, or its robots.txt URL. */
function againstOrigin(value: string): string {
  const origin = originOf(value);
  const path = URL.canParse(value) ? new URL(value).pathname : '/';
  if (origin === undefined || (path !== '/' && path !== '/robots.txt'))
    throw new UsageError(
      `--against must be a site such as https://example.com (or its /robots.txt), not "${value}"`,
    );
  return origin;
}

/**
 * The configuration: --config, $ROBOWATCH_CONFIG or the default file; with --against
 * alone and no file, the built-in defaults. A configuration that cannot be read is a
 * usage error here: exit 1 says the draft failed.
 */
async function gateConfig(context: CliContext, options: GateOptions): Promise<Config> {
  const named = options.config ?? context.env['ROBOWATCH_CONFIG'];
  try {
    if (
      named === undefined &&
      options.site === undefined &&
      !existsSync(`${context.cwd}/${DEFAULT_CONFIG_PATH}`)
    )
      return parseConfig('{}', {
        file: '(built-in defaults)',
        cwd: context.cwd,
        env: context.env,
        version: context.version,
      });
    return await readConfig(context, options.config);
  } catch (error) {
    if (error instanceof FatalError || error instanceof ConfigError)
      throw new UsageError(error.message);
    throw error;
  }
}

/**
 * A site of the configuration file; else, with a database (DATABASE_URL, or the embedded
 * one no daemon holds), one added in the web UI or API. With a database, a site of the
 * file is read as the daemon judges it: its intent set in the web UI applies.
 */
async function configuredSite(
  context: CliContext,
  config: Config,
  value: string,
): Promise<SiteConfig> {
  const origin = originOf(value);
  if (origin === undefined)
    throw new UsageError(
      `--site must be a site origin such as https://example.com, not "${value}"`,
    );
  // Without a scheme: https, else http, whichever is watched.
  const origins = originsOf(value);
  const inFile = firstOf(origins, (o) => config.sites.find((s) => s.origin === o));
  const notFound = `${origin} is not a site of ${config.file}`;
  // No database: a site of the file as the file gives it (the gate needs none).
  if (config.databaseUrl === undefined && !existsSync(config.dataDir)) {
    if (inFile !== undefined) return inFile;
    throw new UsageError(
      `${notFound} (sites added in the web UI are found with DATABASE_URL set); use --against ${origin} --watch PATH for a site robowatch does not watch`,
    );
  }
  let handle;
  try {
    handle = await openStore(context, config, ONE_CONNECTION);
  } catch (error) {
    if (!(error instanceof FatalError)) throw error;
    if (inFile === undefined)
      throw new UsageError(`${notFound}, and its database cannot be read here: ${error.message}`);
    // Judged all the same, and said: an intent set in the web would make the daemon alert.
    await write(
      context.io.stderr,
      `robowatch: gate: ${inFile.origin} is judged against ${config.file} alone: its database cannot be read here (${error.message}), so an intent set in the web UI is not applied\n`,
    );
    return inFile;
  }
  try {
    // Read without writing: the gate may run with a database user that can only read.
    const catalog = wireCatalog(context, config, handle.db);
    // A site of the file as the daemon judges it: with the intent set in the web, if any.
    if (inFile !== undefined) return (await catalog.readFileSite(inFile.origin)) ?? inFile;
    let site: SiteConfig | string | undefined;
    for (const candidate of origins) site ??= await catalog.readSite(candidate);
    if (typeof site === 'string') throw new UsageError(site);
    if (site === undefined)
      throw new UsageError(
        `${origin} is not a site robowatch watches; use --against ${origin} --watch PATH to judge a draft for it`,
      );
    return site;
  } finally {
    await handle.close();
  }
}

/** A site robowatch does not watch: --watch pages (the home page) for --agent crawlers. */
function adHocSite(config: Config, origin: string, options: GateOptions): SiteConfig {
  try {
    return resolveSiteSettings(config, origin, {
      watch: options.watch ?? ['/'],
      ...(options.agent === undefined ? {} : { agents: options.agent }),
    }).site;
  } catch (error) {
    if (error instanceof ConfigError)
      throw new UsageError(
        error.message.replace(/^watch/, '--watch').replace(/^agents/, '--agent'),
      );
    throw error;
  }
}

/** The draft's path as annotations name it: relative to where the command runs. */
function shownPath(cwd: string, file: string): string {
  if (!isAbsolute(file)) return file.replace(/^\.\//, '');
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
