import { WEBHOOK_FORMATS } from '../policy/alerts.js';
import { CronExpressionParser } from 'cron-parser';
import cron from 'node-cron';
import { z } from 'zod';
import { ALERT_TOPICS, DEFAULT_ALERT_TOPICS } from '../policy/changes/cause-model.js';
import { MAX_INTENT_ENTRIES } from '../policy/intent.js';
import { PROFILES } from '../robots/index.js';
import { DEFAULT_AGENTS, isBuiltInPreset } from './agents.js';
import { grouped } from '../policy/wording/words.js';

/** The largest rank a site imported from a popularity list may have. */
export const MAX_RANK = 100_000_000;

const profile = z.enum(PROFILES as readonly ['google', 'rfc9309', 'legacy'], {
  error: `must be one of ${PROFILES.join(', ')}`,
});

const productToken = z
  .string()
  .regex(/^(?:[A-Za-z_-]+|\*)$/, 'must be a crawler product token (letters, "-", "_") or "*"');

/** A preset's name: "@" and lower-case letters, digits or "-" ("@shop-bots"). */
export const PRESET_NAME = /^@[a-z0-9][a-z0-9-]{0,39}$/;
/** Crawlers in one preset. */
export const MAX_PRESET_AGENTS = 500;

/**
 * An agent entry: a token, a preset ("@search", "@ai", or one of the configuration's or
 * the UI's), or {token, profile}. Which presets exist is checked when the list resolves.
 */
const agentEntry = z.union(
  [z.string(), z.strictObject({ token: productToken, profile: profile.optional() })],
  { error: 'must be a crawler token, a preset or {token, profile}' },
);

const agentList = z.array(agentEntry).min(1, 'must name at least one agent');

/** A preset's crawlers: product tokens, without "*" (a preset names crawlers). */
export const presetAgents = z
  .array(
    z
      .string({ error: 'must be a crawler product token' })
      .regex(/^[A-Za-z_-]+$/, 'must be a crawler product token (letters, "-", "_")'),
    { error: 'must be a list of crawler product tokens' },
  )
  .min(1, 'must name at least one crawler')
  .max(MAX_PRESET_AGENTS, `must name at most ${MAX_PRESET_AGENTS} crawlers`);

/** A preset made in the UI or API. */
export const presetSchema = z.strictObject({ agents: presetAgents });

/** The file's own presets: `"@shop-bots": [Googlebot, Bingbot]`. */
const presetMap = z.record(
  z
    .string()
    .regex(PRESET_NAME, 'must be a preset name: "@" then lower-case letters, digits or "-"')
    .refine((name) => !isBuiltInPreset(name), {
      error: 'is a built-in preset: choose another name',
    }),
  presetAgents,
);

/** Valid for node-cron, which fires it, and for cron-parser, which computes its periods. */
function isCronExpression(value: string): boolean {
  if (!cron.validate(value)) return false;
  try {
    CronExpressionParser.parse(value);
    return true;
  } catch {
    return false;
  }
}

const cronExpression = z
  .string({ error: 'must be a cron expression such as "0 3 * * *"' })
  .refine(isCronExpression, {
    error: 'is not a valid cron expression ([second] minute hour day-of-month month day-of-week)',
  });

/** The most often a site added in the UI or API may be checked (the file may ask for more). */
export const MIN_CHECK_INTERVAL_MS = 5 * 60_000;

/**
 * Why a schedule fires too often for a site added in the UI or API, or undefined: the
 * shortest gap among its next fires (from a fixed day, so the answer does not change).
 */
export function frequentScheduleProblem(expression: string): string | undefined {
  const fires = CronExpressionParser.parse(expression, {
    currentDate: new Date('2026-01-01T00:00:00Z'),
    tz: 'UTC',
  });
  let previous = fires.next().toDate().getTime();
  let shortest = Infinity;
  for (let i = 0; i < 100 && shortest >= MIN_CHECK_INTERVAL_MS; i++) {
    const next = fires.next().toDate().getTime();
    shortest = Math.min(shortest, next - previous);
    previous = next;
  }
  if (shortest >= MIN_CHECK_INTERVAL_MS) return undefined;
  const every = shortest < 60_000 ? `${shortest / 1000} s` : `${shortest / 60_000} min`;
  return `must leave at least ${MIN_CHECK_INTERVAL_MS / 60_000} minutes between checks ("${expression}" checks again after ${every}); a faster schedule belongs in the configuration file`;
}

