import type { FC } from 'hono/jsx';
import type { AgentEntry } from '../../config/schema.js';
import { Layout, Notice, webhookReach } from './components.js';

/** The fields of the add and edit forms, as typed (one watched URL or crawler per line). */
export interface SiteForm {
  readonly url: string;
  readonly name: string;
  readonly tags: string;
  readonly watch: string;
  readonly agents: string;
  readonly profile: string;
  readonly schedule: string;
  /** Where its URL set comes from: empty (the default), auto, off, or sitemap URLs one per line. */
  readonly sitemaps: string;
  /** Its own alert recipients (commas, spaces or lines between). */
  readonly email: string;
  /** Its own webhooks, one per line: "URL" or "URL slack". */
  readonly webhooks: string;
}

export const EMPTY_SITE_FORM: SiteForm = {
  url: '',
  name: '',
  tags: '',
  watch: '',
  agents: '',
  profile: '',
  schedule: '',
  sitemaps: '',
  email: '',
  webhooks: '',
};

/** A webhook as stored or typed (checked when the settings are). */
export interface WebhookSetting {
  readonly url: string;
  readonly format?: string;
  readonly secret?: string;
  readonly routingKey?: string;
  readonly chat?: string | number;
}

/**
 * Webhooks as a form shows them: one per line, the URL, its format unless JSON, and
 * PagerDuty's `routingKey=…` or Telegram's `chat=…`.
 */
export function webhookLines(webhooks: readonly WebhookSetting[]): string {
  return webhooks
    .map((w) =>
      [
        w.url,
        ...(w.format === undefined || w.format === 'json' ? [] : [w.format]),
        ...(w.routingKey === undefined ? [] : [`routingKey=${w.routingKey}`]),
        ...(w.chat === undefined ? [] : [`chat=${String(w.chat)}`]),
      ].join(' '),
    )
    .join('\n');
}

/**
 * A form's webhooks ("URL [format] [routingKey=…|chat=…]" per line); one kept by URL
 * keeps its secret.
 */
export function webhooksOfText(
  text: string,
  previous: readonly WebhookSetting[],
): WebhookSetting[] {
  const secrets = new Map(previous.map((w) => [w.url, w.secret]));
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((line) => {
      const [url, ...rest] = line.split(/\s+/);
      const format = rest.find((t) => !t.includes('='));
      const named = (name: string) =>
        rest.find((t) => t.startsWith(`${name}=`))?.slice(name.length + 1);
      const routingKey = named('routingKey');
      const chat = named('chat');
      const secret = secrets.get(url!);
      return {
        url: url!,
        ...(format === undefined ? {} : { format }),
        ...(routingKey === undefined ? {} : { routingKey }),
        ...(chat === undefined ? {} : { chat }),
        ...(secret === undefined ? {} : { secret }),
      };
    });
}

/** A form's email recipients (commas, semicolons, spaces or lines between). */
export function emailsOfText(text: string): string[] {
  return text.split(/[\s,;]+/).filter((e) => e !== '');
}

/** The webhooks of stored settings (as the API or the form wrote them). */
function webhooksOf(settings: Record<string, unknown> | null): WebhookSetting[] {
  const notify = settings?.['notify'] as { webhooks?: WebhookSetting[] } | undefined;
  return Array.isArray(notify?.webhooks) ? notify.webhooks : [];
}

/** An agent entry as the form writes it: "GPTBot", "@ai" or "Slurp legacy". */
export function agentText(entry: AgentEntry): string {
  if (typeof entry === 'string') return entry;
  return entry.profile === undefined ? entry.token : `${entry.token} ${entry.profile}`;
}

/** A site's stored settings as the form shows them. */
export function formOf(origin: string, settings: Record<string, unknown>): SiteForm {
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
  return {
    url: origin,
    name: typeof settings['name'] === 'string' ? settings['name'] : '',
    tags: list(settings['tags']).join(', '),
    watch: settings['watch'] === 'auto' ? 'auto' : list(settings['watch']).join('\n'),
    agents: list(settings['agents'])
      .map((a) => agentText(a as AgentEntry))
      .join('\n'),
    profile: typeof settings['profile'] === 'string' ? settings['profile'] : '',
    schedule: typeof settings['schedule'] === 'string' ? settings['schedule'] : '',
    sitemaps:
      typeof settings['sitemaps'] === 'string'
        ? settings['sitemaps']
        : list(settings['sitemaps']).join('\n'),
    email: list((settings['notify'] as { email?: unknown } | undefined)?.email).join(', '),
    webhooks: webhookLines(webhooksOf(settings)),
  };
}

