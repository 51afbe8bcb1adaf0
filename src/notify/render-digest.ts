/**
 * The digest as people receive it: what needs attention first (sites down, pages newly
 * blocked, files that are HTML or cut), then each site's changes as causes, all-clear
 * sites one line each; times in the configured time zone; links to the web UI. The same
 * digest as structured data for webhooks, and as a Slack message. Pure, bounded in size,
 * every file-derived string escaped.
 */
import type { WebhookFormat } from '../policy/alerts.js';
import { isProblem } from '../policy/changes/cause-model.js';
import type { ChangeCause } from '../policy/changes/cause-model.js';
import type {
  Attention,
  Digest,
  DigestChange,
  DigestSite,
  Incident,
  RegistryUpdate,
} from '../policy/digest.js';
import { intentLead, violationText } from '../policy/incidents.js';
import { causeHeadline, describeCrawlers, explainCause } from '../policy/wording/explain.js';
import { count, formatDuration, grouped } from '../policy/wording/words.js';
import { describeUrls } from '../policy/wording/explain.js';
import { answered, answers, crawlEffect } from '../policy/wording/status-words.js';
import { groupByCrawlers } from '../policy/wording/explain-pairs.js';
import { describeVersion, PURPOSE_WORDS } from '../policy/registry.js';
import { formatDay, formatInstant, siteLabel } from '../policy/wording/format.js';

/** A time in the digest's zone, which its first line names once. */
const local = (date: Date, timeZone: string) => formatInstant(date, timeZone).slice(0, 16);
import type { RecordedDigest } from '../monitor/records.js';
import {
  MAX_PART_CHARS,
  bounded,
  escapeHtml,
  htmlWithCode,
  oneLineText,
  slackEscape,
} from './render-alert.js';
import type { RenderContext, RenderedEmail } from './render-alert.js';

/** A recorded digest as channels send it. */
export type StoredDigest = RecordedDigest & { readonly id: number };

/** Changes listed per site; all-clear sites listed one per line. */
const CHANGES_PER_SITE = 8;
const EXPLAINED_PER_SITE = 3;
const CLEAR_SITES = 200;
const ATTENTION_SITES = 100;

const host = (origin: string) => new URL(origin).host;

/** A site as the digest names it, as alerts and incident pages do: its name and host, or its host. */
const called = (site: { readonly origin: string; readonly name: string | null }) =>
  siteLabel(site.origin, site.name);

/** One line saying why a site needs attention. */
export function attentionText(site: DigestSite, a: Attention, context: RenderContext): string {
  const since = (d: Date) => `since ${local(d, context.timeZone)}`;
  switch (a.kind) {
    case 'refused':
      return `robowatch could not check this site ${since(a.since)}: ${a.reason}, and robowatch does not fetch such addresses; what crawlers may do now is not known (fetch.allowPrivateAddresses allows it).`;
    case 'down':
      return `robots.txt ${answers(a.status)} ${since(a.since)}: ${crawlEffect(a.status, site.profile, 0)}`;
    case 'gone':
      return `robots.txt ${answers(a.status)} ${since(a.since)}: every URL is crawlable.`;
    case 'not-robots':
      return `robots.txt is ${a.condition === 'html' ? 'an HTML page' : a.condition === 'utf16' ? 'UTF-16 text' : 'binary data'} ${since(a.since)}: crawlers find no rules in it, so every URL is crawlable.`;
    case 'cut':
      return `robots.txt is larger than 500 KiB ${since(a.since)}: Google ignores the rest.`;
    case 'coverage':
      return `${causeHeadline(a.cause, { agents: site.agents, at: a.since })}.`;
    case 'registry': {
      const said = explainCause(a.cause, { agents: site.agents, at: a.since });
      const names = a.cause.purposes
        .filter((p) => p.contradicts)
        .flatMap((p) => p.allowedThroughStar);
      return `${said.title} (${names.length <= 5 ? names.join(', ') : `${names.slice(0, 4).join(', ')} and ${names.length - 4} more`}): add them to the group that blocks the others to keep them out.`;
    }
    case 'intent': {
      const first = a.violations[0];
      // Several cells: said as the incident's alert says them ("/, /p1 and 38 more pages
      // are blocked for Googlebot, Googlebot-Image and 5 more crawlers").
      const what =
        first === undefined
          ? `${count(a.violationCount, 'watched page × crawler pair')} ${a.violationCount === 1 ? 'is' : 'are'} not as intended`
          : a.violationCount === 1
            ? violationText(first)
            : intentLead('not-as-intended', a.violations, a.violationCount, a.causes[0], a.grid);
      const why =
        a.causes.length === 0
          ? ''
          : ` Why: ${a.causes.slice(0, 2).join('; ')}${a.causes.length > 2 ? `; and ${count(a.causes.length - 2, 'more cause')}` : ''}.`;
      return `Not as intended${a.since === null ? '' : ` ${since(a.since)}`}: ${what}.${why}`;
    }
    case 'blocks': {
      const lead = a.cause.pairs.filter((p) => p.flipped && !p.allowed).length;
      const others = a.pairs - lead;
      return `${causeHeadline(a.cause, { agents: site.agents, at: a.since })}${others > 0 ? `; and ${count(others, 'more watched page × crawler pair')} newly disallowed by other changes` : ''}.`;
    }
  }
}