/** Which changes alert: the change event types, and the topics only causes know. */
const eventTypes = z
  .array(z.enum(ALERT_TOPICS, { error: `must be one of ${ALERT_TOPICS.join(', ')}` }))
  .min(1, 'must name at least one kind of change');

/** An address (`local@domain`): no space, control character or separator a header reads. */
const ADDRESS = String.raw`[^\s\x00-\x1f\x7f@<>,;]+@[^\s\x00-\x1f\x7f@<>,;]+`;

const emailAddress = z.string().regex(new RegExp(`^${ADDRESS}$`), 'must be an email address');

/** The sender: an address, or a name with it (`Robowatch <alerts@example.com>`), on one line. */
const senderAddress = z
  .string({ error: 'must be the sender address' })
  .regex(
    new RegExp(String.raw`^(?:[^\x00-\x1f\x7f<>@]*<${ADDRESS}>|${ADDRESS})$`),
    'must be an email address such as robowatch@example.com, or "Robowatch <robowatch@example.com>"',
  );

const webhook = z.strictObject({
  url: z.string({ error: 'must be an http(s) URL' }),
  /** Signs each delivery (HMAC-SHA256); from the environment with ${NAME}. */
  secret: z.string().min(1, 'must not be empty').optional(),
  format: z
    .enum(WEBHOOK_FORMATS, { error: `must be one of ${WEBHOOK_FORMATS.join(', ')}` })
    .default('json'),
  /** PagerDuty: the Events API v2 integration's routing key; from the environment with ${NAME}. */
  routingKey: z.string().min(1, 'must not be empty').optional(),
  /** Telegram: the chat to post in (its id, or @channelname). */
  chat: z
    .union([z.string().regex(/\S/, 'must not be empty or blank'), z.number().int()], {
      error: 'must be the chat’s id or @channelname',
    })
    .optional(),
});

/**
 * Recipients of one list (a site's, or the defaults): an alert is one email to all of them
 * and one POST per webhook, so a longer list is a mailing list's or a relay's job.
 */
export const MAX_RECIPIENTS = 100;

const emailList = z
  .array(emailAddress, { error: 'must be a list of email addresses' })
  .max(
    MAX_RECIPIENTS,
    `must list at most ${MAX_RECIPIENTS} addresses (send to a mailing list for more)`,
  );

const webhookList = z
  .array(webhook, { error: 'must be a list of webhooks {url, secret?, format?}' })
  .max(MAX_RECIPIENTS, `must list at most ${MAX_RECIPIENTS} webhooks`);

/** Default recipients and webhooks made in the UI or API (added to the file's). */
export const channelSettings = z.strictObject({
  email: emailList.default([]),
  webhooks: webhookList.default([]),
});

/** Who a site's alerts go to; each list replaces the global one when given. */
const siteNotify = z.strictObject({
  email: emailList.optional(),
  webhooks: webhookList.optional(),
  events: eventTypes.optional(),
});

/** Watched URLs of one site: a site's key pages, not its sitemap. */
export const MAX_WATCHES_PER_SITE = 1000;

const watchList = z
  .array(z.string({ error: 'must be a path or an absolute URL' }), {
    error: 'must be auto or a list of paths or URLs',
  })
  .min(1, 'must list at least one URL to watch')
  .max(MAX_WATCHES_PER_SITE, `must list at most ${grouped(MAX_WATCHES_PER_SITE)} URLs`);

/**
 * Watched URLs: a list, or `auto` (the home page and a few URLs of each large path prefix
 * of the site's sitemaps, chosen at each check).
 */
const watchSetting = z.union(
  [z.literal('auto', { error: 'must be auto or a list of paths or URLs' }), watchList],
  {
    error: 'must be auto or a list of paths or URLs',
  },
);

