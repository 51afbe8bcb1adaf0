/**
 * Where things are in the web UI, as absolute links for alerts and digests (relative ones
 * when the base is empty, for the pages themselves). Pure.
 */
export interface Links {
  /** The web UI's address, without a trailing slash ('' for relative links). */
  readonly base: string;
  overview(): string;
  site(siteId: number): string;
  /** The diff between two snapshots (the latest change when both are left out). */
  diff(siteId: number, from?: number | null, to?: number): string;
  snapshot(siteId: number, snapshotId: number, line?: number): string;
  verdicts(siteId: number, url: string, agent: string): string;
  /** An incident's page. */
  incident(incidentId: number): string;
}

export function linksFrom(base: string): Links {
  const root = base.replace(/\/+$/, '');
  return {
    base: root,
    overview: () => `${root}/`,
    site: (siteId) => `${root}/sites/${siteId}`,
    diff: (siteId, from, to) => {
      const query = new URLSearchParams();
      if (from !== undefined && from !== null) query.set('from', String(from));
      if (to !== undefined) query.set('to', String(to));
      const q = query.toString();
      return `${root}/sites/${siteId}/diff${q === '' ? '' : `?${q}`}`;
    },
    snapshot: (siteId, snapshotId, line) =>
      `${root}/sites/${siteId}/snapshots/${snapshotId}${line === undefined ? '' : `?line=${line}#L${line}`}`,
    verdicts: (siteId, url, agent) =>
      `${root}/sites/${siteId}/verdicts?${new URLSearchParams({ url, agent }).toString()}`,
    incident: (incidentId) => `${root}/incidents/${incidentId}`,
  };
}
