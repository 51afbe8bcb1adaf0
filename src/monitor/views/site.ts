import type { CoveragePoint } from '../records.js';
import type { SiteConfig } from '../../config/config.js';
import { viewCoverage } from './coverage.js';
import type { CoverageDocumentValue } from '../documents/index.js';
import type { Access } from '../../policy/access.js';
import type { ChangeCause, ChangeCauseType } from '../../policy/changes/cause-model.js';
import { sitemapsOf } from '../../policy/changes/events.js';
import { timelineSegments } from '../../policy/history.js';
import type { TimelineSegment } from '../../policy/history.js';
import { ParseCache, siteAccess } from '../../policy/verdicts.js';
import type { WatchVerdict } from '../../policy/verdicts.js';
import { siteCondition } from '../../policy/site-condition.js';
import type { SiteCondition } from '../../policy/site-condition.js';
import { compareSnapshots } from '../check/compare.js';
import { nextCheckAt } from '../../policy/periods.js';
import { preferencesOf } from '../../policy/preferences.js';
import type { PreferencesDocument } from '../../policy/preferences.js';
import type { ReadStore } from '../ports.js';
import { expectationOf, pathOf } from '../../policy/intent.js';
import type { Expectation } from '../../policy/intent.js';
import type { SiteIntent } from '../../config/config.js';
import type { Profile } from '../../robots/index.js';
import type { IncidentRecord, StoredJudgement } from '../records.js';
import type { SnapshotSummary, StoredChange } from '../records.js';

/** A site as the web shows it: its configuration, or what the store knows of it. */
export interface SiteRef {
  readonly id: number;
  readonly origin: string;
  /** Undefined for a site no longer in the configuration (its history remains). */
  readonly config: SiteConfig | undefined;
  /**
   * Its profile where its configuration is not at hand but the profile is known (a command
   * reading a site added in the web UI through the daemon that holds the database).
   */
  readonly profile?: Profile;
}

export const profileOf = (site: SiteRef) => site.config?.profile ?? site.profile ?? 'google';

/** The current verdicts as a matrix: one row per watched URL, one cell per agent. */
export interface VerdictMatrix {
  readonly agents: readonly string[];
  readonly rows: readonly { url: string; cells: readonly (WatchVerdict | undefined)[] }[];
  /**
   * Set when columns were folded: each column's crawlers (its heading's first), crawlers
   * with the same verdicts for the same reasons sharing one.
   */
  readonly members?: readonly (readonly string[])[];
}

/** Past this many crawlers, those alike share a column (the default watches 45; @ai is 160). */
export const MATRIX_FOLD_OVER = 12;

/**
 * Folds a wide matrix: crawlers whose every cell has the same verdict, cause and usage
 * preferences share a column (most `@ai` crawlers read `*` like any unnamed crawler).
 */
export function foldMatrix(
  matrix: VerdictMatrix,
  usage: ReadonlyMap<string, unknown>,
  expected: (url: string, agent: string) => Expectation | null = () => null,
): VerdictMatrix {
  if (matrix.agents.length <= MATRIX_FOLD_OVER) return matrix;
  const columns = new Map<string, number>();
  const members: string[][] = [];
  const kept: number[] = [];
  matrix.agents.forEach((agent, i) => {
    const key = JSON.stringify(
      matrix.rows.map((r) => {
        const cell = r.cells[i];
        return cell === undefined
          ? null
          : [
              cell.allowed,
              cell.cause,
              usage.get(`${r.url}\n${agent}`) ?? null,
              expected(r.url, agent),
            ];
      }),
    );
    const at = columns.get(key);
    if (at === undefined) {
      columns.set(key, members.length);
      members.push([agent]);
      kept.push(i);
    } else members[at]!.push(agent);
  });
  return {
    agents: kept.map((i) => matrix.agents[i]!),
    rows: matrix.rows.map((r) => ({ url: r.url, cells: kept.map((i) => r.cells[i]) })),
    members,
  };
}

/** Kinds of change a reader filters the change list by, and the causes of each. */
export const CHANGE_KINDS = {
  status: ['fetch_status', 'stale', 'source'],
  file: ['file_condition'],
  rules: ['rule', 'rules', 'group', 'groups', 'coverage'],
  other: ['sitemaps', 'directives', 'preferences'],
} as const satisfies Record<string, readonly ChangeCauseType[]>;

export type ChangeKind = keyof typeof CHANGE_KINDS;

export function isChangeKind(value: string): value is ChangeKind {
  return Object.hasOwn(CHANGE_KINDS, value);
}

/** A new state of the site, with why it differs from the one before. */
export interface ChangeEntry {
  readonly at: Date;
  /** Between two Internet Archive captures: the capture time, never alerted. */
  readonly archived?: boolean;
  readonly snapshotId: number;
  readonly previousId: number | null;
  readonly causes: readonly ChangeCause[];
}