/** What people call a site in lists and alerts (its origin when it has none). */
export const MAX_SITE_NAME = 100;
/** Tags group sites on the overview: "shop", "eu", "team-seo". */
export const MAX_TAGS = 20;
const TAG = /^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,39}$/u;

const siteName = z
  .string({ error: 'must be text' })
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_SITE_NAME, `must be at most ${MAX_SITE_NAME} characters`)
  .refine((s) => ![...s].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f), {
    error: 'must not contain control characters',
  });

const tagList = z
  .array(
    z
      .string({ error: 'must be a tag' })
      .regex(TAG, 'must be a tag of letters, digits, "-", "_" or "." (at most 40)'),
  )
  .max(MAX_TAGS, `must list at most ${MAX_TAGS} tags`);

/**
 * Where a site's URL set comes from: `auto` (its robots.txt's Sitemap: lines, else
 * /sitemap.xml), `off`, or the sitemaps' URLs.
 */
const sitemapSetting = z.union(
  [
    z.enum(['auto', 'off'], { error: 'must be auto, off or a list of sitemap URLs' }),
    z
      .array(z.string({ error: 'must be a sitemap URL' }), {
        error: 'must be auto, off or a list of sitemap URLs',
      })
      .min(1, 'must list at least one sitemap (or say off)')
      .max(100, 'must list at most 100 sitemaps (an index lists more)'),
  ],
  { error: 'must be auto, off or a list of sitemap URLs' },
);

/**
 * What the owner intends of a site: `{watch, agents, expect}` entries (policy/intent.ts),
 * the last matching entry deciding each watched (URL, crawler) cell.
 */
const intentEntry = z.strictObject({
  watch: z
    .string({ error: 'must be a watched path or URL, or a path prefix ending in "*"' })
    .min(1, 'must be a watched path or URL, or a path prefix ending in "*"')
    .max(2000, 'must be at most 2,000 characters'),
  agents: z
    .array(
      z
        .string({ error: 'must be a crawler token or a preset' })
        .regex(
          /^(?:[A-Za-z_-]+|\*|@[a-z0-9][a-z0-9:._-]{0,99})$/,
          'must be a crawler product token (letters, "-", "_"), "*" or a preset ("@search")',
        ),
      { error: 'must be a list of crawler tokens or presets' },
    )
    .min(1, 'must name at least one crawler or preset')
    .max(MAX_PRESET_AGENTS, `must name at most ${MAX_PRESET_AGENTS} crawlers`),
  expect: z.enum(['allowed', 'disallowed'], { error: 'must be allowed or disallowed' }),
});

export const intentList = z
  .array(intentEntry, { error: 'must be a list of {watch, agents, expect}' })
  .max(MAX_INTENT_ENTRIES, `must list at most ${grouped(MAX_INTENT_ENTRIES)} entries`);

/** A site's own settings, as the file and the API write them (the API without url). */
export const siteSettings = z.strictObject({
  name: siteName.optional(),
  tags: tagList.optional(),
  /** Its own watched URLs (or auto); without them, the top-level list. */
  watch: watchSetting.optional(),
  agents: agentList.optional(),
  profile: profile.optional(),
  schedule: cronExpression.optional(),
  notify: siteNotify.optional(),
  /** Its URL set's sitemaps; without it, the top-level setting. */
  sitemaps: sitemapSetting.optional(),
  /** Its rank in a popularity list it was imported from (Tranco), to weigh trends by. */
  rank: integer(1, MAX_RANK).optional(),
});

export const siteSchema = siteSettings.extend({
  url: z.string({ error: 'must be the site origin, e.g. https://example.com' }),
  /** What the owner intends (the file's sites only: the UI and API set it apart). */
  intent: intentList.optional(),
});

