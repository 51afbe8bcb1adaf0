/**
 * Messages for the services people are paged or chat in: Microsoft Teams (an Adaptive
 * Card), Discord (an embed), Telegram (Bot API sendMessage, HTML) and PagerDuty (Events
 * API v2). Each says what the email says, in the service's own shape and within its
 * limits: a title, the lines (code in backticks), one link. Pure. Every line may hold a
 * robots.txt's text: escaped for HTML (Telegram), for Markdown outside code (Discord, so
 * that a file cannot write a link or mention anyone), and never read as markup by Teams.
 */
import { createHash } from 'node:crypto';
import type { IncidentPayload } from '../policy/incident-alerts.js';
import { escapeHtml } from './render-alert.js';

/** A notification as chat services show it. */
export interface ChatMessage {
  /** One line. */
  readonly title: string;
  /** Plain lines, code in backticks; '' separates paragraphs, '- ' starts a list item. */
  readonly lines: readonly string[];
  readonly link: { readonly href: string; readonly text: string };
  /** A problem (red), a fix (green), or news (blue). */
  readonly tone: 'problem' | 'fixed' | 'info';
  /** What PagerDuty does with it: an incident's event (absent: not an incident). */
  readonly page?: PagerDutyEvent;
}

/** An incident's event as PagerDuty takes it. */
export interface PagerDutyEvent {
  readonly action: 'trigger' | 'acknowledge' | 'resolve';
  /** The same for every event of one incident (at most 255 characters). */
  readonly dedupKey: string;
  readonly severity: 'critical' | 'error' | 'warning' | 'info';
  /** The site's host. */
  readonly source: string;
  readonly group: string;
  readonly class: string;
  /** ISO 8601. */
  readonly timestamp: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** The event of an incident's transition. */
export function incidentEvent(payload: IncidentPayload): PagerDutyEvent {
  const { incident } = payload;
  const host = new URL(payload.site).host;
  return {
    action:
      incident.transition === 'resolved'
        ? 'resolve'
        : incident.transition === 'acknowledged'
          ? 'acknowledge'
          : 'trigger',
    dedupKey: incidentDedupKey(payload.site, incident.id),
    severity: incident.state === 'cannot-check' ? 'critical' : 'error',
    source: host,
    group: payload.name ?? host,
    class: incident.state,
    timestamp: payload.at,
    details: {
      incident: incident.id,
      state: incident.state,
      openedAt: incident.openedAt,
      causes: incident.causes,
      cells: incident.violationCount,
      differing: incident.violations.map((v) => ({
        url: v.url,
        crawler: v.agent,
        meant: v.expected === 'allowed' ? 'crawled' : 'kept out',
      })),
      changes: incident.changes,
    },
  };
}

/** One incident's key in PagerDuty: its site's host (readable) and id, bounded. */
export function incidentDedupKey(site: string, id: number): string {
  const host = new URL(site).host;
  const said = host.length <= 120 ? host : createHash('sha256').update(host).digest('hex');
  return `robowatch:${said}:incident:${id}`;
}

/** Discord, Telegram: at most this many characters of text; Teams: of the card. */
const DISCORD_TITLE = 256;
const DISCORD_TEXT = 4_096;
const TELEGRAM_TEXT = 4_096;
const TEAMS_BYTES = 26_000;
const TEAMS_BLOCKS = 60;
const PAGERDUTY_SUMMARY = 1_024;

const COLOURS = { problem: 0xc5221f, fixed: 0x188038, info: 0x1a73e8 } as const;

/** Lines joined, the last ones left out (and said) past `max` characters. */
function fit(lines: readonly string[], max: number, cost = (l: string) => l.length + 1): string[] {
  const out: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const room = i === lines.length - 1 ? 0 : 2;
    if (used + cost(line) + room > max) {
      out.push('…');
      break;
    }
    out.push(line);
    used += cost(line);
  }
  return out;
}

/** Cuts one line to `max` characters. */
const cut = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/**
 * Markdown (Discord) with the file's text inert: no link (`[` `]` escaped), mention, emphasis,
 * heading or quote of its own; code kept as code.
 */
