/**
 * Atom feeds of changes (RFC 4287): every watched site's, and one site's. Each entry is a
 * new state of a site: its most severe cause as the title, every cause and what crawlers
 * do now as the text, linked to its diff.
 */
import { causeHeadline, explainCause } from '../policy/wording/explain.js';
import { headline } from '../policy/wording/format.js';
import { rankEvents } from '../policy/alerts.js';
import type { StoredChange } from '../monitor/records.js';

export interface FeedSite {
  readonly id: number;
  readonly origin: string;
  readonly name: string | null;
  readonly agents: readonly string[];
}

const escape = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // Characters XML 1.0 does not allow (a robots.txt may hold any byte).
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd');

/** A cause's words without the page's code marks. */
const plain = (text: string) => text.replace(/`([^`]*)`/g, '$1');

function entryText(change: StoredChange, site: FeedSite): { title: string; text: string } {
  const context = { agents: site.agents, at: change.at };
  const who = site.name ?? site.origin;
  if (change.causes !== null && change.causes.length > 0) {
    const lines = change.causes.flatMap((cause) => {
      const explained = explainCause(cause, context, 5);
      return [
        `• ${plain(explained.title)}`,
        ...(explained.consequence === '' ? [] : [`  ${plain(explained.consequence)}`]),
        ...explained.lines.map((l) => `  – ${plain(l)}`),
      ];
    });
    return {
      title: `${who}: ${plain(causeHeadline(change.causes[0]!, context))}`,
      text: lines.join('\n'),
    };
  }
  const events = rankEvents(change.events);
  return {
    title: `${who}: ${events[0] === undefined ? 'changed' : headline(events[0])}`,
    text: events.map((e) => `• ${headline(e)}`).join('\n'),
  };
}

/** The feed's XML: `base` is the web UI's address, `self` the feed's own path. */
export function renderAtom(feed: {
  readonly base: string;
  readonly self: string;
  readonly title: string;
  /** The page the feed follows (the overview, a site's page). */
  readonly page: string;
  readonly changes: readonly { readonly change: StoredChange; readonly site: FeedSite }[];
  readonly now: Date;
}): string {
  const root = feed.base.replace(/\/+$/, '');
  const updated = feed.changes[0]?.change.at ?? feed.now;
  const entries = feed.changes.map(({ change, site }) => {
    const { title, text } = entryText(change, site);
    const link = `${root}/sites/${site.id}/diff?to=${change.snapshotId}`;
    return `  <entry>
    <id>${escape(`${root}/sites/${site.id}/snapshots/${change.snapshotId}`)}</id>
    <title>${escape(title)}</title>
    <link rel="alternate" type="text/html" href="${escape(link)}"/>
    <updated>${change.at.toISOString()}</updated>
    <author><name>${escape(site.name ?? site.origin)}</name></author>
    <content type="text">${escape(text)}</content>
  </entry>`;
  });
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <id>${escape(root + feed.self)}</id>
  <title>${escape(feed.title)}</title>
  <link rel="self" type="application/atom+xml" href="${escape(root + feed.self)}"/>
  <link rel="alternate" type="text/html" href="${escape(root + feed.page)}"/>
  <updated>${updated.toISOString()}</updated>
  <generator>robowatch</generator>
${entries.join('\n')}
</feed>
`;
}