const schedule = z.strictObject({
  /** When sites are checked: once per period between fires, spread over the period. */
  check: cronExpression.default('0 3 * * *'),
  /** When the weekly digest is sent. */
  digest: cronExpression.default('0 8 * * 1'),
  timezone: z
    .string()
    .refine(isTimeZone, { error: 'must be an IANA time zone such as Europe/Paris or UTC' })
    .default('UTC'),
  /**
   * How long a check, a notification or a digest may run before it is given up and
   * retried: a crashed process's work is taken over by another within this long.
   */
  leaseMs: integer(1_000, 3_600_000, ' (milliseconds)').default(300_000),
  /** How long finished jobs are kept (days); sent notifications: notify.alertLogDays. */
  retentionDays: integer(1, 3650, ' (days)').default(7),
  /** How long the audit log keeps who changed what (days; never less than retentionDays). */
  auditDays: integer(1, 36_500, ' (days)').default(90),
});

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `off` (null) or a duration as `duration` reads it, within `range`. */
function offOrDuration(min: number, max: number, range: string) {
  const message = `must be off or a duration such as "4h" or "1d" (${range})`;
  return z
    .string({ error: message })
    .regex(/^(?:off|\d{1,6}[smhd])$/, message)
    .transform((text) =>
      text === 'off' ? null : Number(text.slice(0, -1)) * DURATION_UNITS[text.slice(-1)]!,
    )
    .refine((ms) => ms === null || (ms >= min && ms <= max), { error: message });
}

/** "90s", "30m", "1h", "2d": a duration, as milliseconds. */
function duration(min: number, max: number) {
  const message = `must be a duration such as "30m", "1h" or "2d" (from ${min / 1000} s to ${max / 86_400_000} days)`;
  return z
    .string({ error: message })
    .regex(/^\d{1,6}(?:s|m|h|d)$/, message)
    .transform((text) => Number(text.slice(0, -1)) * DURATION_UNITS[text.slice(-1)]!)
    .refine((ms) => ms >= min && ms <= max, { error: message });
}

const notify = z.strictObject({
  /** Which change events alert; the rest are recorded and shown, not sent. */
  events: eventTypes.default([...DEFAULT_ALERT_TOPICS]),
  email: z
    .strictObject({
      /** smtp(s)://user:password@host:port; from the environment with ${NAME}. */
      smtp: z.string({ error: 'must be an smtp:// or smtps:// URL' }),
      from: senderAddress,
      to: emailList.default([]),
    })
    .optional(),
  webhooks: webhookList.default([]),
  retry: z
    .strictObject({
      baseDelayMs: integer(1_000, 3_600_000, ' (milliseconds)').default(30_000),
      maxDelayMs: integer(1_000, 86_400_000, ' (milliseconds)').default(3_600_000),
    })
    .default({ baseDelayMs: 30_000, maxDelayMs: 3_600_000 }),
  /** /healthz turns unhealthy when a notification has been failing for longer than this. */
  unhealthyAfterMs: integer(1_000, 30 * 86_400_000, ' (milliseconds)').default(3_600_000),
  /** How long the alert log keeps notifications once sent (days). */
  alertLogDays: integer(1, 3650, ' (days)').default(90),
  /** A relapse within this long of an incident's resolution reopens the same incident. */
  flapWindow: duration(0, 7 * 86_400_000).default(3_600_000),
  /**
   * Reminds the recipients of an open incident nobody has acknowledged, this long after
   * its last notification, again and again until it is acknowledged or resolves; off by default.
   */
  remind: offOrDuration(60_000, 30 * 86_400_000, 'from 1 minute to 30 days').default(null),
  /**
   * A change that newly blocks part of a site's URL set (its sitemaps) alerts when it
   * blocks at least minUrls URLs and at least minShare of the set.
   */
  coverage: z
    .strictObject({
      minUrls: integer(1, 100_000_000).default(10),
      minShare: z
        .number({ error: 'must be a share from 0 to 1 (0.01 is 1%)' })
        .min(0, 'must be a share from 0 to 1 (0.01 is 1%)')
        .max(1, 'must be a share from 0 to 1 (0.01 is 1%)')
        .default(0.01),
    })
    .default({ minUrls: 10, minShare: 0.01 }),
});

/** A whole number in [min, max], with a message that says so. */
function integer(min: number, max: number, unit = '') {
  const message = `must be a whole number from ${min} to ${max}${unit}`;
  return z.number({ error: message }).int(message).min(min, message).max(max, message);
}

