import type { Command } from 'commander';
import { UsageError } from '../lib/errors.js';
import {
  compileAgent,
  crawlerTokenIn,
  getPathParamsQuery,
  isProfile,
  isValidProductToken,
  parseRobotsTxt,
  PROFILES,
} from '../robots/index.js';
import type { AgentRules, Profile, RobotsTxt, Verdict } from '../robots/index.js';
import { classifyFetch } from '../policy/access.js';
import { preferencesDocument, preferencesText } from '../policy/preferences.js';
import { redirectOf } from '../policy/fetch-result.js';
import type { FetchResult } from '../policy/fetch-result.js';
import { visibleControls } from '../policy/wording/format.js';
import { fromRedirect } from '../policy/wording/status-words.js';
import { collect, forEachLineBatch, readInput, readTextInput, write } from './io.js';
import type { CliInput, CliIo } from './io.js';
import { ALLOW_LOOPBACK_HELP, addressesAllowed } from './address-flags.js';
import type { AddressFlags } from './address-flags.js';
import type { FetchConfig } from '../config/config.js';

interface EvalOptions extends AddressFlags {
  robots?: string;
  agent: string[];
  profile: string;
  urlsFile?: string;
  json?: boolean;
  jsonl?: boolean;
}

/** Fetches a site's live robots.txt with robowatch's fetcher and limits (loaded when asked). */
export type LiveFetch = (
  origin: string,
  allowPrivateAddresses: FetchConfig['allowPrivateAddresses'],
) => Promise<FetchResult>;

/** `robowatch eval`: verdicts for URLs against a robots.txt file, or for JSON lines on stdin. */
export function registerEval(program: Command, from: CliInput, fetchLive: LiveFetch): void {
  const { io } = from;
  program
    .command('eval')
    .summary('evaluate URLs against a robots.txt file')
    .description(
      'Prints, for each URL and crawler, ALLOWED or DISALLOWED and the rule that decided it,\n' +
        'and the usage preferences (Content-Usage, Content-Signal) that apply to it.\n' +
        'With --jsonl, reads {"robotstxt", "agent", "url", "profile"?} objects from standard\n' +
        'input, one per line, and writes {"allowed", "rule"} for each, in order.',
    )
    .argument('[urls...]', 'URLs as the crawler would request them (already %-encoded)')
    .option(
      '--robots <file>',
      'the robots.txt file ("-" reads standard input), or a site (https://example.com): its live robots.txt',
    )
    .option(
      '--allow-private-addresses',
      'with --robots URL: fetch from any address, loopback, private networks and the cloud metadata address included (a site on this network)',
    )
    .option('--allow-loopback', `with --robots URL: ${ALLOW_LOOPBACK_HELP}`)
    .option('--agent <token>', 'crawler product token, e.g. Googlebot; repeat for several', collect)
    .option('--profile <profile>', `interpretation: ${PROFILES.join(', ')}`, 'google')
    .option('--urls-file <file>', 'read URLs from a file, one per line')
    .option('--json', 'print one JSON object per URL and crawler')
    .option('--jsonl', 'evaluate JSON lines from standard input (see above)')
    .addHelpText(
      'after',
      `
Examples:
  robowatch eval --robots robots.txt --agent Googlebot --agent GPTBot https://example.com/pricing
  robowatch eval --robots https://example.com --agent GPTBot https://example.com/blog/`,
    )
    .action(async (urls: string[], flags: Omit<EvalOptions, 'agent'> & { agent?: string[] }) => {
      const options: EvalOptions = { ...flags, agent: flags.agent ?? [] };
      if (options.jsonl) await evalJsonLines(urls, options, io);
      else await evalUrls(urls, options, from, fetchLive);
    });
}

function checkProfile(value: string, where = ''): Profile {
  if (!isProfile(value)) {
    throw new UsageError(`${where}unknown profile "${value}" (expected ${PROFILES.join(', ')})`);
  }
  return value;
}

