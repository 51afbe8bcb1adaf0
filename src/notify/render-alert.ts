/**
 * What an alert says, in each channel's form: one message per site per check, its
 * causes most severe first, each with what crawlers do now and the watched pages it
 * touches, and links to the web UI. Bounded: past a few causes the rest are counted and
 * linked, and no email grows past a few hundred KB whatever the change. Pure. Every
 * string that came from a robots.txt (patterns, paths, sitemap URLs) is hostile: escaped
 * in HTML and stripped of control characters wherever it could reach a header line.
 */
import type { WebhookFormat } from '../policy/alerts.js';
import { rankEvents } from '../policy/alerts.js';
import type { AlertCause, AlertPayload } from '../policy/alerts.js';
import { causeHeadline, explainCause } from '../policy/wording/explain.js';
import type { Explained } from '../policy/wording/words.js';
import { pathOf } from '../policy/intent.js';
import { boundEvents } from '../policy/changes/events.js';
import type { ChangeEvent } from '../policy/changes/events.js';
import {
  formatEvent,
  formatInstant,
  headline,
  oneLineText,
  siteLabel,
} from '../policy/wording/format.js';
import type { Links } from '../policy/links.js';
import { grouped, moreChanges } from '../policy/wording/words.js';

export interface RenderedEmail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

/** What rendering needs beyond the alert: where the web UI is, and the time zone. */
export interface RenderContext {
  readonly links: Links;
  readonly timeZone: string;
}