export interface SiteView {
  readonly site: SiteRef;
  readonly current: (SnapshotSummary & { access: Access }) | undefined;
  /** Where the site stands, as crawlers see it. */
  readonly condition: SiteCondition;
  readonly segments: readonly TimelineSegment[];
  /** The most recent snapshots, newest first, with their access. */
  readonly snapshots: readonly (SnapshotSummary & { access: Access })[];
  /** A page of changes, newest first. */
  readonly changes: readonly ChangeEntry[];
  /** For paging the changes: the snapshot id to continue before, or null at the end. */
  readonly olderChanges: number | null;
  readonly matrix: VerdictMatrix;
  /** How many crawlers the matrix would show unfiltered. */
  readonly matrixAgents: number;
  /** The usage preferences of each cell ("URL\ncrawler"), when the file states any. */
  readonly matrixUsage: ReadonlyMap<string, PreferencesDocument>;
  readonly sitemaps: readonly string[];
  /** The current snapshot's coverage of the site's sitemaps, when computed. */
  readonly coverage: CoverageDocumentValue | undefined;
  /** Coverage over time, oldest first (for the chart). */
  readonly coverageHistory: readonly CoveragePoint[];
  /** When the site is checked next (its planned run, else its place in the next period). */
  readonly nextCheckAt: Date | null;
  /** robowatch refuses to check it now (its address guard): since when, why; or null. */
  readonly refused: { readonly since: Date; readonly reason: string } | null;
  /** The site against its owner's intent (undefined: no longer watched). */
  readonly intent: IntentView | undefined;
}

/** The site against its intent, as its page shows it. */
export interface IntentView {
  /** As last judged (null: not judged yet). */
  readonly judgement: StoredJudgement | null;
  readonly intent: SiteIntent;
  /** Its open incident, if it has one; else its latest, if any. */
  readonly incident: IncidentRecord | undefined;
  /** What the intent expects of a cell (null: not judged), for the matrix's marks. */
  readonly expected: (url: string, agent: string) => Expectation | null;
}

export interface SiteViewOptions {
  readonly now: Date;
  readonly timezone: string;
  readonly kinds: readonly ChangeKind[];
  readonly changesBefore: number | undefined;
  readonly changesPerPage: number;
  readonly snapshotRows: number;
  /** Show only crawlers whose name contains one of these (case-insensitive). */
  readonly crawlers: readonly string[];
  /** Show only crawlers that may not fetch at least one watched URL. */
  readonly blockingOnly: boolean;
}

/** A site's page: timeline, changes as causes, current verdicts, sitemaps, next check. */
export async function viewSite(
  store: Pick<
    ReadStore,
    | 'listSnapshots'
    | 'countEventsBySnapshot'
    | 'listChanges'
    | 'loadVerdicts'
    | 'loadBody'
    | 'getSnapshot'
    | 'loadIncidentStart'
    | 'loadOverview'
    | 'loadCoverage'
    | 'loadUrlSetById'
    | 'loadCoverageHistory'
    | 'loadJudgement'
    | 'listIncidents'
  >,
  site: SiteRef,
  options: SiteViewOptions,
): Promise<SiteView> {
  const profile = profileOf(site);
  const types = options.kinds.flatMap((k) => CHANGE_KINDS[k]);
  const [snapshots, counts, changes, [overview], judgement, [incident]] = await Promise.all([
    store.listSnapshots(site.id, 100_000),
    store.countEventsBySnapshot(site.id),
    store.listChanges({
      siteId: site.id,
      types,
      ...(options.changesBefore === undefined ? {} : { beforeId: options.changesBefore }),
      limit: options.changesPerPage + 1,
    }),
    store.loadOverview([site.id]),
    store.loadJudgement(site.id),
    store.listIncidents({ siteId: site.id, limit: 1 }),
  ]);
  const intent: IntentView | undefined =
    site.config === undefined
      ? undefined
      : {
          judgement,
          intent: site.config.intent,
          incident,
          expected: (url, agent) => expectationOf(site.config!.intent.rules, pathOf(url), agent),
        };
  const withAccess = snapshots.map((s) => ({
    ...s,
    access: siteAccess({ fetch: s, stale: s.stale }, profile),
  }));
  const current = withAccess[0];
  const verdicts = current ? await store.loadVerdicts(current.id) : [];
  let sitemaps: string[] = [];
  const lastGood = current?.lastGoodId
    ? snapshots.find((s) => s.id === current.lastGoodId)
    : undefined;
  let matrixUsage: ReadonlyMap<string, PreferencesDocument> = new Map();
  if (lastGood?.sha256) {
    const body = await store.loadBody(lastGood.sha256);
    const cache = new ParseCache(); // the file parsed once for both
    sitemaps = sitemapsOf(body, cache);
    // Preferences come with a file read: none while robots.txt is gone or unreachable.
    if (current?.access === 'ok')
      matrixUsage = preferencesOf(
        body,
        verdicts.map((v) => ({ url: v.url, agent: { token: v.agent, profile: v.profile } })),
        cache,
      );
  }
  const page = changes.slice(0, options.changesPerPage);
  const byId = new Map(snapshots.map((s) => [s.id, s]));
  const matrix = verdictMatrix(verdicts, site.config);
  const [coverage, coverageHistory] = current
    ? await Promise.all([viewCoverage(store, current.id), store.loadCoverageHistory(site.id)])
    : [undefined, []];
  return {
    site,
    current,
    condition:
      (overview?.refused ?? null) === null
        ? siteCondition(overview?.current ?? null, profile)
        : 'refused',
    refused: overview?.refused ?? null,
    segments: timelineSegments(snapshots, counts, profile, options.now),
    snapshots: withAccess.slice(0, options.snapshotRows),
    changes: await Promise.all(page.map((c) => explained(store, site, c, byId))),
    olderChanges:
      changes.length > options.changesPerPage ? page[page.length - 1]!.snapshotId : null,
    matrix: foldMatrix(filterMatrix(matrix, options), matrixUsage, intent?.expected),
    intent,
    matrixAgents: matrix.agents.length,
    matrixUsage,
    sitemaps,
    coverage,
    coverageHistory,
    nextCheckAt:
      site.config === undefined
        ? null
        : nextCheckAt(
            site.origin,
            site.config.schedule,
            options.timezone,
            options.now,
            overview?.nextDueAt ?? null,
          ),
  };
}