/** A registry update in a sentence: what changed, and for how many of the sites it matters. */
function registryUpdateLine(update: RegistryUpdate, sites: number, context: RenderContext): string {
  const removed =
    update.removed.length === 0
      ? ''
      : ` and ${update.removed.length} removed (${update.removed.slice(0, 5).join(', ')}${update.removed.length > 5 ? ', …' : ''})`;
  const against =
    update.against === 0
      ? `none of the ${count(sites, 'site')} lets new ones in against crawlers it blocks by name.`
      : `on ${count(update.against, 'site')} of ${sites}, new ones may crawl through \`*\` though the file blocks others of their purpose by name (under "Needs attention").`;
  return `The AI crawler registry was updated ${local(update.at, context.timeZone)}: ${count(update.added, 'crawler')} added${removed}; ${against} Now ${describeVersion(update.version)}.`;
}

/** Where to look for an attention line: the diff of a block, else the site. */
function attentionLink(site: DigestSite, a: Attention, context: RenderContext): string {
  return (a.kind === 'blocks' || a.kind === 'coverage') && site.siteId !== null
    ? context.links.diff(site.siteId, a.previousId, a.snapshotId)
    : siteLink(site, context);
}

/**
 * A site's page; the overview for one never checked that has no row yet (only a preview
 * read without a write has such a site: the daemon gives every site its row).
 */
function siteLink(site: DigestSite, context: RenderContext): string {
  return site.siteId === null ? context.links.overview() : context.links.site(site.siteId);
}

/**
 * The `index`th incident of a site that broke and recovered in the period, in a sentence:
 * with what became of the site after it (as intended since, or broken again: a later
 * incident of the period, or the state it is in at the digest's time).
 */
export function recoveredText(site: DigestSite, index: number, context: RenderContext): string {
  const incident = site.recovered[index]!;
  const next = site.recovered[index + 1];
  const after =
    next !== undefined
      ? `; it broke again at ${local(next.openedAt, context.timeZone)}.`
      : site.intent === 'as-intended'
        ? '; as intended since.'
        : site.intent === null
          ? '.'
          : '; it is broken again now (under "Needs attention").';
  const what =
    incident.siteState === 'cannot-check'
      ? 'could not be judged against its owner’s intent'
      : `was not as intended (at worst ${count(incident.worstCount, 'watched page × crawler pair')})`;
  const why =
    incident.causes.length === 0
      ? ''
      : `: ${incident.causes.slice(0, 2).join('; ')}${incident.causes.length > 2 ? '; …' : ''}`;
  return `${what} from ${local(incident.openedAt, context.timeZone)} to ${local(incident.resolvedAt, context.timeZone)} (${formatDuration(incident.resolvedAt.getTime() - incident.openedAt.getTime())})${why}${after}`;
}

