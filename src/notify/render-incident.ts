/**
 * What an incident alert says, in each channel's form: the site is not as its owner
 * intends (which cells, why, since when), it got worse, or it is as intended again and
 * how long it was not. Pure. Cause lines and paths came from a robots.txt: escaped in
 * HTML, kept on one line in subjects and Slack.
 */
import type { WebhookFormat } from '../policy/alerts.js';
import type { IncidentPayload } from '../policy/incident-alerts.js';
import { count, differingPairs, formatDuration } from '../policy/wording/words.js';
import { formatInstant, oneLineText, siteLabel } from '../policy/wording/format.js';
import { escapeHtml, htmlWithCode, slackEscape } from './render-alert.js';
import { intentLead, violationLines } from '../policy/incidents.js';
import type { RenderContext, RenderedEmail } from './render-alert.js';

const SUBJECT_CHARS = 200;

export interface IncidentModel {
  readonly label: string;
  readonly subject: string;
  /** The lines of the message, plain (code in backticks). */
  readonly lines: readonly string[];
  readonly siteLink: string;
  readonly incidentsLink: string;
}

/** An incident alert's words: its label, subject, lines and links. */
export function incidentModel(payload: IncidentPayload, context: RenderContext): IncidentModel {
  const label = siteLabel(payload.site, payload.name);
  const { incident } = payload;
  const openedAt = new Date(incident.openedAt);
  const at = new Date(payload.at);
  const cells = incident.violationCount;
  const lead =
    incident.lead ?? intentLead(incident.state, incident.violations, cells, incident.causes[0]);
  const open = formatDuration(at.getTime() - openedAt.getTime());
  const head =
    incident.transition === 'resolved'
      ? `as intended again after ${open}`
      : incident.transition === 'acknowledged'
        ? `acknowledged${incident.acknowledgedBy === undefined ? '' : ` by ${incident.acknowledgedBy}`}: ${lead}`
        : incident.transition === 'reminder'
          ? `still ${incident.state === 'cannot-check' ? 'open' : 'not as intended'} after ${open}, not acknowledged: ${lead}`
          : incident.transition === 'worse'
            ? `worse: ${lead}`
            : incident.state === 'cannot-check'
              ? lead
              : `not as intended: ${lead}`;
  const room = SUBJECT_CHARS - label.length - 2;
  const oneLine = oneLineText(head);
  const subject = `${label}: ${oneLine.length > room ? `${oneLine.slice(0, room - 1)}…` : oneLine}`;
  const when = formatInstant(openedAt, context.timeZone);
  const lines: string[] = [];
  if (incident.transition === 'resolved') {
    lines.push(
      `${label} is as its owner intends again (${formatInstant(at, context.timeZone)}): incident #${incident.id}, open since ${when}, lasted ${formatDuration(at.getTime() - openedAt.getTime())}.`,
    );
  } else {
    lines.push(
      incident.transition === 'acknowledged'
        ? `Incident #${incident.id} on ${label} was acknowledged${incident.acknowledgedBy === undefined ? '' : ` by ${incident.acknowledgedBy}`}${incident.note === undefined ? '' : `: “${incident.note}”`} (open since ${when}).`
        : incident.transition === 'reminder'
          ? `Reminder: incident #${incident.id} on ${label} is still open (since ${when}, ${open}) and nobody has acknowledged it. Acknowledge it, with what is being done, to stop these reminders.`
          : incident.transition === 'worse'
            ? `Incident #${incident.id} on ${label} got worse (open since ${when}).`
            : `${label} is not as its owner intends since ${when} (incident #${incident.id}).`,
    );
    if (incident.state === 'cannot-check')
      lines.push('', ...incident.causes.map((c) => `Why: ${c}`));
    else {
      // More differ than are listed: the whole first, then the first pages (each with
      // every crawler it is wrong for, of those kept).
      const pages = new Set(incident.violations.map((v) => v.url)).size;
      lines.push(
        '',
        incident.violations.length < cells
          ? `${differingPairs(cells)} from the intent: ${lead}. The first ${count(pages, 'page')}:`
          : `${differingPairs(cells)} from the intent:`,
      );
      for (const line of violationLines(incident.violations, cells)) lines.push(`- ${line}`);
      if (incident.causes.length > 0)
        lines.push('', 'Why:', ...incident.causes.map((c) => `- ${c}`));
    }
  }
  if (incident.changes.length > 0)
    lines.push('', 'What changed in robots.txt:', ...incident.changes.map((c) => `- ${c}`));
  return {
    label,
    subject,
    lines: lines.map((l) => (l === '' ? l : oneLineText(l))),
    siteLink: context.links.site(payload.siteId),
    incidentsLink: context.links.incident(incident.id),
  };
}

/** The subject of an incident alert. */
export function incidentSubject(payload: IncidentPayload, context: RenderContext): string {
  return incidentModel(payload, context).subject;
}

/** The email of one incident transition. */
export function renderIncidentEmail(
  payload: IncidentPayload,
  context: RenderContext,
): RenderedEmail {
  const model = incidentModel(payload, context);
  const text = [
    ...model.lines,
    '',
    `The incident: ${model.incidentsLink}`,
    `The site: ${model.siteLink}`,
  ].join('\n');
  const html: string[] = [
    '<!DOCTYPE html><html><body style="font-family: sans-serif; line-height: 1.4">',
  ];
  let list = false;
  for (const line of model.lines) {
    const item = line.startsWith('- ');
    if (item && !list) html.push('<ul>');
    if (!item && list) html.push('</ul>');
    list = item;
    if (item) html.push(`<li>${htmlWithCode(line.slice(2))}</li>`);
    else if (line !== '') html.push(`<p>${htmlWithCode(line)}</p>`);
  }
  if (list) html.push('</ul>');
  html.push(
    `<p style="color: #555"><a href="${escapeHtml(model.incidentsLink)}">The incident</a> · <a href="${escapeHtml(model.siteLink)}">The site</a></p>`,
    '</body></html>',
  );
  return { subject: model.subject, text, html: html.join('\n') };
}

/** A Slack message of one incident transition. */
export function renderIncidentSlackText(payload: IncidentPayload, context: RenderContext): string {
  const model = incidentModel(payload, context);
  const lines = [`*robowatch: ${slackEscape(model.subject)}*`];
  for (const line of model.lines.slice(1))
    if (line !== '')
      lines.push(line.startsWith('- ') ? `• ${slackEscape(line.slice(2))}` : slackEscape(line));
  lines.push(`<${model.incidentsLink}|The incident> · <${model.siteLink}|The site>`);
  return lines.join('\n');
}

/** The body of a webhook delivery of one incident transition. */
export function renderIncidentWebhookBody(
  payload: IncidentPayload,
  format: WebhookFormat,
  delivery: { readonly key: string; readonly createdAt: Date },
  context: RenderContext,
): string {
  if (format === 'slack')
    return JSON.stringify({ text: renderIncidentSlackText(payload, context) });
  const model = incidentModel(payload, context);
  return JSON.stringify({
    delivery: delivery.key,
    createdAt: delivery.createdAt.toISOString(),
    site: payload.site,
    name: payload.name ?? null,
    subject: model.subject,
    incident: payload.incident,
    links: { site: model.siteLink, incident: model.incidentsLink },
  });
}