async function evalUrls(
  args: string[],
  options: EvalOptions,
  from: CliInput,
  fetchLive: LiveFetch,
): Promise<void> {
  const { io } = from;
  const profile = checkProfile(options.profile);
  if (options.robots === undefined) throw new UsageError('missing --robots FILE');
  if (options.agent.length === 0) throw new UsageError('missing --agent TOKEN');
  const empty = options.agent.find((a) => a.trim() === '');
  if (empty !== undefined) throw new UsageError('--agent must not be empty');
  // The 1996 standard matches a crawler's name within its user-agent string: no warning.
  for (const agent of profile === 'legacy' ? [] : options.agent) {
    const warning = agentWarning(agent);
    if (warning !== undefined) await write(io.stderr, `warning: ${visibleControls(warning)}\n`);
  }
  if (options.robots === '-' && options.urlsFile === '-') {
    throw new UsageError('--robots and --urls-file cannot both read standard input');
  }

  // Read every input before printing anything, so a bad input prints nothing but its error.
  const live = /^https?:\/\//i.test(options.robots)
    ? await liveFile(options.robots, addressesAllowed(options), fetchLive, io)
    : undefined;
  const robots = live?.body ?? (await readInput(options.robots, 'robots file', from));
  const urls = [...args];
  if (options.urlsFile !== undefined) {
    const text = await readTextInput(options.urlsFile, 'URLs file', from);
    for (const line of text.split(/\r?\n/)) if (line.trim() !== '') urls.push(line.trim());
  }
  if (urls.length === 0)
    throw new UsageError('no URLs: pass them as arguments or with --urls-file');
  const site = live === undefined ? undefined : new URL(options.robots).origin;
  const doubtful = [...new Set(urls)].flatMap((url) => urlWarning(url, site) ?? []);
  for (const warning of doubtful.slice(0, MAX_URL_WARNINGS))
    await write(io.stderr, `warning: ${visibleControls(warning)}\n`);
  if (doubtful.length > MAX_URL_WARNINGS)
    await write(
      io.stderr,
      `warning: and ${doubtful.length - MAX_URL_WARNINGS} more URLs like these\n`,
    );

  const parsed = parseRobotsTxt(robots, { profile, ...(live?.cut ? { cut: live.cut } : {}) });
  // A live file that is not there (4xx) allows everything; one that fails (5xx, no
  // answer) disallows everything, as crawlers read it under the profile.
  const access = live === undefined ? 'ok' : classifyFetch(live, profile);
  const lines: string[] = [];
  const widths = {
    agent: Math.max(...options.agent.map((a) => visibleControls(a).length)),
    url: Math.min(URL_COLUMN, Math.max(...urls.map((u) => visibleControls(u).length))),
  };
  for (const agent of options.agent) {
    const rules = compileAgent(parsed, agent);
    for (const url of urls) {
      const verdict: Verdict =
        access === 'ok' ? rules.evaluate(url) : { allowed: access === 'unavailable', rule: null };
      // Usage preferences live in the file: none without one, none for a disallowed URL.
      const preferences = preferencesDocument(
        access === 'ok' && verdict.allowed ? rules.preferences(url) : null,
      );
      const said = preferencesText(preferences);
      lines.push(
        options.json
          ? JSON.stringify({ url, agent, profile, ...verdict, ...preferences })
          : (access === 'ok'
              ? formatVerdict(url, agent, verdict, widths)
              : formatVerdict(url, agent, verdict, widths).replace(/no rule applies$/, live!.why)) +
              (said === '' ? '' : `  · usage: ${visibleControls(said)}`),
      );
    }
  }
  for (const finding of parsed.lint) {
    if (finding.severity === 'error') {
      await write(
        io.stderr,
        `warning: ${visibleControls(`${options.robots} line ${finding.line}: ${finding.message}`)}\n`,
      );
    }
  }
  await write(io.stdout, lines.join('\n') + '\n');
}