/** The site's state against its owner's intent, for its detail lines. */
function intentLine(site: DigestSite): string | null {
  switch (site.intent) {
    case null:
      return null;
    case 'as-intended':
      return 'as its owner intends.';
    case 'not-as-intended':
      return 'not as its owner intends (under "Needs attention").';
    case 'cannot-check':
      return 'not judged page by page now ("Needs attention" says why).';
  }
}

/** Outages of one kind listed one a line; past it, one line sums them. */
const OUTAGE_LINES = 3;

/**
 * A site's outages in the period ("answered 503 from …, until …"), in the order they began:
 * each on its line, or, for a file that answered the same way more than three times (a
 * flapping server), one line with how often, from when to when, and how long in all.
 */
function incidentLines(
  incidents: readonly Incident[],
  periodEnd: Date,
  context: RenderContext,
): string[] {
  const kinds = new Map<string, { did: string; why: string | null; list: Incident[] }>();
  for (const incident of incidents) {
    const { did, why } = answered(incident.status);
    const kind = kinds.get(`${did}|${why}`) ?? { did, why, list: [] };
    kind.list.push(incident);
    kinds.set(`${did}|${why}`, kind);
  }
  const at = (date: Date) => local(date, context.timeZone);
  return [...kinds.values()].flatMap(({ did, why, list }) => {
    if (list.length <= OUTAGE_LINES)
      return list.map((i) => {
        const until =
          i.end === null
            ? 'still going at the end of the period'
            : `until ${at(i.end)} (${formatDuration(i.end.getTime() - i.start.getTime())})`;
        return `robots.txt ${did} from ${at(i.start)}, ${until}${why === null ? '' : `: ${why}`}`;
      });
    const lengths = list.map((i) => (i.end ?? periodEnd).getTime() - i.start.getTime());
    const last = list.at(-1)!;
    const span =
      last.end === null
        ? `from ${at(list[0]!.start)} on, and still at the end of the period`
        : `between ${at(list[0]!.start)} and ${at(last.end)}`;
    const total = lengths.reduce((a, b) => a + b, 0);
    const longest = lengths.reduce((a, b) => Math.max(a, b), 0);
    return [
      `robots.txt ${did} ${list.length} times ${span}: ${formatDuration(total)} in all, the longest ${formatDuration(longest)}${why === null ? '' : `; ${why}`}`,
    ];
  });
}

function healthLine(site: DigestSite): string {
  const { checks, okShare, notRobots } = site.health;
  if (site.health.neverChecked)
    return 'Not checked yet: its robots.txt has not been fetched, so nothing is known of what crawlers may fetch there.';
  if (checks === 0) return 'Not checked this period.';
  const share = okShare === 1 ? 'all' : `${Math.round((okShare ?? 0) * 1000) / 10}%`;
  if (notRobots === 0) return `${count(checks, 'check')}, ${share} found robots.txt.`;
  // An answer whose body is an HTML page (or UTF-16, binary) holds no rules crawlers read.
  const which = notRobots === checks ? 'every one' : `${grouped(notRobots)} of them`;
  return `${count(checks, 'check')}, ${share} answered with a file; ${which} a file crawlers cannot read as robots.txt (no rules).`;
}

function disallowedLines(site: DigestSite): string[] {
  const pairs = site.disallowed.flatMap((d) => d.urls.map((url) => ({ url, agent: d.agent })));
  return groupByCrawlers(pairs)
    .slice(0, 5)
    .map(
      (g) => `${describeUrls(g.urls)} for ${describeCrawlers(g.agents, { agents: site.agents })}`,
    );
}

/** The share of the sitemap URLs each crawler may fetch now, and at the period's start if it differs. */
function coverageLine(site: DigestSite): string | null {
  if (site.coverage.length === 0) return null;
  // Sitemaps that listed nothing all period: "0 of 0" would say nothing.
  if (site.coverage.every((c) => c.urls === 0 && (c.before === null || c.before.urls === 0)))
    return null;
  const share = (allowed: number, urls: number) =>
    `${grouped(allowed)} of ${grouped(urls)}${urls === 0 ? '' : ` (${((100 * allowed) / urls).toFixed(allowed === urls || allowed === 0 ? 0 : 1)}%)`}`;
  const parts = site.coverage.slice(0, 5).map((c) => {
    const was =
      c.before === null || (c.before.allowed === c.allowed && c.before.urls === c.urls)
        ? ''
        : `, was ${share(c.before.allowed, c.before.urls)} at the start of the period`;
    return `${describeCrawlers(c.agents, { agents: site.agents })} ${share(c.allowed, c.urls)}${was}`;
  });
  return parts.join('; ');
}

