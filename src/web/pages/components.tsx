/**
 * Pieces every page uses. JSX escapes every interpolated string, which is what makes a
 * robots.txt body, a header or a URL inert wherever it appears.
 */
import { raw } from 'hono/html';
import { createContext, useContext } from 'hono/jsx';
import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import type { Access } from '../../policy/access.js';
import { formatDuration } from '../../policy/wording/words.js';
import { formatInstant, formatStatus } from '../../policy/wording/format.js';
import { CONDITION_TEXT, intentText } from '../../policy/site-condition.js';
import type { IntentStanding, SiteCondition } from '../../policy/site-condition.js';
import type { VerdictCause } from '../../policy/verdicts.js';

export const Layout: FC<
  PropsWithChildren<{
    title: string;
    signedIn?: boolean;
    /** The page's Atom feed of changes, if it has one. */
    feed?: string;
  }>
> = (props) => (
  <>
    {raw('<!DOCTYPE html>')}
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · robowatch`}</title>
        <link rel="stylesheet" href="/static/style.css" />
        {props.feed === undefined ? null : (
          <link
            rel="alternate"
            type="application/atom+xml"
            title={`${props.title}: changes`}
            href={props.feed}
          />
        )}
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">
            robowatch
          </a>
          <nav>
            <a href="/">Sites</a>
            <a href="/incidents">Incidents</a>
            <a href="/alerts">Alerts</a>
            <a href="/crawlers">Crawlers</a>
            <a href="/trends">Trends</a>
            <a href="/tester">Tester</a>
            <a href="/digests">Digests</a>
            <a href="/notifications">Notifications</a>
            <a href="/api/v1/sites">API</a>
          </nav>
          {props.signedIn ? <a href="/account">Account</a> : null}
          {props.signedIn ? (
            <form class="inline" method="post" action="/logout">
              <button type="submit">Sign out</button>
            </form>
          ) : null}
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  </>
);

/**
 * When a page is rendered, and in which time zone its times are shown (the configured
 * schedule.timezone): every page's times are local to it, with how long ago.
 */
export interface Clock {
  readonly timeZone: string;
  readonly now: Date;
}
export const ClockContext = createContext<Clock>({ timeZone: 'UTC', now: new Date(0) });

/** "3 h ago", "in 2 days": how far an instant is from now, roughly. */
export function relative(date: Date, now: Date): string {
  const ms = now.getTime() - date.getTime();
  const abs = Math.abs(ms);
  const minutes = Math.round(abs / 60_000);
  let text: string;
  if (minutes < 1) return 'just now';
  if (minutes < 60) text = `${minutes} min`;
  else if (minutes < 48 * 60) text = `${Math.round(minutes / 60)} h`;
  else if (minutes < 60 * 24 * 60) text = `${Math.round(minutes / 1440)} days`;
  else if (minutes < 730 * 24 * 60) text = `${Math.round(minutes / 43_200)} months`;
  else text = `${Math.round(minutes / 525_600)} years`;
  return ms >= 0 ? `${text} ago` : `in ${text}`;
}

/**
 * "2026-03-01 13:00 (Europe/Paris) (3 h ago)", as alerts and digests write times, in a <time> element holding the exact instant, in the
 * time zone of the page's clock; without a clock (now at 0), UTC and no relative time.
 */
export const Time: FC<{ date: Date | null; ago?: boolean }> = ({ date, ago = true }) => {
  const clock = useContext(ClockContext);
  if (date === null) return <span class="muted">–</span>;
  const known = clock.now.getTime() > 0;
  return (
    <time datetime={date.toISOString()} title={date.toISOString()}>
      {formatInstant(date, clock.timeZone)}
      {known && ago ? <span class="muted"> ({relative(date, clock.now)})</span> : null}
    </time>
  );
};

export function day(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export const AccessBadge: FC<{ access: Access | 'none' }> = ({ access }) => (
  <span class={`access access-${access}`} title={CONDITION_TEXT[access].meaning}>
    {access === 'none' ? 'not checked' : access}
  </span>
);

/** Where a site stands, as a badge whose title says what it means for crawlers. */
export const ConditionBadge: FC<{ condition: SiteCondition }> = ({ condition }) => (
  <span class={`access access-${condition}`} title={CONDITION_TEXT[condition].meaning}>
    {CONDITION_TEXT[condition].label}
  </span>
);

/** A site against its owner's intent, in a word or three, with what it means on hover. */
export const IntentBadge: FC<{ intent: IntentStanding | null; href?: string }> = ({
  intent,
  href,
}) => {
  if (intent === null) return <span class="muted">not checked yet</span>;
  const { label, meaning: title } = intentText(intent);
  const badge = (
    <span class={`intent intent-${intent.state}`} title={title}>
      {label}
    </span>
  );
  return href === undefined || intent.state === 'as-intended' ? badge : <a href={href}>{badge}</a>;
};

/**
 * Text in which `code` spans (backticks) are shown as code: rule patterns and group
 * names in causes. Every part stays text: JSX escapes it.
 */
export const Rich: FC<{ text: string }> = ({ text }) => (
  <>{text.split('`').map((part, i) => (i % 2 === 1 ? <code>{part}</code> : part))}</>
);

