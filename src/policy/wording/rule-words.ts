/** The words of rule, group, coverage, registry, preferences and refusal causes. Pure. */
import type {
  CoverageCause,
  PreferencesCause,
  RefusedCause,
  GroupCause,
  RuleCause,
  RuleText,
} from '../changes/cause-model.js';
import { describeCrawlers, groupName, listNames } from './explain-pairs.js';
import type { RegistryCause } from '../registry-update.js';
import { describeVersion, PURPOSE_WORDS } from '../registry.js';
import { capitalise, count, grouped } from './words.js';
import type { ExplainContext, Explained } from './words.js';

/** Text cut to `max` characters with an ellipsis: long patterns in one-line headlines. */
export function elide(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** "Disallow: /pricing". */
export function ruleString(rule: Pick<RuleText, 'directive' | 'pattern'>): string {
  return `${rule.directive === 'allow' ? 'Allow' : 'Disallow'}: ${rule.pattern}`.trimEnd();
}

export function ruleTitle(cause: RuleCause): string {
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

export function groupTexts(
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
export function percent(part: number, whole: number): string {
  if (whole === 0) return '0%';
  const value = (100 * part) / whole;
  return part === whole ? '100%' : `${value < 0.1 ? value.toFixed(2) : value.toFixed(1)}%`;
}

/** A coverage change: how much of the site's sitemaps, where, by which lines. */
export function coverageTexts(
  cause: CoverageCause,
  context: ExplainContext,
): Pick<Explained, 'title' | 'consequence' | 'details'> {
  const who = describeCrawlers(cause.agents, { agents: context.agents });
  const parts = [
    cause.newlyDisallowed > 0
      ? `${grouped(cause.newlyDisallowed)} of ${count(cause.urls, 'sitemap URL')} (${percent(cause.newlyDisallowed, cause.urls)}) newly disallowed`
      : '',
    cause.newlyAllowed > 0
      ? `${grouped(cause.newlyAllowed)}${cause.newlyDisallowed > 0 ? '' : ` of ${count(cause.urls, 'sitemap URL')}`} (${percent(cause.newlyAllowed, cause.urls)}) newly allowed`
      : '',
  ].filter(Boolean);
  const where = cause.prefixes
    .slice(0, 3)
    .map((p) => `${p.prefix} (${grouped(p.urls)})`)
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
    title: `${capitalise(who)}: ${parts.join(', ')}`,
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
export function registryTexts(
  cause: RegistryCause,
): Pick<Explained, 'title' | 'consequence' | 'details'> {
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
export function preferencesTexts(
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
export function refusedTexts(cause: RefusedCause): { title: string; consequence: string } {
  return {
    title: cause.redirected
      ? `robowatch could not check this site: its robots.txt redirects to a private address (${cause.url})`
      : 'robowatch could not check this site: it resolves to a private address',
    consequence:
      `robowatch does not fetch private or reserved addresses (${cause.reason}), so it cannot say what crawlers may do now; ` +
      'its last check stands until it can check again. To watch a host on a private network, set fetch.allowPrivateAddresses: true.',
  };
}
