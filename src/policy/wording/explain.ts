/**
 * Causes in words, for an SEO lead rather than for robowatch's internals: what changed,
 * what crawlers will do now, and which watched pages it touches. Every renderer (email,
 * Slack, webhooks, pages, the command line) says causes through these. Pure.
 */
import type { Profile } from '../../robots/index.js';
import { classifyFetch } from '../access.js';
import type {
  ChangeCause,
  CoverageCause,
  PreferencesCause,
  RefusedCause,
  FileCause,
  GroupCause,
  RuleCause,
  RuleText,
  StatusCause,
} from '../changes/cause-model.js';
import type { FetchStatus } from '../changes/events.js';
import {
  collapsePairs,
  describeCrawlers,
  describeUrls,
  groupName,
  listNames,
  pairLines,
  shortUrl,
} from './explain-pairs.js';
import type { CrawlerContext } from './explain-pairs.js';
import type { FileCondition } from '../file-condition.js';
import type { RegistryCause } from '../registry-update.js';
import { describeVersion, PURPOSE_WORDS } from '../registry.js';

export interface ExplainContext {
  /** The watched crawlers, in configuration order. */
  readonly agents: readonly string[];
  /** When the change was seen (for "after 3 h of 503"). */
  readonly at: Date;
}

/** A cause as people read it. */
export interface Explained {
  /** What changed, in one line. */
  readonly title: string;
  /** What crawlers do now, in a sentence or two. */
  readonly consequence: string;
  /** The watched pages it changed, collapsed, at most `limit` lines. */
  readonly lines: readonly string[];
  /** Pairs on lines left out. */
  readonly more: number;
  /** A few rules, groups or lines of the file, for summaries. */
  readonly details: readonly string[];
  /** How many more of those there are than `details` lists. */
  readonly detailsMore: number;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const count = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** "3 h 20 min", "2 days 4 h", "45 s". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  const days = Math.floor(h / 24);
  if (days >= 14 || h % 24 === 0) return count(days, 'day');
  return `${count(days, 'day')} ${h % 24} h`;
}

/** Who reads robots.txt the way a profile does, as a subject. */
function readers(profile: Profile): string {
  switch (profile) {
    case 'google':
      return 'Google';
    case 'rfc9309':
      return 'Crawlers following RFC 9309';
    case 'legacy':
      return 'Crawlers following the 1996 standard';
  }
}

const NETWORK: Record<string, string> = {
  dns: 'its host name does not resolve (DNS)',
  refused: 'the connection is refused',
  reset: 'the connection is reset',
  timeout: 'no answer within the time limit',
  tls: 'the HTTPS handshake fails',
  blocked: 'its address is private, and robowatch may not fetch it',
  'invalid-response': 'the answer is not valid HTTP',
  network: 'a network error',
};

/** "answers 503", "redirects more than 5 times", "cannot be fetched: the connection is reset". */
export function answers(status: FetchStatus): string {
  if (status.error === 'too-many-redirects') return 'redirects more than 5 times';
  if (status.error !== undefined)
    return `cannot be fetched: ${NETWORK[status.error] ?? status.error}`;
  return `answers ${status.status ?? '?'}`;
}

/** "503", "DNS failure", "redirect loop": a status in a word or two. */
export function statusWord(status: FetchStatus): string {
  if (status.error === 'too-many-redirects') return 'redirect loop';
  if (status.error === 'dns') return 'DNS failure';
  if (status.error !== undefined) return `${status.error} error`;
  return String(status.status ?? '?');
}

/** What a site whose robots.txt is in this state means for crawlers, in a sentence. */
export function crawlEffect(status: FetchStatus, profile: Profile, disallowRules: number): string {
  const classification = classifyFetch(
    { status: status.status ?? null, error: status.error ?? null },
    profile,
  );
  if (status.access === 'ok') return 'Its rules apply.';
  if (status.access === 'unavailable') {
    const like = status.error === 'too-many-redirects' ? 'as with a 404, every' : 'Every';
    const rules =
      disallowRules === 0
        ? ''
        : `; the file's ${count(disallowRules, 'Disallow rule')} no longer ${disallowRules === 1 ? 'applies' : 'apply'}`;
    return `${like === 'Every' ? '' : `${readers(profile)} treats a redirect loop like a 404: `}${like} URL is crawlable${rules}.`;
  }
  if (classification === 'defer')
    return `${readers(profile)} keep using the last file they read until robots.txt answers again.`;
  if (profile === 'google')
    return 'Google treats the whole site as disallowed: it crawls nothing until robots.txt answers again (after 30 days it uses its last good copy).';
  return `${readers(profile)} treat the whole site as disallowed until robots.txt answers again.`;
}