/** The registry's AI crawlers by purpose: "AI training: 12 blocked, 3 allowed through * (…)". */
function purposesLine(site: DigestSite): string | null {
  const parts = site.aiPurposes.map((p) => {
    const said = [
      p.blocked > 0 ? `${p.blocked} blocked` : '',
      p.named > 0 ? `${p.named} allowed by name` : '',
      p.throughStar > 0
        ? `${p.throughStar} allowed through *${p.starOperators.length > 0 ? ` (${p.starOperators.join(', ')}${p.throughStar > p.starOperators.length ? ', …' : ''})` : ''}`
        : '',
      p.contradictions > 0
        ? `${p.contradictions} contradict${p.contradictions === 1 ? 's' : ''} the usage lines`
        : '',
    ].filter(Boolean);
    return `${PURPOSE_WORDS[p.purpose]}: ${said.join(', ')}`;
  });
  return parts.length === 0 ? null : parts.join('; ');
}

/** The largest operators: "Google 0 of 8, OpenAI 5 of 5, …". */
function operatorsLine(site: DigestSite): string {
  return site.aiOperators.map((o) => `${o.operator} ${o.blocked} of ${o.crawlers}`).join(', ');
}

function aiLine(site: DigestSite): string | null {
  // No verdict yet (a site never checked): nothing is known of what they may crawl.
  if (!site.ai.some((a) => a.watched > 0)) return null;
  const blocked = site.ai.filter((a) => a.watched > 0 && a.disallowed === a.watched);
  const partly = site.ai.filter((a) => a.disallowed > 0 && a.disallowed < a.watched);
  const allowed = site.ai.filter((a) => a.watched > 0 && a.disallowed === 0);
  // Names, a few at a time; and how many of them no group names (they obey `*`).
  const list = (items: typeof site.ai, detail = false) => {
    const names = items.map((a) => `${a.agent}${detail ? ` ${a.disallowed}/${a.watched}` : ''}`);
    const shown =
      names.length <= 5
        ? names.join(', ')
        : `${names.slice(0, 4).join(', ')} and ${names.length - 4} more`;
    const star = items.filter((a) => a.underStar).length;
    const note =
      star === 0
        ? ''
        : star === items.length
          ? items.length === 1
            ? ' (falls under *)'
            : ' (all fall under *)'
          : ` (${star} fall under *)`;
    return `${shown}${note}`;
  };
  return [
    blocked.length ? `blocked: ${list(blocked)}` : '',
    partly.length ? `partly blocked: ${list(partly, true)}` : '',
    allowed.length ? `allowed: ${list(allowed)}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** A site's changes as lines: time and title, the first few with their consequence. */
function changeLines(
  site: DigestSite,
  context: RenderContext,
): { at: string; text: string; more?: readonly string[] }[] {
  const lines: { at: string; text: string; more?: readonly string[] }[] = [];
  // A cause said again (a file that flips back and forth, a server that fails and
  // recovers) is one line: when it was first said, how often, and when last.
  const said = new Map<
    string,
    { change: DigestChange; cause: ChangeCause | null; last: Date; times: number }
  >();
  for (const change of site.changes) {
    if (change.causes === null) {
      said.set(`${said.size}`, { change, cause: null, last: change.at, times: 1 });
      continue;
    }
    for (const cause of change.causes) {
      const title = causeTitle(cause, site, change.at);
      const again = said.get(title);
      if (again === undefined) said.set(title, { change, cause, last: change.at, times: 1 });
      else {
        again.last = change.at;
        again.times++;
      }
    }
  }
  const entries = [...said.values()];
  // The problems first if there are too many to show them all.
  const shown =
    entries.length <= CHANGES_PER_SITE
      ? entries
      : [
          ...entries.filter((e) => e.cause && isProblem(e.cause)),
          ...entries.filter((e) => !e.cause || !isProblem(e.cause)),
        ]
          .slice(0, CHANGES_PER_SITE)
          .sort((a, b) => a.change.at.getTime() - b.change.at.getTime());
  shown.forEach(({ change, cause, last, times }, i) => {
    const at = local(change.at, context.timeZone);
    if (cause === null) {
      lines.push({
        at,
        text: `${count(change.events, 'change event')} (recorded before robowatch explained changes)`,
      });
      return;
    }
    const explained = explainCause(cause, { agents: site.agents, at: change.at }, 1);
    const more =
      i < EXPLAINED_PER_SITE
        ? [explained.consequence, ...explained.lines].filter((l) => l !== '')
        : [];
    const again = times === 1 ? '' : `, ${times} times, the last ${local(last, context.timeZone)}`;
    lines.push({ at, text: `${explained.title}${again}`, ...(more.length > 0 ? { more } : {}) });
  });
  // Counted as changes made, a repeated one as often as it was.
  const left = entries.reduce((n, e) => n + e.times, 0) - shown.reduce((n, e) => n + e.times, 0);
  if (left > 0) lines.push({ at: '', text: `and ${count(left, 'more change')}` });
  return lines;
}

/** What a cause is called in the digest's list, which is what tells two causes apart. */
function causeTitle(cause: ChangeCause, site: DigestSite, at: Date): string {
  return explainCause(cause, { agents: site.agents, at }, 0).title;
}

export function digestSubject(digest: Digest): string {
  const n = digest.sites.length;
  const sites = count(n, 'site');
  const period = `${formatDay(digest.period.start, 'UTC')} to ${formatDay(digest.period.end, 'UTC')}`;
  if (digest.allClear) return `robowatch digest ${period}: all clear (${sites})`;
  const attention = digest.sites.filter((s) => s.attention.length > 0).length;
  const changed = digest.sites.filter((s) => s.changes.length > 0).length;
  const what =
    attention > 0
      ? `${count(attention, 'site')} ${attention === 1 ? 'needs' : 'need'} attention`
      : `changes on ${changed} of ${sites}`;
  return `robowatch digest ${period}: ${what}${attention > 0 ? ` (${sites})` : ''}`;
}

/** The digest as an email: text and HTML, each bounded. */
export function renderDigest(digest: Digest, context: RenderContext): RenderedEmail {
  const tz = context.timeZone;
  const zone = tz === 'UTC' || tz === 'Etc/UTC' ? 'UTC' : tz;
  const intro = `robowatch digest for ${digest.recipient}, ${local(digest.period.start, tz)} to ${local(digest.period.end, tz)} (times in ${zone}).`;
  const attention = digest.sites.filter((s) => s.attention.length > 0);
  const detailed = digest.sites.filter((s) => !s.clear);
  const clear = digest.sites.filter((s) => s.clear);
  const text: string[] = [intro, ''];
  const html: string[] = [
    '<!DOCTYPE html><html><body style="font-family: sans-serif; line-height: 1.4">',
    `<p>${escapeHtml(intro)}</p>`,
  ];
  if (digest.allClear) {
    const line = `All clear: no robots.txt changes and no fetch incidents on the ${count(digest.sites.length, 'site')} this period.`;
    text.push(line, '');
    html.push(`<p><strong>${escapeHtml(line)}</strong></p>`);
  }
  for (const update of digest.registry) {
    const line = registryUpdateLine(update, digest.sites.length, context);
    text.push(line, '');
    html.push(`<p>${htmlWithCode(line)}</p>`);
  }
  if (attention.length > 0) {
    text.push('Needs attention');
    html.push('<h2>Needs attention</h2>', '<ul>');
    for (const site of attention.slice(0, ATTENTION_SITES)) {
      for (const a of site.attention) {
        const line = oneLineText(`${called(site)}: ${attentionText(site, a, context)}`);
        const link = attentionLink(site, a, context);
        text.push(`  - ${line}`, `    ${link}`);
        html.push(`<li>${htmlWithCode(line)} <a href="${escapeHtml(link)}">Open</a></li>`);
      }
    }
    if (attention.length > ATTENTION_SITES) {
      const line = `and ${count(attention.length - ATTENTION_SITES, 'more site')}: ${context.links.overview()}`;
      text.push(`  ${line}`);
      html.push(`<li>${escapeHtml(line)}</li>`);
    }
    text.push('');
    html.push('</ul>');
  }
  const recovered = digest.sites.flatMap((site) => site.recovered.map((r, i) => ({ site, r, i })));
  if (recovered.length > 0) {
    text.push('Broke and recovered this period');
    html.push('<h2>Broke and recovered this period</h2>', '<ul>');
    for (const { site, r, i } of recovered.slice(0, ATTENTION_SITES)) {
      const line = oneLineText(`${called(site)} ${recoveredText(site, i, context)}`);
      const link = context.links.incident(r.id);
      text.push(`  - ${line}`, `    ${link}`);
      html.push(
        `<li>${htmlWithCode(line)} <a href="${escapeHtml(link)}">Incident #${r.id}</a></li>`,
      );
    }
    if (recovered.length > ATTENTION_SITES) {
      const line = `and ${count(recovered.length - ATTENTION_SITES, 'more incident')}: ${context.links.base}/incidents?state=resolved`;
      text.push(`  ${line}`);
      html.push(`<li>${escapeHtml(line)}</li>`);
    }
    text.push('');
    html.push('</ul>');
  }
  if (detailed.length > 0) {
    text.push('Changes and incidents, by site');
    html.push('<h2>Changes and incidents, by site</h2>');
  }
  for (const site of detailed) {
    const link = siteLink(site, context);
    text.push(`  ${called(site)}  ${link}`);
    html.push(`<h3><a href="${escapeHtml(link)}">${escapeHtml(called(site))}</a></h3>`, '<ul>');
    for (const c of changeLines(site, context)) {
      const head = oneLineText(c.at === '' ? c.text : `${c.at}  ${c.text}`);
      text.push(`    ${head}`);
      for (const m of c.more ?? []) text.push(`      ${oneLineText(m)}`);
      html.push(
        `<li>${htmlWithCode(head)}${(c.more ?? []).map((m) => `<br><span style="color:#555">${htmlWithCode(oneLineText(m))}</span>`).join('')}</li>`,
      );
    }
    const facts = [
      ...(intentLine(site) === null ? [] : [`Against intent: ${intentLine(site)}`]),
      `Fetch health: ${healthLine(site)}`,
      ...incidentLines(site.health.incidents, digest.period.end, context),
      ...disallowedLines(site).map((l) => `Disallowed now: ${l}`),
      ...(aiLine(site) === null ? [] : [`AI crawlers: ${aiLine(site)}`]),
      ...(purposesLine(site) === null
        ? []
        : [`AI crawlers in the registry, by purpose: ${purposesLine(site)}`]),
      ...(site.aiOperators.length === 0
        ? []
        : [`By operator, kept out of the home page: ${operatorsLine(site)}`]),
      ...(coverageLine(site) === null
        ? site.coverage.length === 0
          ? []
          : [
              'Sitemaps: they list no URL of this site (or could not be read), so robowatch cannot say how much of them crawlers may fetch.',
            ]
        : [`Sitemap URLs they may fetch: ${coverageLine(site)}`]),
    ].map(oneLineText);
    for (const f of facts) text.push(`    ${f}`);
    html.push(...facts.map((f) => `<li>${htmlWithCode(f)}</li>`), '</ul>');
    text.push('');
  }
  if (clear.length > 0 && !digest.allClear) {
    text.push('All clear (no change, no incident this period)');
    html.push('<h2>All clear</h2>', '<ul>');
    for (const site of clear.slice(0, CLEAR_SITES)) {
      const line = `${called(site)}: ${healthLine(site)}${aiLine(site) ? ` AI crawlers: ${aiLine(site)}.` : ''}`;
      text.push(`  ${oneLineText(line)}`);
      html.push(`<li>${htmlWithCode(oneLineText(line))}</li>`);
    }
    if (clear.length > CLEAR_SITES) {
      const line = `and ${count(clear.length - CLEAR_SITES, 'more all-clear site')}`;
      text.push(`  ${line}`);
      html.push(`<li>${escapeHtml(line)}</li>`);
    }
    html.push('</ul>');
  } else if (digest.allClear) {
    for (const site of clear.slice(0, CLEAR_SITES))
      text.push(`  ${oneLineText(`${called(site)}: ${healthLine(site)}`)}`);
  }
  const more = `The rest is in the web UI: ${context.links.overview()}`;
  html.push('</body></html>');
  return {
    subject: oneLineText(digestSubject(digest)),
    text: bounded(text.join('\n').trimEnd(), MAX_PART_CHARS, more),
    html: boundedDigestHtml(html.join('\n'), more),
  };
}