const fetchSettings = z.strictObject({
  userAgent: z.string().min(1, 'must not be empty').optional(),
  timeoutMs: integer(100, 600_000, ' (milliseconds)').default(30_000),
  allowPrivateAddresses: z
    .union([z.boolean(), z.literal('loopback')], { error: 'must be true, false or loopback' })
    .default(false),
  confirmRetries: integer(0, 10).default(2),
  confirmDelayMs: integer(0, 600_000, ' (milliseconds)').default(5_000),
  concurrency: integer(1, 1_000).default(16),
  /** A site's URL set is cut at this many URLs (the rest are counted). */
  sitemapMaxUrls: integer(1, 1_000_000).default(100_000),
  /** One deadline for reading all of a site's sitemaps. */
  sitemapTimeoutMs: integer(1_000, 3_600_000, ' (milliseconds)').default(120_000),
});

const groupList = z
  .array(z.string({ error: 'must be a group name' }).min(1, 'must not be empty').max(200), {
    error: 'must be a list of group names',
  })
  .max(100, 'must list at most 100 groups')
  .default([]);

/**
 * Single sign-on with OpenID Connect (authorization code with PKCE): the provider, this
 * client's registration there, and which of the provider's groups give which role.
 */
const ssoSettings = z
  .strictObject({
    /** The provider's issuer URL (its discovery document is ISSUER/.well-known/openid-configuration). */
    issuer: z
      .string({ error: 'must be the https URL of the OpenID provider' })
      .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
        error: 'must be the https URL of the OpenID provider (its issuer)',
      }),
    clientId: z.string({ error: 'must be the client id robowatch has at the provider' }).min(1),
    /** From the environment with ${NAME}; absent: a public client (PKCE alone). */
    clientSecret: z.string().optional(),
    /** The sign-in button's words: "Sign in with …". */
    label: z.string().min(1).max(60).default('single sign-on'),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope'))
      .max(20)
      .default(['openid', 'profile', 'email']),
    /** The claim that names the person in robowatch (then email, then the subject). */
    nameClaim: z.string().min(1).default('preferred_username'),
    /** The claim that lists the person's groups (from the ID token or the userinfo). */
    groupsClaim: z.string().min(1).default('groups'),
    roles: z
      .strictObject({ admin: groupList, editor: groupList, viewer: groupList })
      .default({ admin: [], editor: [], viewer: [] }),
    /** Per group, the tags of the sites its members see. */
    tags: z.record(z.string().min(1).max(200), tagList).default({}),
  })
  .refine((s) => s.roles.admin.length + s.roles.editor.length + s.roles.viewer.length > 0, {
    error: 'give at least one group a role (admin, editor or viewer; "*": anyone)',
    path: ['roles'],
  });

const webSettings = z.strictObject({
  /** HOST:PORT (or PORT, on 127.0.0.1) the web UI and API listen on. */
  listen: z
    .union([z.string(), z.number()], { error: 'must be HOST:PORT or a port' })
    .default('127.0.0.1:8080'),
  /** When set, every request needs it (Authorization: Bearer); from the environment with ${NAME}. */
  token: z.string().optional(),
  /**
   * The address people reach the web UI at (https://robowatch.example.com), for the links
   * in alerts and digests; without it, links point to web.listen.
   */
  publicUrl: z.string().optional(),
  /**
   * Behind a reverse proxy: take the client's address (for the sign-in throttle and the
   * audit log) from the last X-Forwarded-For entry the proxy adds.
   */
  trustProxy: z.boolean({ error: 'must be true or false' }).default(false),
  sso: ssoSettings.optional(),
});

/**
 * Where the AI crawler registry is refreshed from (a JSON document of the ai.robots.txt
 * format), and when; without it the shipped copy (registry/) is used.
 */
const registrySettings = z.strictObject({
  url: z
    .string({ error: 'must be the http(s) URL of a registry in the ai.robots.txt format' })
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
      error: 'must be the http(s) URL of a registry in the ai.robots.txt format',
    }),
  refresh: cronExpression.default('0 4 * * *'),
});

