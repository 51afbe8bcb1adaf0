/** The weekly digest as an email: text and HTML parts. Pure; every file-derived string escaped. */
import type { Digest, DigestSite, Incident } from '../policy/digest.js';
import type { ChangeEvent } from '../policy/events.js';
import { formatEvent, formatStatus } from '../policy/format.js';
import { escapeHtml, oneLineText } from './render-alert.js';
import type { RenderedEmail } from './render-alert.js';

function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function minute(date: Date): string {
  return date.toISOString().slice(0, 16).replace('T', ' ') + 'Z';
}

/** A change with its before and after spelled out. */
function changeLine(event: ChangeEvent): string[] {
  const lines = formatEvent(event);
  if (event.type === 'newly_disallowed') return lines.map((l) => `${l} [was allowed]`);
  if (event.type === 'newly_allowed') return lines.map((l) => `${l} [was disallowed]`);
  return lines;
}

function incidentLine(incident: Incident): string {
  const until =
    incident.end === null
      ? 'still going at the end of the period'
      : `until ${minute(incident.end)}`;
  return `${formatStatus(incident.status)} from ${minute(incident.start)}, ${until}`;
}

function percent(share: number | null): string {
  return share === null ? 'no checks' : `${Math.round(share * 1000) / 10}% ok`;
}

/** The AI crawlers' standing: blocked, partly blocked, allowed; and who falls under "*". */
function aiLines(site: DigestSite): string[] {
  if (site.ai.length === 0) return [];
  const star = (a: DigestSite['ai'][number]) => (a.underStar ? ' (falls under *)' : '');
  const blocked = site.ai.filter((a) => a.watched > 0 && a.disallowed === a.watched);
  const partly = site.ai.filter((a) => a.disallowed > 0 && a.disallowed < a.watched);
  const allowed = site.ai.filter((a) => a.disallowed === 0);
  const list = (items: typeof site.ai, detail = false) =>
    items
      .map((a) => `${a.agent}${detail ? ` ${a.disallowed}/${a.watched}` : ''}${star(a)}`)
      .join(', ');
  return [
    ...(blocked.length ? [`blocked: ${list(blocked)}`] : []),
    ...(partly.length ? [`partly blocked: ${list(partly, true)}`] : []),
    ...(allowed.length ? [`allowed: ${list(allowed)}`] : []),
  ];
}

interface Section {
  readonly title: string;
  readonly lines: readonly string[];
}

function sections(site: DigestSite): Section[] {
  return [
    {
      title: 'Changes',
      lines:
        site.changes.length === 0
          ? ['none']
          : site.changes.flatMap((c) => changeLine(c.event).map((l) => `${minute(c.at)}  ${l}`)),
    },
    {
      title: 'Watched URLs disallowed now',
      lines:
        site.disallowed.length === 0
          ? ['none']
          : site.disallowed.map(
              (d) =>
                `${d.agent}: ${d.urls.map((u) => new URL(u).pathname + new URL(u).search).join(', ')}`,
            ),
    },
    {
      title: 'Fetch health',
      lines: [
        site.health.checks === 0
          ? 'not checked this period'
          : `${percent(site.health.okShare)} of ${site.health.checks} check${site.health.checks === 1 ? '' : 's'}`,
        ...site.health.incidents.map((i) => `incident: ${incidentLine(i)}`),
      ],
    },
    { title: 'AI crawlers', lines: aiLines(site) },
  ].filter((s) => s.lines.length > 0);
}

export function digestSubject(digest: Digest): string {
  const changes = digest.sites.reduce((sum, s) => sum + s.changes.length, 0);
  const incidents = digest.sites.reduce((sum, s) => sum + s.health.incidents.length, 0);
  const sites = `${digest.sites.length} site${digest.sites.length === 1 ? '' : 's'}`;
  const what = digest.allClear
    ? `all clear (${sites})`
    : `${changes} change${changes === 1 ? '' : 's'}, ${incidents} incident${incidents === 1 ? '' : 's'} on ${sites}`;
  return `robowatch digest ${day(digest.period.start)} to ${day(digest.period.end)}: ${what}`;
}

export function renderDigest(digest: Digest): RenderedEmail {
  const intro = `robowatch digest for ${digest.recipient}, ${minute(digest.period.start)} to ${minute(digest.period.end)}.`;
  const clear = 'All clear: no robots.txt changes and no fetch incidents this period.';
  const text = [
    intro,
    ...(digest.allClear ? ['', clear] : []),
    ...digest.sites.flatMap((site) => [
      '',
      site.origin,
      ...sections(site).flatMap((s) => [
        `  ${s.title}:`,
        ...s.lines.map((l) => `    ${oneLineText(l)}`),
      ]),
    ]),
  ].join('\n');
  const html = [
    '<!DOCTYPE html><html><body style="font-family: sans-serif">',
    `<p>${escapeHtml(intro)}</p>`,
    ...(digest.allClear ? [`<p><strong>${escapeHtml(clear)}</strong></p>`] : []),
    ...digest.sites.flatMap((site) => [
      `<h2>${escapeHtml(site.origin)}</h2>`,
      ...sections(site).flatMap((s) => [
        `<h3>${escapeHtml(s.title)}</h3>`,
        '<ul>',
        ...s.lines.map((l) => `<li>${escapeHtml(oneLineText(l))}</li>`),
        '</ul>',
      ]),
    ]),
    '</body></html>',
  ].join('\n');
  return { subject: oneLineText(digestSubject(digest)), text, html };
}