/** "answered 200", "could not be fetched (DNS failure)", "redirected in a loop". */
function wasStatus(status: FetchStatus): string {
  if (status.error === 'too-many-redirects') return 'redirected in a loop before';
  if (status.error !== undefined) return `could not be fetched before (${statusWord(status)})`;
  return `answered ${status.status ?? '?'} before`;
}

function statusTexts(cause: StatusCause, at: Date): { title: string; consequence: string } {
  const { before, after } = cause;
  if (!cause.effectChanged) {
    const same =
      after.access === 'unavailable'
        ? 'every URL stays crawlable'
        : after.access === 'unreachable'
          ? 'the whole site stays disallowed'
          : 'its rules still apply';
    return {
      title: `robots.txt ${answers(after)} instead of ${statusWord(before)}`,
      consequence: `Same effect for crawlers: ${same}.`,
    };
  }
  if (after.access === 'ok') {
    const title =
      cause.incidentSince === null
        ? `robots.txt ${answers(after)} (it ${wasStatus(before)})`
        : `robots.txt ${answers(after)} again after ${formatDuration(at.getTime() - Date.parse(cause.incidentSince))} of ${statusWord(before)}`;
    const consequence =
      cause.file !== null && cause.file !== 'robots' && cause.file !== 'cut'
        ? `But what it serves is ${CONDITION[cause.file]}, not robots.txt (see below).`
        : cause.incidentSince === null
          ? 'Its rules apply.'
          : 'Its rules apply again.';
    return { title, consequence };
  }
  return {
    title: `robots.txt ${answers(after)} (it ${wasStatus(before)})`,
    consequence: crawlEffect(after, cause.profile, cause.disallowRules),
  };
}

const CONDITION: Record<FileCondition, string> = {
  robots: 'a robots.txt file',
  cut: 'larger than 500 KiB',
  html: 'an HTML page',
  utf16: 'UTF-16 text',
  binary: 'binary data (not text)',
};

function fileTexts(cause: FileCause, at: Date): { title: string; consequence: string } {
  const { before, after } = cause;
  const lost =
    cause.disallowRules === 0
      ? ''
      : `; the previous file's ${count(cause.disallowRules, 'Disallow rule')} no longer ${cause.disallowRules === 1 ? 'applies' : 'apply'}`;
  if (after === 'html' || after === 'utf16' || after === 'binary') {
    const why =
      after === 'html'
        ? 'Crawlers find no rules in an HTML page'
        : after === 'utf16'
          ? 'Crawlers read robots.txt as UTF-8 and find no rules in UTF-16 text'
          : 'Crawlers find no rules in binary data';
    return {
      title: `robots.txt is ${before === null ? '' : 'now '}${CONDITION[after]} (served with 200)`,
      consequence: `${why}, so every URL is crawlable, as with a 404${lost}.`,
    };
  }
  if (after === 'cut') {
    const cut = cause.cut;
    const lines =
      cut === null
        ? 'the rest of the file'
        : `${cut.complete ? '' : 'at least '}${count(cut.droppedLineBreaks, 'line')} (${count(cut.droppedBytes, 'byte')})`;
    return {
      title: `robots.txt is ${before === null ? '' : 'now '}larger than 500 KiB`,
      consequence: `Google reads only the first 500 KiB: ${lines} past the limit ${cut?.droppedLineBreaks === 1 ? 'is' : 'are'} ignored, and any rules there do not apply.`,
    };
  }
  const lasted =
    cause.since === null ? '' : ` for ${formatDuration(at.getTime() - Date.parse(cause.since))}`;
  if (before === 'cut')
    return {
      title: 'robots.txt is under 500 KiB again',
      consequence: 'Google reads all of it again.',
    };
  return {
    title: `robots.txt is a robots.txt file again (it was ${before === null ? 'not' : CONDITION[before]}${lasted})`,
    consequence: `Its ${count(cause.rules, 'rule')} ${cause.rules === 1 ? 'applies' : 'apply'} again.`,
  };
}