export function discordMarkdown(line: string): string {
  const item = line.startsWith('- ');
  const escaped = (item ? line.slice(2) : line)
    .split(/(`[^`]+`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[\\*_~|[\]<@]/g, (c) => `\\${c}`)))
    .join('')
    // A heading or a quote only where a line starts.
    .replace(/^([#>])/, '\\$1');
  return item ? `- ${escaped}` : escaped;
}

/** Telegram's HTML: escaped, `code` as <code>. */
const telegramHtml = (line: string) => escapeHtml(line).replace(/`([^`]+)`/g, '<code>$1</code>');

/** The Discord webhook body: one embed, nobody mentioned whatever the text says. */
export function discordBody(message: ChatMessage): string {
  const description = fit(message.lines.map(discordMarkdown), DISCORD_TEXT - 2).join('\n');
  return JSON.stringify({
    username: 'robowatch',
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title: cut(message.title, DISCORD_TITLE),
        ...(description === '' ? {} : { description }),
        ...(isHttp(message.link.href) ? { url: message.link.href } : {}),
        color: COLOURS[message.tone],
      },
    ],
  });
}

/**
 * A line as Adaptive Card inlines: TextRuns, which Teams never reads as Markdown, code in
 * a monospace font.
 */
function textRuns(line: string): { type: 'TextRun'; text: string; fontType?: 'Monospace' }[] {
  return line
    .split(/`([^`]+)`/)
    .map((text, i) =>
      i % 2 === 1
        ? { type: 'TextRun' as const, text, fontType: 'Monospace' as const }
        : { type: 'TextRun' as const, text },
    )
    .filter((run) => run.text !== '');
}

/** The Teams body (an incoming webhook or a Workflows trigger): an Adaptive Card. */
export function teamsBody(message: ChatMessage): string {
  const lines = fit(
    message.lines.filter((l) => l !== ''),
    TEAMS_BYTES,
    (l) => Buffer.byteLength(l) + 80,
  ).slice(0, TEAMS_BLOCKS);
  return JSON.stringify({
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            {
              type: 'RichTextBlock',
              inlines: [
                {
                  type: 'TextRun',
                  text: message.title,
                  weight: 'Bolder',
                  size: 'Medium',
                  color:
                    message.tone === 'problem'
                      ? 'Attention'
                      : message.tone === 'fixed'
                        ? 'Good'
                        : 'Default',
                },
              ],
            },
            ...lines.map((line) => ({
              type: 'RichTextBlock',
              spacing: line.startsWith('- ') ? 'None' : 'Small',
              inlines: textRuns(line.startsWith('- ') ? `• ${line.slice(2)}` : line),
            })),
          ],
          ...(isHttp(message.link.href)
            ? {
                actions: [
                  { type: 'Action.OpenUrl', title: message.link.text, url: message.link.href },
                ],
              }
            : {}),
        },
      },
    ],
  });
}

/** The Telegram Bot API sendMessage body, in its HTML parse mode. */
export function telegramBody(message: ChatMessage, chatId: string): string {
  const head = `<b>${escapeHtml(message.title)}</b>`;
  const link = isHttp(message.link.href)
    ? `<a href="${escapeHtml(message.link.href)}">${escapeHtml(message.link.text)}</a>`
    : '';
  // The limit counts the text as shown, not its tags.
  const shown = (html: string) => html.replace(/<[^>]+>/g, '').length + 1;
  const room = TELEGRAM_TEXT - shown(head) - shown(link) - 4;
  const lines = fit(message.lines.map(telegramHtml), room, shown);
  return JSON.stringify({
    chat_id: /^-?\d+$/.test(chatId) ? Number(chatId) : chatId,
    text: [head, '', ...lines, ...(link === '' ? [] : ['', link])].join('\n'),
    parse_mode: 'HTML',
    link_preview_options: { is_disabled: true },
  });
}

/**
 * The PagerDuty Events API v2 bodies: an incident's event; a test is a trigger at `info`
 * and its resolve, so that nobody stays paged.
 */
export function pagerDutyBodies(
  message: ChatMessage,
  routingKey: string,
  context: {
    readonly base: string;
    readonly key: string;
    readonly test: boolean;
    readonly at: Date;
  },
): string[] {
  const event: PagerDutyEvent = message.page ?? {
    action: 'trigger',
    dedupKey: `robowatch:${context.test ? 'test' : 'notification'}:${context.key}`,
    severity: 'info',
    source: 'robowatch',
    group: 'robowatch',
    class: context.test ? 'test' : 'notification',
    timestamp: context.at.toISOString(),
    details: {},
  };
  const follow = (action: 'acknowledge' | 'resolve') =>
    JSON.stringify({ routing_key: routingKey, dedup_key: event.dedupKey, event_action: action });
  if (event.action !== 'trigger') return [follow(event.action)];
  const trigger = JSON.stringify({
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: event.dedupKey,
    payload: {
      summary: cut(message.title, PAGERDUTY_SUMMARY),
      source: event.source,
      severity: event.severity,
      timestamp: event.timestamp,
      component: 'robots.txt',
      group: event.group,
      class: event.class,
      custom_details: { ...event.details, text: fit(message.lines, 8_000).join('\n') },
    },
    ...(isHttp(message.link.href)
      ? { links: [{ href: message.link.href, text: message.link.text }] }
      : {}),
    client: 'robowatch',
    ...(isHttp(context.base) ? { client_url: context.base } : {}),
  });
  return context.test ? [trigger, follow('resolve')] : [trigger];
}

const isHttp = (href: string) => /^https?:\/\//.test(href);
