import type { WebhookFormat } from '../../policy/alerts.js';
import { createHash } from 'node:crypto';
import type { Config, SiteConfig } from '../../config/config.js';
import { redactUrl } from '../../lib/redact.js';
import { buildDigest } from '../../policy/digest.js';
import type { Digest, DigestPeriod } from '../../policy/digest.js';
import type { DigestDelivery, RecordedDigest, RegistryFinding, SitePeriod } from '../records.js';

/** A digest as rendered: the email's parts, and the structured form webhooks receive. */
export interface RenderedDigest {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  readonly data: unknown;
}

export interface DigestDeps {
  /**
   * The sites' ids: with `create`, every origin is given its row; without, only read (a
   * preview writes nothing, and a site never checked may have none yet).
   */
  siteIds(
    origins: readonly string[],
    options: { readonly create: boolean },
  ): Promise<{ origin: string; id: number }[]>;
  loadSitePeriods(
    siteIds: readonly number[],
    start: Date,
    end: Date,
  ): Promise<Map<number, SitePeriod>>;
  /** Records a digest and queues its delivery; null if that recipient's period was sent already. */
  recordDigest(record: RecordedDigest, delivery: DigestDelivery, now: Date): Promise<number | null>;
  renderDigest(digest: Digest): RenderedDigest;
  /** What the AI crawler registry's updates in the period meant for the sites. */
  loadRegistryFindings?(
    siteIds: readonly number[],
    start: Date,
    end: Date,
  ): Promise<RegistryFinding[]>;
  now(): Date;
}

/** Who receives a digest: an email address, or a webhook (Slack or JSON). */
export interface DigestTarget {
  /** The recipient as the digest names it: the address, or the webhook without its secret path. */
  readonly recipient: string;
  readonly delivery: DigestDelivery;
  /** Whether a site's alerts go to this target (so its digest covers the site). */
  readonly covers: (site: SiteConfig) => boolean;
}

export interface PreparedDigest {
  readonly recipient: string;
  readonly digest: Digest;
  readonly rendered: RenderedDigest;
  /** The recorded digest's id; null when not recorded, or recorded before (never sent twice). */
  readonly id: number | null;
}

/**
 * Everyone who receives alerts gets the digest of the sites whose alerts they receive:
 * each email recipient, and each webhook (teams that follow robowatch in Slack only).
 * A webhook is named by its URL with its path hidden (Slack's path is its secret) and a
 * short hash, so that two webhooks on one host stay apart.
 */
export function digestTargets(config: Pick<Config, 'sites'>): DigestTarget[] {
  const emails = [...new Set(config.sites.flatMap((s) => s.alerts.email))].sort();
  const hooks = new Map<string, WebhookFormat>();
  for (const site of config.sites)
    for (const hook of site.alerts.webhooks)
      // PagerDuty pages for incidents: it gets no digest.
      if (!hooks.has(hook.url) && hook.format !== 'pagerduty') hooks.set(hook.url, hook.format);
  return [
    ...emails.map((to) => ({
      recipient: to,
      delivery: { channel: 'email' as const, to },
      covers: (site: SiteConfig) => site.alerts.email.includes(to),
    })),
    ...[...hooks].map(([url, format]) => ({
      recipient: `webhook ${redactUrl(url)} #${createHash('sha256').update(url).digest('hex').slice(0, 8)}`,
      delivery: { channel: 'webhook' as const, url, format },
      covers: (site: SiteConfig) => site.alerts.webhooks.some((w) => w.url === url),
    })),
  ];
}

/**
 * Builds the digests of a period: one per recipient (email or webhook), covering the
 * sites whose alerts that recipient receives. With `record`, each is recorded and its
 * delivery queued, unless that recipient's digest of the same period was recorded already.
 */
export async function prepareDigests(
  deps: DigestDeps,
  given: Pick<Config, 'sites' | 'registry'>,
  period: DigestPeriod,
  options: {
    readonly record: boolean;
    readonly recipient?: string;
    /** Only these sites (what a person limited to some tags may read of a digest). */
    readonly only?: (site: SiteConfig) => boolean;
  },
): Promise<PreparedDigest[]> {
  if (options.only !== undefined && options.record)
    throw new Error('a digest of some sites is previewed, never recorded');
  const config =
    options.only === undefined ? given : { ...given, sites: given.sites.filter(options.only) };
  const targets = digestTargets(config).filter(
    (t) => options.recipient === undefined || t.recipient === options.recipient,
  );
  if (targets.length === 0) return [];
  // A preview reads: a site of the file never checked is said so, not given a row.
  const ids = new Map(
    (
      await deps.siteIds(
        config.sites.map((s) => s.origin),
        { create: options.record },
      )
    ).map((s) => [s.origin, s.id]),
  );
  const periods = await deps.loadSitePeriods([...ids.values()], period.start, period.end);
  const findings = new Map<number, RegistryFinding[]>();
  for (const f of (await deps.loadRegistryFindings?.(
    [...ids.values()],
    period.start,
    period.end,
  )) ?? [])
    findings.set(f.siteId, [...(findings.get(f.siteId) ?? []), f]);
  const prepared: PreparedDigest[] = [];
  for (const target of targets) {
    const inputs = config.sites.filter(target.covers).map((site) => {
      const siteId = ids.get(site.origin) ?? null;
      const data = siteId === null ? undefined : periods.get(siteId);
      return {
        siteId,
        origin: site.origin,
        name: site.name,
        profile: site.profile,
        agents: site.agents,
        changes: data?.changes ?? [],
        checks: data?.checks ?? [],
        verdicts: data?.verdicts ?? [],
        body: data?.body ?? null,
        now: data?.now ?? null,
        // Sitemaps off: the coverage stored before is history, not today's standing.
        ...(site.sitemaps === 'off' || data === undefined ? {} : { coverage: data.coverage }),
        registry: (siteId === null ? undefined : findings.get(siteId)) ?? [],
        refused: data?.refused ?? null,
        intent: data?.intent ?? null,
        recovered: data?.recovered ?? [],
      };
    });
    const digest = buildDigest(target.recipient, period, inputs, config.registry.active.registry);
    const rendered = deps.renderDigest(digest);
    const id = options.record
      ? await deps.recordDigest(
          {
            recipient: target.recipient,
            periodStart: period.start,
            periodEnd: period.end,
            ...rendered,
          },
          target.delivery,
          deps.now(),
        )
      : null;
    prepared.push({ recipient: target.recipient, digest, rendered, id });
  }
  return prepared;
}
