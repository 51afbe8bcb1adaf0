/**
 * Causes in words, for an SEO lead rather than for robowatch's internals: what changed,
 * what crawlers will do now, and which watched pages it touches. Every renderer (email,
 * Slack, webhooks, pages, the command line) says causes through these. Pure.
 */
import { classifyFetch } from '../access.js';
import type { ChangeCause } from '../changes/cause-model.js';
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
import { answers, statusTexts, CONDITION, fileTexts } from './status-words.js';
import {
  elide,
  ruleString,
  ruleTitle,
  groupTexts,
  percent,
  coverageTexts,
  registryTexts,
  preferencesTexts,
  refusedTexts,
} from './rule-words.js';
import { count } from './words.js';
import type { ExplainContext, Explained } from './words.js';

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
    case 'source':
      return {
        ...base,
        title:
          cause.after === null
            ? `robots.txt no longer redirects to ${cause.before ?? ''}`
            : cause.before === null
              ? `robots.txt now redirects to ${cause.after}`
              : `robots.txt now redirects to ${cause.after}, not ${cause.before}`,
        consequence:
          cause.after === null
            ? "Crawlers now fetch the site's own /robots.txt, and what it answers applies."
            : `Crawlers follow up to five redirects: what ${cause.after} answers is this site's robots.txt.`,
      };
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
    case 'source':
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