function boundedDigestHtml(html: string, more: string): string {
  if (html.length <= MAX_PART_CHARS) return html;
  const cut = html.lastIndexOf('\n<h3>', MAX_PART_CHARS - 500);
  return `${html.slice(0, cut)}\n<p>…</p><p>${escapeHtml(more)}</p></body></html>`;
}

/** The digest as structured data: what webhooks receive, bounded like the email. */
export function digestData(digest: Digest, context: RenderContext): unknown {
  return {
    recipient: digest.recipient,
    period: { start: digest.period.start.toISOString(), end: digest.period.end.toISOString() },
    timeZone: context.timeZone,
    subject: digestSubject(digest),
    allClear: digest.allClear,
    registry: digest.registry,
    recovered: digest.sites.slice(0, 1_000).flatMap((site) =>
      site.recovered.map((r, i) => ({
        site: site.origin,
        name: site.name,
        incident: r.id,
        openedAt: r.openedAt.toISOString(),
        resolvedAt: r.resolvedAt.toISOString(),
        text: recoveredText(site, i, context),
        link: context.links.incident(r.id),
      })),
    ),
    attention: digest.sites.slice(0, 1_000).flatMap((site) =>
      site.attention.map((a) => ({
        site: site.origin,
        name: site.name,
        kind: a.kind,
        text: attentionText(site, a, context),
        link: attentionLink(site, a, context),
      })),
    ),
    sites: digest.sites.slice(0, 1_000).map((site) => ({
      site: site.origin,
      name: site.name,
      link: siteLink(site, context),
      clear: site.clear,
      intent: site.intent,
      checks: site.health.checks,
      okShare: site.health.okShare,
      notRobots: site.health.notRobots,
      incidents: site.health.incidents.length,
      coverage: site.coverage,
      aiPurposes: site.aiPurposes,
      aiOperators: site.aiOperators,
      changes: changeLines(site, context).map((c) => ({
        at: c.at,
        title: c.text,
        ...(c.more ? { consequence: c.more.join(' ') } : {}),
      })),
    })),
  };
}