/** The URLs warned of one by one; the rest are counted. */
const MAX_URL_WARNINGS = 10;

/**
 * What to say of a URL that is not what its verdict seems to be about: one that does not
 * parse (evaluated anyway, as Google's parser reads it) or, against a site's live file,
 * one on another site (whose own robots.txt crawlers read for it).
 */
function urlWarning(url: string, site: string | undefined): string | undefined {
  if (url.startsWith('/') && !url.startsWith('//')) return undefined;
  const absolute = /^https?:\/\//i.test(url) && URL.canParse(url);
  if (!absolute)
    return `"${url}" is neither an http(s) URL nor a path starting with "/": it is evaluated as Google's parser reads it, as the path "${getPathParamsQuery(url)}"`;
  const { origin } = new URL(url);
  if (site !== undefined && origin !== site)
    return `${url} is not on ${site}: crawlers read ${origin}/robots.txt for it, not this file`;
  return undefined;
}

/**
 * A site's live robots.txt: its body when the answer was 2xx (cut at 500 KiB), and the
 * reason its verdicts give otherwise. Says on stderr what was fetched.
 */
async function liveFile(
  value: string,
  allowPrivate: FetchConfig['allowPrivateAddresses'],
  fetchLive: LiveFetch,
  io: CliIo,
): Promise<FetchResult & { body: Uint8Array; why: string }> {
  if (!URL.canParse(value)) throw new UsageError(`--robots ${value}: not a URL`);
  const { origin } = new URL(value);
  const result = await fetchLive(origin, allowPrivate);
  // robowatch's own guard refused the address: that says nothing of what crawlers may do.
  if (result.error === 'blocked')
    throw new UsageError(
      `--robots ${origin}: robowatch did not fetch it: ${result.errorDetail ?? 'a private or reserved address'}; ${
        allowPrivate === 'loopback'
          ? 'pass --allow-private-addresses to read a host on a private network'
          : 'pass --allow-loopback to read a site on this machine, or --allow-private-addresses for a host on a private network'
      }`,
    );
  const answered =
    result.error === 'too-many-redirects'
      ? 'redirected more than 5 times'
      : result.status !== null
        ? `answered ${result.status}`
        : `could not be fetched (${result.error}${result.errorDetail ? `: ${result.errorDetail}` : ''})`;
  await write(
    io.stderr,
    `${result.url} ${answered}${fromRedirect(redirectOf(result))}` +
      (result.body === null
        ? ''
        : `, ${result.body.length} bytes${result.cut ? ' (cut at 500 KiB)' : ''}`) +
      '\n',
  );
  return {
    ...result,
    body:
      result.status !== null && result.status >= 200 && result.status <= 299
        ? (result.body ?? new Uint8Array())
        : new Uint8Array(),
    why: `robots.txt ${answered}`,
  };
}

/**
 * What to say when an --agent is not a product token (a full user-agent string, a token
 * with its version): robots.txt groups name crawlers by product token, so it matches the
 * group of no crawler it names.
 */
export function agentWarning(agent: string): string | undefined {
  if (agent === '*' || isValidProductToken(agent)) return undefined;
  const crawler = crawlerTokenIn(agent);
  const hint =
    crawler === undefined ? '' : `; the crawler it names is ${crawler}: try --agent ${crawler}`;
  return `--agent "${agent.slice(0, 120)}" is not a product token: robots.txt groups name crawlers by product token (letters, "-", "_"), so it matches only the * group${hint}`;
}

/** URLs longer than this are not padded: the rule after them is not pushed off the screen. */
const URL_COLUMN = 60;

/**
 * `DISALLOWED  Googlebot  https://example.com/x  line 3: Disallow: /x`, the crawler and
 * URL padded to `widths` so that the rules line up.
 */