/**
 * The settings a form says, as the API takes them: with `clear`, an empty field is null
 * (the top-level setting applies again), else it is left out.
 */
export function settingsOf(
  form: SiteForm,
  clear: boolean,
  /** The settings edited: a webhook kept by URL keeps its secret, and alert topics stay. */
  previous: Record<string, unknown> | null = null,
): Record<string, unknown> {
  const lines = (text: string) =>
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '');
  const empty = clear ? null : undefined;
  const tags = form.tags.split(/[\s,]+/).filter((t) => t !== '');
  const agents = lines(form.agents).map((line) => {
    const [token, profile] = line.split(/\s+/);
    return profile === undefined ? token! : { token: token!, profile };
  });
  const out: Record<string, unknown> = {
    name: form.name.trim() === '' ? empty : form.name,
    tags: tags.length === 0 ? empty : tags,
    watch:
      lines(form.watch).length === 0
        ? empty
        : lines(form.watch).join('').toLowerCase() === 'auto'
          ? 'auto'
          : lines(form.watch),
    agents: agents.length === 0 ? empty : agents,
    profile: form.profile === '' ? empty : form.profile,
    schedule: form.schedule.trim() === '' ? empty : form.schedule.trim(),
    sitemaps: sitemapsOf(lines(form.sitemaps)) ?? empty,
    notify: notifyOf(form, previous) ?? empty,
  };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}

/** The sitemaps field as a setting: "auto" or "off" alone, else URLs; undefined when empty. */
function sitemapsOf(lines: readonly string[]): string | string[] | undefined {
  if (lines.length === 0) return undefined;
  const only = lines.length === 1 ? lines[0]!.toLowerCase() : '';
  return only === 'auto' || only === 'off' ? only : [...lines];
}

/** The form's recipients and webhooks as a site's notify settings; undefined when both are empty. */
function notifyOf(
  form: SiteForm,
  previous: Record<string, unknown> | null,
): Record<string, unknown> | undefined {
  const email = emailsOfText(form.email);
  const webhooks = webhooksOfText(form.webhooks, webhooksOf(previous));
  const events = (previous?.['notify'] as { events?: unknown } | undefined)?.events;
  if (email.length === 0 && webhooks.length === 0) return undefined;
  return {
    ...(email.length === 0 ? {} : { email }),
    ...(webhooks.length === 0 ? {} : { webhooks }),
    ...(events === undefined ? {} : { events }),
  };
}

/** The form's labels for the keys a one-line error names. */
const LABELS: [RegExp, string][] = [
  [/^url(?=:)/, 'Site'],
  [/^name(?=:)/, 'Name'],
  [/^tags(\[\d+\])?(?=:)/, 'Tags'],
  [/^watch(\[\d+\])?(?=:)/, 'Watched pages'],
  [/^agents(\[\d+\])?(?=:)/, 'Crawlers'],
  [/^profile(?=:)/, 'Profile'],
  [/^schedule(?=:)/, 'Schedule'],
  [/^sitemaps(\[\d+\])?(?=:)/, 'Sitemaps'],
  [/^notify\.email(\[\d+\])?(?=:)/, 'Alert emails to'],
  [/^notify\.webhooks(\[\d+\])?(\.\w+)?(?=:)/, 'Webhooks'],
];

/** An error as the form says it: "Watched pages: …" rather than "watch[0]: …" (the value is quoted). */
export function formMessage(message: string): string {
  for (const [key, label] of LABELS) if (key.test(message)) return message.replace(key, label);
  return message;
}

export interface SiteFormPageProps {
  /** Adding a new site, or editing site `id`. */
  readonly editing: { readonly id: number; readonly origin: string } | undefined;
  readonly form: SiteForm;
  readonly error: string | undefined;
  /** What a site gets when a field is left empty. */
  readonly defaults: {
    readonly watch: readonly string[] | undefined;
    readonly agents: string;
    readonly schedule: string;
    /** The top-level sitemaps setting, as words. */
    readonly sitemaps: string;
    /** The default recipients and webhooks (webhooks by origin). */
    readonly email: string;
    readonly webhooks: string;
    /** fetch.allowPrivateAddresses: where a webhook added here may be posted. */
    readonly allowPrivate: boolean | 'loopback';
  };
  readonly signedIn: boolean;
}