/**
 * A change with its causes: as recorded, or, for a state recorded before robowatch
 * explained changes, worked out now from the two snapshots.
 */
async function explained(
  store: Pick<ReadStore, 'loadVerdicts' | 'loadBody' | 'getSnapshot' | 'loadIncidentStart'>,
  site: SiteRef,
  change: StoredChange,
  snapshots: ReadonlyMap<number, SnapshotSummary>,
): Promise<ChangeEntry> {
  const entry = {
    at: change.at,
    snapshotId: change.snapshotId,
    previousId: change.previousId,
    archived: change.source === 'archive',
  };
  if (change.causes !== null) return { ...entry, causes: change.causes };
  const from = change.previousId === null ? undefined : snapshots.get(change.previousId);
  const to = snapshots.get(change.snapshotId);
  if (from === undefined || to === undefined) return { ...entry, causes: [] };
  const { causes } = await compareStored(store, site, from, to);
  return { ...entry, causes };
}

/** Two stored snapshots of a site compared, read as the site is configured now. */
export function compareStored(
  store: Pick<ReadStore, 'loadVerdicts' | 'loadBody' | 'getSnapshot' | 'loadIncidentStart'>,
  site: SiteRef,
  from: SnapshotSummary,
  to: SnapshotSummary,
): ReturnType<typeof compareSnapshots> {
  return compareSnapshots(
    {
      getSnapshot: (id) => store.getSnapshot(site.id, id),
      loadVerdicts: (id) => store.loadVerdicts(id),
      loadBody: (sha) => store.loadBody(sha),
      loadIncidentStart: (id) => store.loadIncidentStart(site.id, id),
    },
    {
      origin: site.origin,
      profile: profileOf(site),
      ...(site.config ? { agents: site.config.agents } : {}),
    },
    from,
    to,
  );
}

/** The matrix with only the crawlers asked for: by name, or those that block something. */
export function filterMatrix(
  matrix: VerdictMatrix,
  filter: Pick<SiteViewOptions, 'crawlers' | 'blockingOnly'>,
): VerdictMatrix {
  const needles = filter.crawlers.map((c) => c.toLowerCase()).filter((c) => c !== '');
  const keep = matrix.agents.map((agent, i) => {
    if (needles.length > 0 && !needles.some((n) => agent.toLowerCase().includes(n))) return false;
    return !filter.blockingOnly || matrix.rows.some((r) => r.cells[i]?.allowed === false);
  });
  return {
    agents: matrix.agents.filter((_, i) => keep[i]),
    rows: matrix.rows.map((r) => ({ url: r.url, cells: r.cells.filter((_, i) => keep[i]) })),
  };
}

/** Rows in the configuration's watch order, columns in its agent order (then any others stored). */
export function verdictMatrix(
  verdicts: readonly WatchVerdict[],
  config: SiteConfig | undefined,
): VerdictMatrix {
  const storedAgents = new Set(verdicts.map((v) => v.agent));
  const storedUrls = new Set(verdicts.map((v) => v.url));
  const agents = new Set(
    (config?.agents ?? []).map((a) => a.token).filter((a) => storedAgents.has(a)),
  );
  for (const a of storedAgents) agents.add(a);
  const urls = new Set((config?.watches ?? []).filter((u) => storedUrls.has(u)));
  for (const u of storedUrls) urls.add(u);
  const byKey = new Map(verdicts.map((v) => [`${v.url}\n${v.agent}`, v]));
  const columns = [...agents];
  return {
    agents: columns,
    rows: [...urls].map((url) => ({ url, cells: columns.map((a) => byKey.get(`${url}\n${a}`)) })),
  };
}