/** Causes shown in full; then as one line each; past that, counted and linked. */
const FULL_CAUSES = 10;
const LISTED_CAUSES = 40;
const PAIR_LINES = 5;
const DETAILS = 10;
/** Subjects longer than this are cut (mail clients show far less). */
const SUBJECT_CHARS = 200;
/** The most an email's text or HTML part may hold (the two stay well under 300 KB). */
export const MAX_PART_CHARS = 120_000;

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Escaped HTML in which `code` spans (backticks) become <code> elements. */
export function htmlWithCode(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

export { oneLineText };

/** Cuts text at a limit, on a line boundary, saying where the rest is. */
export function bounded(text: string, limit: number, rest: string): string {
  if (text.length <= limit) return text;
  const cut = text.lastIndexOf('\n', limit - rest.length - 2);
  return `${text.slice(0, cut === -1 ? limit - rest.length - 2 : cut)}\n…\n${rest}`;
}

/** An alert, explained: its causes in words with their links. */
interface Model {
  readonly host: string;
  readonly site: string;
  readonly checkedAt: Date | null;
  readonly causes: readonly {
    readonly cause: AlertCause;
    readonly explained: Explained;
    /** The history of the first pair it changed, if any. */
    readonly history: { readonly label: string; readonly url: string } | null;
  }[];
  readonly diff: string | null;
  readonly siteLink: string;
  readonly subject: string;
}

function modelOf(payload: AlertPayload, context: RenderContext): Model {
  const host = new URL(payload.site).host;
  const checkedAt = payload.checkedAt ? new Date(payload.checkedAt) : null;
  const agents = payload.agents ?? [];
  const words = { agents, at: checkedAt ?? new Date(0) };
  const { links } = context;
  const causes = (payload.causes ?? []).map((cause, i) => {
    const explained = explainCause(cause, words, i < FULL_CAUSES ? PAIR_LINES : 0);
    const first = cause.pairs.find((p) => p.flipped) ?? cause.pairs[0];
    const history =
      first === undefined || payload.siteId === undefined
        ? null
        : {
            label: `History of ${pathOf(first.url)} for ${first.agent}`,
            url: links.verdicts(payload.siteId, first.url, first.agent),
          };
    return { cause, explained, history };
  });
  const lead = causes.find((c) => c.cause.alerts) ?? causes[0];
  const others = causes.length - 1;
  const more = lead ? moreChanges(others) : '';
  // The count stays whatever the headline's length: a long pattern is cut, not the count.
  const label = siteLabel(payload.site, payload.name);
  const room = SUBJECT_CHARS - label.length - 2 - more.length;
  const head = oneLineText(
    lead ? causeHeadline(lead.cause, words) : legacyHeadline(payload.events),
  );
  const subject = `${label}: ${head.length > room ? `${head.slice(0, room - 1)}…` : head}${more}`;
  return {
    host,
    site: payload.site,
    checkedAt,
    causes,
    diff:
      payload.siteId === undefined ||
      payload.snapshotId === undefined ||
      // A registry update changes no line of the file, and a refused check reads none:
      // there is nothing to diff.
      (causes.length > 0 &&
        causes.every((c) => c.cause.type === 'registry' || c.cause.type === 'refused'))
        ? null
        : links.diff(payload.siteId, payload.previousId, payload.snapshotId),
    siteLink: payload.siteId === undefined ? links.overview() : links.site(payload.siteId),
    subject,
  };
}

/** Where an alert points first: the diff of its change, else the site. */
export function alertLink(payload: AlertPayload, context: RenderContext): string {
  const model = modelOf(payload, context);
  return model.diff ?? model.siteLink;
}

/** Subjects of alerts queued by an older robowatch (events only). */
function legacyHeadline(events: readonly ChangeEvent[]): string {
  const [first, ...rest] = rankEvents(events);
  if (first === undefined) return 'robots.txt changed';
  return `${headline(first)}${moreChanges(rest.length)}`;
}

/** The subject of an alert: the site and its most severe alerting cause. */
export function alertSubject(payload: AlertPayload, context: RenderContext): string {
  return modelOf(payload, context).subject;
}

function intro(model: Model, context: RenderContext): string {
  const n = model.causes.length;
  const when =
    model.checkedAt === null
      ? ''
      : ` (checked ${formatInstant(model.checkedAt, context.timeZone)})`;
  if (n > 0 && model.causes.every((c) => c.cause.type === 'refused'))
    return `robowatch could not check ${model.site}/robots.txt${model.checkedAt === null ? '' : ` when it tried at ${formatInstant(model.checkedAt, context.timeZone)}`}:`;
  if (n > 0 && model.causes.every((c) => c.cause.type === 'registry'))
    return `robowatch's AI crawler registry changed${model.checkedAt === null ? '' : ` (${formatInstant(model.checkedAt, context.timeZone)})`}; what it means for ${model.site}/robots.txt, which did not change:`;
  return n === 0
    ? `robowatch found changes in ${model.site}/robots.txt${when}:`
    : `robowatch found ${n} change${n === 1 ? '' : 's'} in ${model.site}/robots.txt${when}:`;
}

/** The email of one check of one site. */
export function renderAlertEmail(payload: AlertPayload, context: RenderContext): RenderedEmail {
  const model = modelOf(payload, context);
  if (model.causes.length === 0) return legacyEmail(payload, model, context);
  const shown = model.causes.slice(0, LISTED_CAUSES);
  const hidden = model.causes.length - shown.length;
  const textParts: string[] = [intro(model, context), ''];
  const htmlParts: string[] = [
    '<!DOCTYPE html><html><body style="font-family: sans-serif; line-height: 1.4">',
    `<p>${escapeHtml(intro(model, context))}</p>`,
    '<ol>',
  ];
  shown.forEach(({ explained, history }, i) => {
    const full = i < FULL_CAUSES;
    const title = oneLineText(explained.title);
    textParts.push(`${i + 1}. ${title}`);
    htmlParts.push(`<li><p><strong>${htmlWithCode(title)}</strong>`);
    if (!full) {
      htmlParts.push('</p></li>');
      return;
    }
    const lines = [
      ...(explained.consequence === '' ? [] : [explained.consequence]),
      ...explained.lines.map((l) => `- ${l}`),
      ...(explained.more > 0 ? [`- and ${explained.more} more watched page × crawler pairs`] : []),
      ...explained.details.slice(0, DETAILS).map((d) => `  ${d}`),
      ...moreDetails(explained, DETAILS),
    ].map(oneLineText);
    for (const line of lines) textParts.push(`   ${line}`);
    if (history) textParts.push(`   ${history.label}: ${history.url}`);
    textParts.push('');
    const [first, ...rest] = lines;
    if (first !== undefined && !first.startsWith('- '))
      htmlParts.push(`<br>${htmlWithCode(first)}`);
    htmlParts.push('</p>');
    const items = (first !== undefined && !first.startsWith('- ') ? rest : lines).map((l) =>
      l.replace(/^- /, ''),
    );
    if (items.length > 0)
      htmlParts.push(`<ul>${items.map((l) => `<li>${htmlWithCode(l)}</li>`).join('')}</ul>`);
    if (history)
      htmlParts.push(
        `<p><a href="${escapeHtml(history.url)}">${escapeHtml(history.label)}</a></p>`,
      );
    htmlParts.push('</li>');
  });
  htmlParts.push('</ol>');
  const rest = `and ${hidden} more change${hidden === 1 ? '' : 's'}: see ${model.diff ?? model.siteLink}`;
  if (hidden > 0) {
    textParts.push(rest, '');
    htmlParts.push(`<p>${escapeHtml(rest)}</p>`);
  }
  const footer = [
    ...(model.diff ? [`What changed, line by line: ${model.diff}`] : []),
    `The site's history: ${model.siteLink}`,
  ];
  textParts.push(...footer);
  htmlParts.push(
    '<p style="color: #555">',
    ...(model.diff
      ? [`<a href="${escapeHtml(model.diff)}">What changed, line by line</a> · `]
      : []),
    `<a href="${escapeHtml(model.siteLink)}">The site's history</a></p>`,
    '</body></html>',
  );
  const more = `The rest is in the web UI: ${model.diff ?? model.siteLink}`;
  return {
    subject: model.subject,
    text: bounded(textParts.join('\n'), MAX_PART_CHARS, more),
    html: boundedHtml(htmlParts.join('\n'), more),
  };
}

/** "and 10,888 more" after the examples a summary lists, when there are more. */
function moreDetails(explained: Explained, shown: number): string[] {
  const more = Math.max(0, explained.details.length - shown) + explained.detailsMore;
  return more > 0 ? [`  and ${grouped(more)} more`] : [];
}

/** The HTML part, cut at the limit between elements when it must be. */
function boundedHtml(html: string, more: string): string {
  if (html.length <= MAX_PART_CHARS) return html;
  const cut = html.lastIndexOf('\n<li>', MAX_PART_CHARS - 500);
  return `${html.slice(0, cut)}\n</ol><p>…</p><p>${escapeHtml(more)}</p></body></html>`;
}

/** An alert queued by an older robowatch: its events, listed. */
function legacyEmail(payload: AlertPayload, model: Model, context: RenderContext): RenderedEmail {
  const lines = rankEvents(payload.events).flatMap(formatEvent).map(oneLineText);
  const footer = `See the site in the web UI: ${model.siteLink}`;
  const text = bounded(
    [intro(model, context), '', ...lines.map((l) => `  - ${l}`), '', footer].join('\n'),
    MAX_PART_CHARS,
    footer,
  );
  const html = boundedHtml(
    [
      '<!DOCTYPE html><html><body style="font-family: sans-serif">',
      `<p>${escapeHtml(intro(model, context))}</p>`,
      '<ol>',
      ...lines.map((l) => `<li>${escapeHtml(l)}</li>`),
      '</ol>',
      `<p><a href="${escapeHtml(model.siteLink)}">See the site in the web UI</a></p>`,
      '</body></html>',
    ].join('\n'),
    footer,
  );
  return { subject: model.subject, text, html };
}

/** Slack keeps messages short: this many characters at most, then a link. */
const SLACK_CHARS = 3_000;

/** Escapes text as Slack's markup asks: &, < and > only. */
export function slackEscape(text: string): string {
  return oneLineText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A Slack (or Mattermost, Discord-compatible) message: a readable `text`. */
export function renderSlackText(payload: AlertPayload, context: RenderContext): string {
  const model = modelOf(payload, context);
  const link = model.diff ?? model.siteLink;
  const lines = [`*robowatch: ${slackEscape(model.subject)}*`];
  if (model.causes.length === 0)
    lines.push(
      ...rankEvents(payload.events)
        .flatMap(formatEvent)
        .map((l) => `• ${slackEscape(l)}`),
    );
  for (const { explained } of model.causes.slice(0, FULL_CAUSES)) {
    lines.push(`• ${slackEscape(explained.title)}`);
    if (explained.consequence !== '') lines.push(`    ${slackEscape(explained.consequence)}`);
    for (const l of explained.lines.slice(0, 3)) lines.push(`    – ${slackEscape(l)}`);
  }
  if (model.causes.length > FULL_CAUSES)
    lines.push(`• and ${model.causes.length - FULL_CAUSES} more changes`);
  const footer = `<${link}|What changed> · <${model.siteLink}|The site's history>`;
  let text = lines.join('\n');
  if (text.length > SLACK_CHARS) {
    const cut = text.lastIndexOf('\n', SLACK_CHARS);
    text = `${text.slice(0, cut)}\n…`;
  }
  return `${text}\n${footer}`;
}

/** The body of a webhook delivery: the causes (structured and in words), and the events. */
export function renderWebhookBody(
  payload: AlertPayload,
  format: WebhookFormat,
  delivery: { readonly key: string; readonly createdAt: Date },
  context: RenderContext,
): string {
  if (format === 'slack') return JSON.stringify({ text: renderSlackText(payload, context) });
  const model = modelOf(payload, context);
  return JSON.stringify({
    delivery: delivery.key,
    createdAt: delivery.createdAt.toISOString(),
    site: payload.site,
    name: payload.name ?? null,
    subject: model.subject,
    links: { site: model.siteLink, diff: model.diff },
    causes: model.causes.map(({ cause, explained, history }) => ({
      ...cause,
      title: explained.title,
      consequence: explained.consequence,
      lines: explained.lines,
      ...(history === null ? {} : { history: history.url }),
    })),
    events: boundEvents(rankEvents(payload.events)),
  });
}
