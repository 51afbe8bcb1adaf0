/**
 * What an alert says, in each channel's form. Pure. Every string that came from a
 * robots.txt (patterns, paths, sitemap URLs, error details) is hostile: it is escaped in
 * HTML and stripped of control characters wherever it could reach a header line.
 */
import { rankEvents } from '../policy/alerts.js';
import type { ChangeEvent } from '../policy/events.js';
import { formatEvent, headline } from '../policy/format.js';

export interface RenderedEmail {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

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

/** One line of plain text: control characters (CR and LF included) become spaces. */
export function oneLineText(text: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

/** "example.com: /pricing is now disallowed for Googlebot (and 3 more changes)". */
export function alertSubject(site: string, events: readonly ChangeEvent[]): string {
  const [first, ...rest] = rankEvents(events);
  const more =
    rest.length === 0 ? '' : ` (and ${rest.length} more change${rest.length === 1 ? '' : 's'})`;
  return oneLineText(
    `${new URL(site).host}: ${first ? headline(first) : 'robots.txt changed'}${more}`,
  ).slice(0, 250);
}

/** The email of one check of one site: every alerting change, most important first. */
export function renderAlertEmail(site: string, events: readonly ChangeEvent[]): RenderedEmail {
  const ranked = rankEvents(events);
  const lines = ranked.flatMap(formatEvent).map(oneLineText);
  const text = [
    `robowatch found ${ranked.length} change${ranked.length === 1 ? '' : 's'} in ${site}/robots.txt:`,
    '',
    ...lines.map((l) => `  - ${l}`),
    '',
    `See the history: robowatch history ${site}`,
  ].join('\n');
  const html = [
    '<!DOCTYPE html><html><body style="font-family: sans-serif">',
    `<p>robowatch found ${ranked.length} change${ranked.length === 1 ? '' : 's'} in <a href="${escapeHtml(site)}/robots.txt">${escapeHtml(site)}/robots.txt</a>:</p>`,
    '<ul>',
    ...lines.map((l) => `<li>${escapeHtml(l)}</li>`),
    '</ul>',
    `<p style="color: #666">See the history: <code>robowatch history ${escapeHtml(site)}</code></p>`,
    '</body></html>',
  ].join('\n');
  return { subject: alertSubject(site, ranked), text, html };
}

/** A Slack (or Mattermost, Discord-compatible) message: a readable `text`. */
export function renderSlackText(site: string, events: readonly ChangeEvent[]): string {
  const ranked = rankEvents(events);
  // Slack reads <, > and & as markup: escape them as its documentation asks.
  const slack = (s: string) =>
    oneLineText(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return [
    `*robowatch: ${slack(alertSubject(site, ranked))}*`,
    ...ranked.flatMap(formatEvent).map((l) => `• ${slack(l)}`),
  ].join('\n');
}

/** The body of a webhook delivery. */
export function renderWebhookBody(
  site: string,
  events: readonly ChangeEvent[],
  format: 'json' | 'slack',
  delivery: { readonly key: string; readonly createdAt: Date },
): string {
  if (format === 'slack') return JSON.stringify({ text: renderSlackText(site, events) });
  return JSON.stringify({
    delivery: delivery.key,
    createdAt: delivery.createdAt.toISOString(),
    site,
    events: rankEvents(events),
  });
}