/** Slack keeps messages short. */
const SLACK_CHARS = 3_000;

/** The body a webhook receives for a digest: the structured digest, or a Slack `text`. */
export function renderDigestWebhookBody(
  digest: StoredDigest,
  format: WebhookFormat,
  delivery: { readonly key: string; readonly createdAt: Date },
  context: RenderContext,
): string {
  const link = `${context.links.base}/digests/${digest.id}`;
  if (format === 'slack') {
    const lines = [`*${slackEscape(digest.subject)}*`];
    const data = digest.data as { attention?: { site: string; text: string }[] } | null;
    for (const a of (data?.attention ?? []).slice(0, 20))
      lines.push(`• ${slackEscape(`${host(a.site)}: ${a.text}`)}`);
    let text = lines.join('\n');
    if (text.length > SLACK_CHARS)
      text = `${text.slice(0, text.lastIndexOf('\n', SLACK_CHARS))}\n…`;
    return JSON.stringify({ text: `${text}\n<${link}|The whole digest>` });
  }
  return JSON.stringify({
    delivery: delivery.key,
    createdAt: delivery.createdAt.toISOString(),
    kind: 'digest',
    subject: digest.subject,
    periodStart: digest.periodStart.toISOString(),
    periodEnd: digest.periodEnd.toISOString(),
    link,
    digest: digest.data,
  });
}