/** Text cut to `max` characters with an ellipsis: long patterns in one-line headlines. */
export function elide(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** "Disallow: /pricing". */
export function ruleString(rule: Pick<RuleText, 'directive' | 'pattern'>): string {
  return `${rule.directive === 'allow' ? 'Allow' : 'Disallow'}: ${rule.pattern}`.trimEnd();
}

function ruleTitle(cause: RuleCause): string {
  const group = groupName(cause.group);
  switch (cause.change) {
    case 'added':
      return `\`${ruleString(cause.rule)}\` added to ${group} (line ${cause.rule.line})`;
    case 'removed':
      return `\`${ruleString(cause.rule)}\` removed from ${group} (it was line ${cause.rule.line})`;
    case 'edited':
      return `line ${cause.rule.line} of ${group} changed from \`${ruleString(cause.previous!)}\` to \`${ruleString(cause.rule)}\``;
  }
}

/** "Googlebot now reads only this group, no longer the `*` group". */
function movedText(cause: GroupCause, context: ExplainContext): string {
  const byMove = new Map<string, string[]>();
  for (const m of cause.moved) {
    const key = `${m.from}>${m.to}`;
    byMove.set(key, [...(byMove.get(key) ?? []), m.agent]);
  }
  const parts = [...byMove].map(([key, agents]) => {
    const [from, to] = key.split('>') as [string, string];
    const who = describeCrawlers(agents, { agents: context.agents });
    const one = agents.length === 1;
    const was =
      from === 'star'
        ? 'instead of the `*` group'
        : from === 'own'
          ? `instead of ${one ? 'its' : 'their'} own group`
          : `(no group applied to ${one ? 'it' : 'them'} before)`;
    const read = one ? 'reads' : 'read';
    if (to === 'own')
      return `${who} now ${read} ${cause.change === 'removed' ? `${one ? 'its' : 'their'} other groups` : 'this group'} ${was}`;
    if (to === 'star') return `${who} now ${read} the \`*\` group ${was}`;
    return `${who} now ${read} no group at all, so every URL is allowed for ${one ? 'it' : 'them'}`;
  });
  return parts.join('; ');
}

function groupTexts(
  cause: GroupCause,
  context: ExplainContext,
): { title: string; consequence: string } {
  const name = groupName(cause.group);
  const rules = count(cause.rules, 'rule');
  const title =
    cause.change === 'added'
      ? `${name.replace(/^the /, 'A ')} was added (line ${cause.group.line}, ${rules})`
      : cause.change === 'removed'
        ? `${name} was removed (it was line ${cause.group.line}, ${rules})`
        : `the group at line ${cause.group.line} now names ${listNames(cause.group.agents)} (it named ${listNames(cause.previous?.agents ?? [])})`;
  const consequence =
    cause.moved.length > 0
      ? `${capitalise(movedText(cause, context))}.`
      : 'No watched crawler reads it, so no watched page changes.';
  return { title: capitalise(title), consequence };
}

/** "24.9%", "0.3%", "100%": a share of a URL set. */
function percent(part: number, whole: number): string {
  if (whole === 0) return '0%';
  const value = (100 * part) / whole;
  return part === whole ? '100%' : `${value < 0.1 ? value.toFixed(2) : value.toFixed(1)}%`;
}

/** A coverage change: how much of the site's sitemaps, where, by which lines. */
function coverageTexts(
  cause: CoverageCause,
  context: ExplainContext,
): Pick<Explained, 'title' | 'consequence' | 'details'> {
  const who = describeCrawlers(cause.agents, { agents: context.agents });
  const parts = [
    cause.newlyDisallowed > 0
      ? `${cause.newlyDisallowed.toLocaleString('en-US')} of ${count(cause.urls, 'sitemap URL')} (${percent(cause.newlyDisallowed, cause.urls)}) newly disallowed`
      : '',
    cause.newlyAllowed > 0
      ? `${cause.newlyAllowed.toLocaleString('en-US')}${cause.newlyDisallowed > 0 ? '' : ` of ${count(cause.urls, 'sitemap URL')}`} (${percent(cause.newlyAllowed, cause.urls)}) newly allowed`
      : '',
  ].filter(Boolean);
  const where = cause.prefixes
    .slice(0, 3)
    .map((p) => `${p.prefix} (${p.urls.toLocaleString('en-US')})`)
    .join(', ');
  const by = cause.rules
    .slice(0, 2)
    .map((r) => `line ${r.line} \`${ruleString(r)}\``)
    .join(' and ');
  const consequence =
    cause.newlyDisallowed > 0
      ? `Mostly ${where}${by === '' ? '' : `, by ${by}`}: ${cause.agents.length === 1 ? `${who} stops` : 'they stop'} crawling these pages${cause.significant ? '' : ' (under the alert thresholds)'}.`
      : `${capitalise(who)} may crawl these pages again.`;
  return {
    title: `${who}: ${parts.join(', ')}`,
    consequence,
    details: cause.samples.length === 0 ? [] : [`e.g. ${cause.samples.join(', ')}`],
  };
}

/** What a usage label asks of crawlers, as words ("train AI models with these pages"). */
const USES: Readonly<Record<string, string>> = {
  'train-ai': 'train AI models with',
  'ai-train': 'train AI models with',
  search: 'show in search results',
  'ai-input': 'use as input to AI answers (retrieval, grounding)',
};

/** Crawler names, the first few: "A, B and 3 more". */
function someNames(tokens: readonly string[], shown = 4): string {
  return tokens.length <= shown
    ? listNames(tokens)
    : `${tokens.slice(0, shown - 1).join(', ')} and ${tokens.length - shown + 1} more`;
}

/**
 * A registry update for one site: the new crawlers the file lets in against its stance
 * first, then where the others stand.
 */
function registryTexts(cause: RegistryCause): Pick<Explained, 'title' | 'consequence' | 'details'> {
  const against = cause.purposes.filter((p) => p.contradicts);
  const gained = `The AI crawler registry gained ${count(cause.added, 'crawler')}${cause.removed.length > 0 ? ` and lost ${cause.removed.length}` : ''}`;
  const title =
    against.length > 0
      ? against
          .map(
            (p) =>
              `${count(p.allowedThroughStar.length, `new ${PURPOSE_WORDS[p.purpose]} crawler`)} may crawl this site through \`*\`, though the file blocks ${p.blockedByName} by name`,
          )
          .join('; ')
      : gained;
  const consequence =
    against.length > 0
      ? `${gained}. Add the new ones to the group that blocks the others to keep them out.`
      : cause.purposes.some((p) => p.allowedThroughStar.length > 0)
        ? 'The new crawlers follow the `*` group here, like any crawler the file does not name.'
        : 'The file already decides for the new crawlers; nothing they may fetch is new.';
  const details = cause.purposes.map((p) => {
    const parts = [
      p.allowedThroughStar.length > 0
        ? `${p.allowedThroughStar.length} may crawl through \`*\` (${someNames(p.allowedThroughStar)})`
        : '',
      p.blockedThroughStar.length > 0
        ? `${p.blockedThroughStar.length} kept out by \`*\` (${someNames(p.blockedThroughStar)})`
        : '',
      p.named.length > 0 ? `${p.named.length} named by the file (${someNames(p.named)})` : '',
    ].filter(Boolean);
    const stance = p.blockedByName > 0 ? `; the file blocks ${p.blockedByName} others by name` : '';
    return `${PURPOSE_WORDS[p.purpose]}: ${parts.join(', ') || 'no verdict (no file)'}${stance}`;
  });
  if (cause.removed.length > 0) details.push(`No longer listed: ${someNames(cause.removed)}`);
  details.push(`Now ${describeVersion(cause.version)}; was ${describeVersion(cause.previous)}`);
  return { title, consequence, details };
}

/** A usage preference that changed: which, from what to what, where, for whom. */
function preferencesTexts(
  cause: PreferencesCause,
  context: ExplainContext,
): Pick<Explained, 'title' | 'consequence' | 'details'> {
  const who = describeCrawlers(cause.agents, { agents: context.agents });
  const value = (v: string | null) => v ?? 'not stated';
  const where = cause.path === null ? 'for the whole site' : `under ${cause.path}`;
  const line = cause.line === null ? '' : `, line ${cause.line}`;
  const use = USES[cause.label] ?? `use for "${cause.label}"`;
  const source = cause.source === 'content-usage' ? 'Content-Usage' : 'Content-Signal';
  const allows = (v: string | null) => (v === null ? null : v === 'y' || v === 'yes');
  const now = allows(cause.after);
  const consequence =
    now === null
      ? `The file no longer says whether crawlers may ${use} these pages: crawlers that read ${source} treat it as unknown.`
      : `Crawlers that honour ${source} are asked ${now ? 'that they may' : 'not to'} ${use} these pages; it does not change what they may crawl.`;
  return {
    title: `${who}: ${cause.label} changed from ${value(cause.before)} to ${value(cause.after)} ${where} (${source}${line})`,
    consequence,
    details: [],
  };
}

/**
 * A check robowatch refused to make (its address guard): what it means is that nothing
 * is known, not that crawlers are kept out; and which setting allows it.
 */
function refusedTexts(cause: RefusedCause): { title: string; consequence: string } {
  return {
    title: cause.redirected
      ? `robowatch could not check this site: its robots.txt redirects to a private address (${cause.url})`
      : 'robowatch could not check this site: it resolves to a private address',
    consequence:
      `robowatch does not fetch private or reserved addresses (${cause.reason}), so it cannot say what crawlers may do now; ` +
      'its last check stands until it can check again. To watch a host on a private network, set fetch.allowPrivateAddresses: true.',
  };
}

/** The words of a cause: title, consequence, its pairs as at most `limit` lines. */
export function explainCause(cause: ChangeCause, context: ExplainContext, limit = 5): Explained {
  const crawlers: CrawlerContext = {
    agents: context.agents,
    ...(cause.type === 'rule' || cause.type === 'rules'
      ? { readers: { agents: cause.readers, group: cause.group } }
      : {}),
  };
  const { lines, more } = pairLines(cause.pairs, crawlers, limit);
  const base = { lines, more, details: [] as string[], detailsMore: 0 };
  switch (cause.type) {
    case 'fetch_status':
      return { ...base, ...statusTexts(cause, context.at) };
    case 'stale':
      return {
        ...base,
        title: cause.started
          ? 'robots.txt has been unreachable for 30 days'
          : 'robots.txt is no longer unreachable for 30 days',
        consequence: cause.started
          ? 'Google now uses its last good copy of the file (or, if it never had one, allows every URL).'
          : 'Crawlers no longer use the old copy of the file.',
      };
    case 'file_condition':
      return { ...base, ...fileTexts(cause, context.at) };
    case 'refused':
      return { ...base, ...refusedTexts(cause) };
    case 'rule': {
      const consequence =
        cause.pairs.length > 0
          ? ''
          : cause.readers.length === 0
            ? 'No watched crawler reads this group.'
            : 'No watched page changes.';
      return { ...base, title: ruleTitle(cause), consequence };
    }
    case 'rules': {
      const parts = [
        cause.added ? `${count(cause.added, 'rule')} added` : '',
        cause.edited ? `${count(cause.edited, 'rule')} edited` : '',
        cause.removed ? `${count(cause.removed, 'rule')} removed` : '',
      ].filter(Boolean);
      const total = cause.added + cause.edited + cause.removed;
      const only = total === 1 ? cause.sample[0] : undefined;
      const order = { added: 0, edited: 1, removed: 2 } as const;
      const sample = [...cause.sample].sort((a, b) => order[a.change] - order[b.change]);
      const title =
        only !== undefined
          ? ruleTitle({
              ...cause,
              type: 'rule',
              change: only.change,
              rule: only.rule,
              previous: only.previous,
            })
          : `${parts.join(', ')} in ${groupName(cause.group)} (line ${cause.group.line})`;
      const who =
        cause.readers.length === 1
          ? cause.readers[0]!
          : describeCrawlers(cause.readers, {
              agents: context.agents,
              readers: { agents: cause.readers, group: cause.group },
            });
      return {
        ...base,
        title,
        consequence:
          cause.readers.length === 0
            ? 'No watched crawler reads this group.'
            : `No watched page changes for ${who}.`,
        details: (only !== undefined ? [] : sample).map((s) =>
          s.change === 'edited'
            ? `~ line ${s.rule.line}: ${ruleString(s.previous!)} → ${ruleString(s.rule)}`
            : `${s.change === 'added' ? '+' : '−'} ${ruleString(s.rule)} (line ${s.rule.line})`,
        ),
        detailsMore: only !== undefined ? 0 : total - sample.length,
      };
    }
    case 'group':
      return { ...base, ...groupTexts(cause, context) };
    case 'groups':
      return {
        ...base,
        title: `Groups for crawlers you do not watch: ${[
          cause.added ? `${count(cause.added, 'group')} added` : '',
          cause.removed ? `${count(cause.removed, 'group')} removed` : '',
          cause.relabelled ? `${count(cause.relabelled, 'group')} renamed` : '',
        ]
          .filter(Boolean)
          .join(', ')}`,
        consequence: 'No watched crawler reads them, so no watched page changes.',
        details: cause.sample.map(
          (s) => `${s.change} ${groupName(s.group)} (line ${s.group.line})`,
        ),
      };
    case 'sitemaps':
      return {
        ...base,
        title: `Sitemap lines changed: ${[
          cause.added.length ? `${cause.added.length} added` : '',
          cause.removed.length ? `${cause.removed.length} removed` : '',
        ]
          .filter(Boolean)
          .join(', ')}`,
        consequence: 'Crawlers find the site’s pages through the sitemaps listed now.',
        details: [
          ...cause.added.slice(0, 10).map((s) => `+ ${s}`),
          ...cause.removed.slice(0, 10).map((s) => `− ${s}`),
        ],
      };
    case 'coverage':
      return { ...base, ...coverageTexts(cause, context) };
    case 'preferences':
      return { ...base, ...preferencesTexts(cause, context) };
    case 'registry':
      return { ...base, ...registryTexts(cause) };
    case 'directives':
      return {
        ...base,
        title: `Other lines changed: ${[
          cause.added.length ? `${cause.added.length} added` : '',
          cause.removed.length ? `${cause.removed.length} removed` : '',
        ]
          .filter(Boolean)
          .join(', ')}`,
        consequence: 'They do not change what Google may crawl; some other crawlers read them.',
        details: [
          ...cause.added.slice(0, 10).map((d) => `+ ${d.key}: ${d.value} (line ${d.line})`),
          ...cause.removed.slice(0, 10).map((d) => `− ${d.key}: ${d.value} (line ${d.line})`),
        ],
      };
  }
}

/**
 * A cause in a few words, for a subject line: "robots.txt answers 503 (Google crawls
 * nothing)", "/pricing is now disallowed for Googlebot (Disallow: /pricing, line 8)".
 */
export function causeHeadline(cause: ChangeCause, context: ExplainContext): string {
  switch (cause.type) {
    case 'fetch_status': {
      const { after } = cause;
      if (!cause.effectChanged || after.access === 'ok')
        return explainCause(cause, context, 0).title;
      if (after.access === 'unreachable') {
        const classification = classifyFetch(
          { status: after.status ?? null, error: after.error ?? null },
          cause.profile,
        );
        const who =
          classification === 'defer'
            ? 'last file kept'
            : cause.profile === 'google'
              ? 'Google crawls nothing'
              : 'crawlers crawl nothing';
        return `robots.txt ${answers(after)} (${who})`;
      }
      return `robots.txt ${answers(after)} (${after.error === 'too-many-redirects' ? 'treated like a 404: ' : ''}every URL crawlable)`;
    }
    case 'file_condition':
      if (cause.after === 'cut') return 'robots.txt is over 500 KiB (the rest is ignored)';
      if (cause.after === 'robots') return explainCause(cause, context, 0).title;
      return `robots.txt is ${CONDITION[cause.after]} (every URL crawlable)`;
    case 'rule':
    case 'group': {
      const [line] = collapsePairs(cause.pairs.filter((p) => p.flipped));
      if (line === undefined) return explainCause(cause, context, 0).title;
      const rule = elide(
        ruleString(cause.type === 'rule' ? cause.rule : { directive: 'allow', pattern: '' }),
        60,
      );
      const what =
        cause.type === 'rule'
          ? cause.change === 'removed'
            ? `${rule} removed, line ${cause.rule.line}`
            : `${rule}, line ${cause.rule.line}`
          : `${cause.change === 'removed' ? 'removed' : 'new'} ${groupName(cause.group).replace(/^the /, '')}, line ${cause.group.line}`;
      const first = elide(shortUrl(line.urls[0]!), 60);
      const urls =
        line.urls.length === 1
          ? `${first} is`
          : `${first} and ${line.urls.length - 1} more URL${line.urls.length === 2 ? '' : 's'} are`;
      const who =
        line.agents.length <= 2 ? listNames(line.agents) : `${line.agents.length} crawlers`;
      return `${urls} now ${line.allowed ? 'allowed' : 'disallowed'} for ${who} (${what})`;
    }
    case 'coverage': {
      if (cause.newlyDisallowed === 0) return explainCause(cause, context, 0).title;
      const who =
        cause.agents.length <= 2 ? listNames(cause.agents) : `${cause.agents.length} crawlers`;
      const rule = cause.rules[0];
      return `${count(cause.newlyDisallowed, 'sitemap URL')} (${percent(cause.newlyDisallowed, cause.urls)}) now disallowed for ${who}${rule === undefined ? '' : ` (${elide(ruleString(rule), 60)}, line ${rule.line})`}`;
    }
    case 'stale':
    case 'refused':
    case 'rules':
    case 'groups':
    case 'sitemaps':
    case 'directives':
    case 'preferences':
    case 'registry':
      return explainCause(cause, context, 0).title;
  }
}

export { describeCrawlers, describeUrls, groupName, listNames, shortUrl };