/** When a site is checked next: "2026-11-24 03:12Z (in 23 h)", or "due now". */
export const NextCheck: FC<{ at: Date; now: Date; checked: boolean }> = ({ at, now, checked }) => {
  const wait = at.getTime() - now.getTime();
  if (wait <= 0)
    return (
      <span title="as soon as a daemon (robowatch start) runs">
        {checked ? 'due now' : 'first check due now'}
      </span>
    );
  return (
    <>
      <Time date={at} ago={false} /> <span class="muted">(in {formatDuration(wait)})</span>
    </>
  );
};

/** A fetch status: access, HTTP status or network error. */
export function statusText(status: {
  access: Access;
  status: number | null;
  error: string | null;
}): string {
  return formatStatus({
    access: status.access,
    ...(status.status === null ? {} : { status: status.status }),
    ...(status.error === null ? {} : { error: status.error }),
  } as Parameters<typeof formatStatus>[0]);
}

/** The rule or access state behind a verdict: "line 14: Disallow: /pr". */
export function causeText(cause: VerdictCause | null): string {
  if (cause === null) return 'no rule applies';
  if (cause.type === 'access')
    return cause.access === 'unreachable'
      ? 'robots.txt is unreachable'
      : 'robots.txt is unavailable';
  return `line ${cause.line}: ${cause.directive === 'allow' ? 'Allow' : 'Disallow'}: ${cause.pattern}`;
}

export const Verdict: FC<{ allowed: boolean }> = ({ allowed }) => (
  <span class={allowed ? 'verdict-allowed' : 'verdict-disallowed'}>
    {allowed ? 'allowed' : 'disallowed'}
  </span>
);

/** Links to older pages of a list: `?before=ID`, kept with the other parameters. */
export const Pager: FC<{ base: string; params: Record<string, string>; before: number | null }> = (
  props,
) => {
  if (props.before === null) return null;
  const query = new URLSearchParams({ ...props.params, before: String(props.before) });
  return (
    <p class="pager">
      <a href={`${props.base}?${query.toString()}`}>Older →</a>
    </p>
  );
};

/** Previous and next links of a numbered list of pages (nothing when there is one page). */
export const PageLinks: FC<{
  page: number;
  pages: number;
  link: (page: number) => string;
  /** Whether to say "Page 2 of 9" between the links. */
  position?: boolean;
}> = ({ page, pages, link, position = false }) =>
  pages > 1 ? (
    <p class="pager">
      {page > 1 ? <a href={link(page - 1)}>← Previous</a> : null}{' '}
      {position ? (
        <>
          Page {page} of {pages}{' '}
        </>
      ) : null}
      {page < pages ? <a href={link(page + 1)}>Next →</a> : null}
    </p>
  ) : null;

/** A site to choose: listed (options), or typed where there are too many (options null). */
export interface SiteChoices {
  readonly options: readonly { readonly id: number; readonly label: string }[] | null;
  /** The chosen site's address, as the box to type in shows it. */
  readonly typed: string;
}