export function formatVerdict(
  url: string,
  agent: string,
  verdict: Verdict,
  widths: { readonly agent: number; readonly url: number } = { agent: 0, url: 0 },
): string {
  const { rule } = verdict;
  const why =
    rule === null
      ? 'no rule applies'
      : `line ${rule.line}: ${rule.directive === 'allow' ? 'Allow' : 'Disallow'}: ${visibleControls(rule.pattern)}`.trimEnd();
  return `${(verdict.allowed ? 'ALLOWED' : 'DISALLOWED').padEnd(10)}  ${visibleControls(agent).padEnd(widths.agent)}  ${visibleControls(url).padEnd(widths.url)}  ${why}`;
}

async function evalJsonLines(args: string[], options: EvalOptions, io: CliIo): Promise<void> {
  if (
    args.length > 0 ||
    options.robots !== undefined ||
    options.agent.length > 0 ||
    options.urlsFile !== undefined ||
    options.json
  ) {
    throw new UsageError(
      '--jsonl reads everything from standard input: drop --robots, --agent, --urls-file, --json and URLs',
    );
  }
  const defaultProfile = checkProfile(options.profile);
  const cache = new RulesCache();
  await forEachLineBatch(io.stdin, async (lines, first) => {
    const out: string[] = [];
    try {
      lines.forEach((line, i) => {
        if (line.trim() === '') return;
        const request = readRequest(line, first + i, defaultProfile);
        const verdict = cache
          .rules(request.robotstxt, request.profile, request.agent)
          .evaluate(request.url);
        out.push(JSON.stringify(verdict));
      });
    } finally {
      // Answers for the lines before a bad one are written whole; nothing after it.
      if (out.length > 0) await write(io.stdout, out.join('\n') + '\n');
    }
  });
}

interface EvalRequest {
  robotstxt: string;
  agent: string;
  url: string;
  profile: Profile;
}

function readRequest(line: string, lineNo: number, defaultProfile: Profile): EvalRequest {
  const where = `line ${lineNo}: `;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new UsageError(`${where}malformed JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${where}expected a JSON object`);
  }
  const record = value as Record<string, unknown>;
  for (const key of ['robotstxt', 'agent', 'url'] as const) {
    if (typeof record[key] !== 'string') {
      throw new UsageError(
        `${where}"${key}" must be a string${key in record ? '' : ' and is missing'}`,
      );
    }
  }
  const profile = record['profile'] ?? defaultProfile;
  if (typeof profile !== 'string') throw new UsageError(`${where}"profile" must be a string`);
  return {
    robotstxt: record['robotstxt'] as string,
    agent: record['agent'] as string,
    url: record['url'] as string,
    profile: checkProfile(profile, where),
  };
}

/**
 * Parsed files and compiled agents of recent requests: a JSON-lines client typically
 * sends many URLs for the same file and agent, which are then parsed and compiled once.
 */
class RulesCache {
  static readonly MAX_FILES = 64;
  readonly #files = new Map<Profile, Map<string, CachedFile>>();

  rules(robotstxt: string, profile: Profile, agent: string): AgentRules {
    let files = this.#files.get(profile);
    if (files === undefined) {
      files = new Map<string, CachedFile>();
      this.#files.set(profile, files);
    }
    let file = files.get(robotstxt);
    if (file === undefined) {
      if (files.size >= RulesCache.MAX_FILES) files.delete(files.keys().next().value!);
      // Answers carry no lint findings, so none are collected.
      file = { robots: parseRobotsTxt(robotstxt, { profile, lint: false }), agents: new Map() };
      files.set(robotstxt, file);
    }
    let rules = file.agents.get(agent);
    if (rules === undefined) {
      rules = compileAgent(file.robots, agent);
      file.agents.set(agent, rules);
    }
    return rules;
  }
}

interface CachedFile {
  readonly robots: RobotsTxt;
  readonly agents: Map<string, AgentRules>;
}
