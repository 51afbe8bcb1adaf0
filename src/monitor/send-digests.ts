import type { Config } from '../config/config.js';
import { buildDigest } from '../policy/digest.js';
import type { Digest, DigestPeriod } from '../policy/digest.js';
import type { DigestRecord, SitePeriod, StoredSite } from './records.js';

export interface DigestDeps {
  syncSites(origins: readonly string[]): Promise<StoredSite[]>;
  loadSitePeriods(
    siteIds: readonly number[],
    start: Date,
    end: Date,
  ): Promise<Map<number, SitePeriod>>;
  /** Records a digest and queues its email; null if that recipient's period was sent already. */
  recordDigest(record: DigestRecord, now: Date): Promise<number | null>;
  renderDigest(digest: Digest): { subject: string; text: string; html: string };
  now(): Date;
}

export interface PreparedDigest {
  readonly recipient: string;
  readonly digest: Digest;
  readonly rendered: { subject: string; text: string; html: string };
  /** The recorded digest's id; null when not recorded, or recorded before (never sent twice). */
  readonly id: number | null;
}

/**
 * Builds the digests of a period: one per email recipient, covering the sites whose
 * alerts that recipient receives. With `record`, each is recorded and its email queued,
 * unless that recipient's digest of the same period was recorded already.
 */
export async function prepareDigests(
  deps: DigestDeps,
  config: Pick<Config, 'sites'>,
  period: DigestPeriod,
  options: { readonly record: boolean; readonly recipient?: string },
): Promise<PreparedDigest[]> {
  const recipients = [...new Set(config.sites.flatMap((s) => s.alerts.email))]
    .filter((r) => options.recipient === undefined || r === options.recipient)
    .sort();
  if (recipients.length === 0) return [];
  const ids = new Map(
    (await deps.syncSites(config.sites.map((s) => s.origin))).map((s) => [s.origin, s.id]),
  );
  const periods = await deps.loadSitePeriods([...ids.values()], period.start, period.end);
  const prepared: PreparedDigest[] = [];
  for (const recipient of recipients) {
    const inputs = config.sites
      .filter((site) => site.alerts.email.includes(recipient))
      .map((site) => {
        const data = periods.get(ids.get(site.origin)!);
        return {
          origin: site.origin,
          profile: site.profile,
          agents: site.agents,
          events: data?.events ?? [],
          checks: data?.checks ?? [],
          verdicts: data?.verdicts ?? [],
          body: data?.body ?? null,
        };
      });
    const digest = buildDigest(recipient, period, inputs);
    const rendered = deps.renderDigest(digest);
    const id = options.record
      ? await deps.recordDigest(
          { recipient, periodStart: period.start, periodEnd: period.end, ...rendered },
          deps.now(),
        )
      : null;
    prepared.push({ recipient, digest, rendered, id });
  }
  return prepared;
}