/** Adding a site, or editing one added in the UI or API. */
export const SiteFormPageView: FC<SiteFormPageProps> = ({
  editing,
  form,
  error,
  defaults,
  signedIn,
}) => {
  const title = editing === undefined ? 'Add a site' : `Edit ${editing.origin}`;
  return (
    <Layout title={title} signedIn={signedIn}>
      <h1>{title}</h1>
      {error === undefined ? null : <Notice error>{formMessage(error)}</Notice>}
      <form
        method="post"
        action={editing === undefined ? '/sites/new' : `/sites/${editing.id}/edit`}
        class="site-form"
      >
        {editing === undefined ? (
          <label>
            Site <span class="muted">(an origin: its robots.txt governs it)</span>
            <input
              type="text"
              name="url"
              value={form.url}
              placeholder="https://www.example.com"
              required
              autofocus
            />
          </label>
        ) : null}
        <label>
          Name <span class="muted">(optional: what lists and alerts call it)</span>
          <input type="text" name="name" value={form.name} maxlength={100} />
        </label>
        <label>
          Tags <span class="muted">(optional, separated by commas: shop, eu)</span>
          <input type="text" name="tags" value={form.tags} />
        </label>
        <label>
          Watched pages{' '}
          <span class="muted">
            (one path or URL per line: the pages that matter; or auto: a few of each large section
            of the sitemaps)
          </span>
          <textarea
            name="watch"
            rows={6}
            placeholder={(defaults.watch ?? ['/', '/pricing']).join('\n')}
          >
            {form.watch}
          </textarea>
          <span class="muted">
            {defaults.watch === undefined
              ? 'Required: the configuration has no top-level watch list.'
              : `Empty: the configuration's list (${defaults.watch.join(', ')}).`}
          </span>
        </label>
        <label>
          Crawlers{' '}
          <span class="muted">
            (one per line: a token, a preset such as @ai, optionally a profile: “Slurp legacy”)
          </span>
          <textarea name="agents" rows={4} placeholder={defaults.agents}>
            {form.agents}
          </textarea>
          <span class="muted">Empty: the configuration's crawlers ({defaults.agents}).</span>
        </label>
        <label>
          Profile <span class="muted">(how its robots.txt is read)</span>
          <select name="profile">
            <option value="" selected={form.profile === ''}>
              google (the default)
            </option>
            <option value="rfc9309" selected={form.profile === 'rfc9309'}>
              rfc9309: RFC 9309 as written
            </option>
            <option value="legacy" selected={form.profile === 'legacy'}>
              legacy: the 1996 standard
            </option>
          </select>
        </label>
        <label>
          Schedule <span class="muted">(cron; empty: {defaults.schedule})</span>
          <input
            type="text"
            name="schedule"
            value={form.schedule}
            placeholder={defaults.schedule}
          />
        </label>
        <label>
          Sitemaps{' '}
          <span class="muted">
            (where the URLs for coverage come from: auto, off, or sitemap URLs one per line)
          </span>
          <textarea name="sitemaps" rows={2} placeholder="auto">
            {form.sitemaps}
          </textarea>
          <span class="muted">Empty: the configuration's setting ({defaults.sitemaps}).</span>
        </label>
        <label>
          Alert emails to <span class="muted">(addresses, separated by commas)</span>
          <input type="text" name="email" value={form.email} placeholder={defaults.email} />
          <span class="muted">
            Empty: the configuration's recipients ({defaults.email === '' ? 'none' : defaults.email}
            ).
          </span>
        </label>
        <label>
          Webhooks{' '}
          <span class="muted">
            (one per line: a URL, then its format unless JSON: “slack”, “teams”, “discord”,
            “telegram chat=ID” or “pagerduty routingKey=KEY”)
          </span>
          <textarea name="webhooks" rows={2}>
            {form.webhooks}
          </textarea>
          <span class="muted">
            Empty: the configuration's webhooks (
            {defaults.webhooks === '' ? 'none' : defaults.webhooks}). A webhook's signing secret is
            set through the API. A webhook added here: {webhookReach(defaults.allowPrivate)}.
          </span>
        </label>
        <p>
          <button type="submit">{editing === undefined ? 'Add and check now' : 'Save'}</button>{' '}
          <a href={editing === undefined ? '/' : `/sites/${editing.id}`}>Cancel</a>
        </p>
      </form>
    </Layout>
  );
};

/** Asks before a site is removed (no script: a page of its own). */
export const RemoveSitePageView: FC<{
  readonly id: number;
  readonly origin: string;
  readonly signedIn: boolean;
}> = ({ id, origin, signedIn }) => (
  <Layout title={`Remove ${origin}`} signedIn={signedIn}>
    <h1>Remove {origin}?</h1>
    <p>
      robowatch stops checking it and sending its alerts. Its history stays: its pages keep working,
      and adding the same site again carries it on.
    </p>
    <form method="post" action={`/sites/${id}/remove`}>
      <button type="submit">Remove</button> <a href={`/sites/${id}`}>Cancel</a>
    </form>
  </Layout>
);