/**
 * A site typed that names none of the watched sites, or several (web/sites.ts's chosen):
 * why, and the sites that may be meant.
 */
export interface SiteRefusal {
  /** The one-line refusal ("site: none of the watched sites is named …"). */
  readonly message: string;
  /** What was typed, as the refusal quotes it. */
  readonly typed: string;
  /** Several sites have the name typed (the candidates); else none has it. */
  readonly named: boolean;
  /** The first of the sites that may be meant, as links or lines show them. */
  readonly candidates: readonly { readonly id: number; readonly label: string }[];
  /** How many more there are than the candidates. */
  readonly more: number;
}

/**
 * A typed site refused, with the sites that may be meant: links to `link.base` that choose
 * one and keep the page's other filters (`link.params`, those set), or lines to type from
 * where a link would lose the form's other fields.
 */
export const SiteRefusalNotice: FC<{
  refusal: SiteRefusal;
  link?: { base: string; params: Record<string, string | undefined> } | undefined;
}> = ({ refusal, link }) => {
  const href = (to: NonNullable<typeof link>, id: number) => {
    const query = new URLSearchParams({ site: String(id) });
    for (const [name, value] of Object.entries(to.params))
      if (value !== undefined) query.set(name, value);
    return `${to.base}?${query.toString()}`;
  };
  return (
    <div class="notice error">
      {refusal.message}
      {refusal.candidates.length === 0 ? (
        refusal.named ? null : (
          <p class="muted">No watched site has “{refusal.typed}” in its name or address either.</p>
        )
      ) : (
        <>
          <p>
            {refusal.named
              ? 'The sites with that name:'
              : `Sites with “${refusal.typed}” in their name or address:`}
          </p>
          <ul class="site-candidates">
            {refusal.candidates.map((s) => (
              <li>{link === undefined ? s.label : <a href={href(link, s.id)}>{s.label}</a>}</li>
            ))}
          </ul>
          {refusal.more === 0 ? null : (
            <p class="muted">
              and {refusal.more.toLocaleString('en')} more
              {refusal.named
                ? ' with that name: type the address of the one you mean.'
                : ': type more of the name or address.'}
            </p>
          )}
        </>
      )}
    </div>
  );
};

/**
 * A site to filter by or to test against: a list of the sites, or, where there are too
 * many to list (web/sites.ts's SITE_LIST_MAX), a box to type one's name or address in.
 * `none`: what choosing no site means.
 */
export const SiteChoice: FC<{
  choices: SiteChoices;
  site: number | undefined;
  none: string;
  label?: string;
}> = ({ choices, site, none, label }) =>
  choices.options === null ? (
    <input
      type="search"
      name="site"
      size={36}
      value={choices.typed}
      placeholder={`a site’s name or address; empty: ${none}`}
      aria-label={label}
    />
  ) : (
    <select name="site" aria-label={label}>
      <option value="" selected={site === undefined}>
        {none}
      </option>
      {choices.options.map((s) => (
        <option value={String(s.id)} selected={s.id === site}>
          {s.label}
        </option>
      ))}
    </select>
  );

export const Notice: FC<{ error?: boolean; children?: Child }> = (props) => (
  <div class={props.error ? 'notice error' : 'notice'}>{props.children}</div>
);

/**
 * Where a webhook added in the UI may be posted, as fetch.allowPrivateAddresses has it (the
 * SSRF guard): said beside the fields that add one, so that a refusal is no surprise.
 */
export function webhookReach(allowPrivate: boolean | 'loopback'): string {
  if (allowPrivate === true)
    return 'it may be posted to any address, this machine and private networks included (fetch.allowPrivateAddresses is on)';
  if (allowPrivate === 'loopback')
    return 'it is posted to public addresses and to this machine only, not to a private network (fetch.allowPrivateAddresses: loopback)';
  return 'it is posted to public addresses only, not to this machine or a private network, unless fetch.allowPrivateAddresses is on';
}