/** The Internet Archive robowatch backfill reads history from, and how gently. */
const archiveSettings = z.strictObject({
  url: z
    .string({ error: 'must be the http(s) URL of a Wayback Machine (CDX server and /web/)' })
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
      error: 'must be the http(s) URL of a Wayback Machine (CDX server and /web/)',
    })
    .default('https://web.archive.org'),
  requestsPerMinute: z
    .number({ error: 'must be a number of requests a minute (0: no limit)' })
    .int({ error: 'must be a whole number of requests a minute (0: no limit)' })
    .min(0, { error: 'must be 0 (no limit) or more requests a minute' })
    .max(6000, { error: 'must be at most 6000 requests a minute' })
    .default(24),
});

/** Backfilling the history of sites as they are added. */
const backfillSettings = z.strictObject({
  onAdd: z.boolean({ error: 'must be true or false' }).default(false),
});

/** The configuration file as written (before presets and URLs are resolved). */
export const configFileSchema = z.strictObject({
  dataDir: z.string().min(1).default('./data'),
  agents: agentList.default([...DEFAULT_AGENTS]),
  /** Named crawler lists the agent lists can use, besides the built-in ones. */
  presets: presetMap.default({}),
  /** Refreshing the AI crawler registry the @ai presets are made from. */
  registry: registrySettings.optional(),
  /** The Internet Archive (robowatch backfill, Load history). */
  archive: archiveSettings.default(archiveSettings.parse({})),
  /** Loading each new site's archived history when it is added. */
  backfill: backfillSettings.default(backfillSettings.parse({})),
  /** Paths watched on every site that lists none of its own. */
  watch: watchSetting.optional(),
  /** What the owner intends of every site without an intent of its own. */
  intent: intentList.optional(),
  /** The sitemaps of every site that says nothing of its own (its robots.txt's, by default). */
  sitemaps: sitemapSetting.default('auto'),
  sites: z.array(siteSchema).default([]),
  fetch: fetchSettings.default(fetchSettings.parse({})),
  schedule: schedule.default(schedule.parse({})),
  notify: notify.default(notify.parse({})),
  web: webSettings.default(webSettings.parse({})),
});

/**
 * The keys each mapping of the file may have, by its path without list indexes
 * ("sites.notify"), for "did you mean" in errors; `site.*` is a site sent to the API.
 */
export const KNOWN_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': Object.keys(configFileSchema.shape),
  sites: Object.keys(siteSchema.shape),
  'sites.notify': Object.keys(siteNotify.shape),
  'sites.notify.webhooks': Object.keys(webhook.shape),
  schedule: Object.keys(schedule.shape),
  notify: Object.keys(notify.shape),
  'notify.email': Object.keys(notify.shape.email.unwrap().shape),
  'notify.webhooks': Object.keys(webhook.shape),
  'notify.retry': Object.keys(notify.shape.retry.unwrap().shape),
  'notify.coverage': Object.keys(notify.shape.coverage.unwrap().shape),
  fetch: Object.keys(fetchSettings.shape),
  web: Object.keys(webSettings.shape),
  'web.sso': Object.keys(ssoSettings.shape),
  'web.sso.roles': ['admin', 'editor', 'viewer'],
  registry: Object.keys(registrySettings.shape),
  archive: Object.keys(archiveSettings.shape),
  backfill: Object.keys(backfillSettings.shape),
  site: Object.keys(siteSchema.shape),
  'site.notify': Object.keys(siteNotify.shape),
  'site.notify.webhooks': Object.keys(webhook.shape),
  preset: ['agents'],
  intent: Object.keys(intentEntry.shape),
  'sites.intent': Object.keys(intentEntry.shape),
  channels: ['email', 'webhooks'],
  'channels.webhooks': Object.keys(webhook.shape),
};

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export type ConfigFile = z.infer<typeof configFileSchema>;
export type WebhookEntry = z.infer<typeof webhook>;
export type AgentEntry = z.infer<typeof agentEntry>;
export type SiteSettings = z.infer<typeof siteSettings>;
export type SiteEntry = z.infer<typeof siteSchema>;
export type ChannelSettings = z.infer<typeof channelSettings>;
