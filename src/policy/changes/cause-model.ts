/**
 * The causes of a change (DESIGN.md: "cause") as values: what each kind says, how
 * severe it is, and which alert topics it falls under. Pure. causesOfChange (causes.ts)
 * builds them; explain.ts words them.
 */
import type { RegistryCause } from '../registry-update.js';
import type {
  AgentRules,
  Directive,
  Profile,
  RobotsGroup,
  RobotsRule,
} from '../../robots/index.js';
import type { FetchOutcome } from '../access.js';
import type { PrefixCount, RuleCount } from '../coverage.js';
import type { CoverageChange } from '../coverage-change.js';
import { CHANGE_EVENT_TYPES } from './events.js';
import type { FetchStatus } from './events.js';
import type { BodyCut } from '../fetch-result.js';
import type { FileCondition } from '../file-condition.js';
import type { ParseCache, RecordedVerdicts, WatchVerdict } from '../verdicts.js';

/** One (watched URL, crawler) pair that a cause changed. */
export interface PairChange {
  readonly url: string;
  readonly agent: string;
  /** The verdict now. */
  readonly allowed: boolean;
  /**
   * True when the verdict flipped between the two states (a change event). False for a
   * pair that did not flip but differs from the last file read before an outage: the
   * outage hid the change, which shows now that the file is read again.
   */
  readonly flipped: boolean;
}

/** A group of a robots.txt, as a reader finds it: its user-agent lines and where it starts. */
export interface GroupLabel {
  /** Its user-agent values as written ("*", "Googlebot"). */
  readonly agents: readonly string[];
  /** The line of its first user-agent line. */
  readonly line: number;
}

/** A rule as written. */
export interface RuleText {
  readonly directive: Directive;
  readonly pattern: string;
  readonly line: number;
}

/** Which groups a crawler reads: its own, the `*` group(s), or none (everything allowed). */
export type Reading = 'own' | 'star' | 'none';

/** A line with another key (crawl-delay, host, content-signal, …). */
export interface DirectiveLine {
  readonly key: string;
  readonly value: string;
  readonly line: number;
}

/** robots.txt answers something else: a status, an error, or a redirect loop. */
export interface StatusCause {
  readonly type: 'fetch_status';
  readonly before: FetchStatus;
  readonly after: FetchStatus;
  /** The site's profile, which says what the status means. */
  readonly profile: Profile;
  /** Whether crawlers do anything different: false for 404 → 410 or 500 → 503. */
  readonly effectChanged: boolean;
  /**
   * On a return to ok: when the incident began (ISO 8601; the first state that was not ok
   * after one that was); null when unknown, or when the site was never ok before. Causes
   * are stored and sent as JSON, so their instants are strings.
   */
  readonly incidentSince: string | null;
  /** The Disallow rules of the last good file (what a 404 sets aside). */
  readonly disallowRules: number;
  /** On a return to ok: what the answer is (an HTML page is not robots.txt). */
  readonly file: FileCondition | null;
  readonly pairs: readonly PairChange[];
}

/**
 * robots.txt is answered from another place: it starts or stops redirecting to another
 * host or path, or redirects somewhere else. Crawlers follow up to five redirects and read
 * the file they end on as the site's; what that file says is its own cause.
 */
export interface SourceCause {
  readonly type: 'source';
  /** The URL it was answered from (without its query); null: its own. */
  readonly before: string | null;
  readonly after: string | null;
  /** None: what crawlers may do follows from the file, not from where it is. */
  readonly pairs: readonly PairChange[];
}

/** Unreachable for 30 days: Google (and RFC 9309) use the last good copy (or stop). */
export interface StaleCause {
  readonly type: 'stale';
  /** True: the 30 days are up now; false: it is no longer unreachable-and-stale. */
  readonly started: boolean;
  readonly pairs: readonly PairChange[];
}

/**
 * robowatch did not fetch the site's robots.txt: its own guard refused the address the
 * host resolves to (private or reserved), unless fetch.allowPrivateAddresses allows it.
 * Not the site's doing and not a state of the site: nothing is said of crawlers.
 */
export interface RefusedCause {
  readonly type: 'refused';
  /** The URL refused: the site's robots.txt, or a redirect's target. */
  readonly url: string;
  /** Whether the site's robots.txt redirected there first. */
  readonly redirected: boolean;
  /** The guard's words: "127.0.0.1 is a private or reserved address". */
  readonly reason: string;
  /** None: no verdict is made of a file not read. */
  readonly pairs: readonly PairChange[];
}

/** The file is not robots.txt any more (HTML, UTF-16, binary), was cut at 500 KiB, or came back. */
export interface FileCause {
  readonly type: 'file_condition';
  /** null: no file was served before. */
  readonly before: FileCondition | null;
  readonly after: FileCondition;
  /** On a return to a robots.txt file: when the run of bad files began (ISO 8601). */
  readonly since: string | null;
  /** What the fetcher dropped past 500 KiB, for `cut`. */
  readonly cut: BodyCut | null;
  /** The Disallow rules of the previous file (what an HTML page sets aside). */
  readonly disallowRules: number;
  /** The rules of the new file (what applies again). */
  readonly rules: number;
  readonly pairs: readonly PairChange[];
}

/** One rule added, removed or edited, in one group, and the pairs it changed. */
export interface RuleCause {
  readonly type: 'rule';
  readonly change: 'added' | 'removed' | 'edited';
  readonly group: GroupLabel;
  /** The rule now (added, edited) or as it was (removed). */
  readonly rule: RuleText;
  /** For an edit: what the line said before. */
  readonly previous: RuleText | null;
  /** The watched crawlers that read the group. */
  readonly readers: readonly string[];
  readonly pairs: readonly PairChange[];
}

/** The rule changes of one group that change no watched pair, summed up. */
export interface RulesCause {
  readonly type: 'rules';
  readonly group: GroupLabel;
  readonly added: number;
  readonly removed: number;
  readonly edited: number;
  /** The first few changes of each kind (added, edited, removed), in file order. */
  readonly sample: readonly {
    readonly change: 'added' | 'removed' | 'edited';
    readonly rule: RuleText;
    readonly previous: RuleText | null;
  }[];
  readonly readers: readonly string[];
  readonly pairs: readonly PairChange[];
}

/**
 * A group added, removed or given other user-agent lines, which changes which group a
 * crawler reads (a new Googlebot group and Googlebot stops reading `*`).
 */
export interface GroupCause {
  readonly type: 'group';
  readonly change: 'added' | 'removed' | 'relabelled';
  /** The group now (added, relabelled) or as it was (removed). */
  readonly group: GroupLabel;
  /** For a relabelled group: its user-agent lines before. */
  readonly previous: GroupLabel | null;
  /** How many rules it has. */
  readonly rules: number;
  /** The watched crawlers that read other groups because of it. */
  readonly moved: readonly {
    readonly agent: string;
    readonly from: Reading;
    readonly to: Reading;
  }[];
  readonly pairs: readonly PairChange[];
}

/** Many groups that no watched crawler reads, added or removed: summed up. */
export interface GroupsCause {
  readonly type: 'groups';
  readonly added: number;
  readonly removed: number;
  readonly relabelled: number;
  readonly sample: readonly {
    readonly change: 'added' | 'removed' | 'relabelled';
    readonly group: GroupLabel;
  }[];
  readonly pairs: readonly PairChange[];
}

export interface SitemapsCause {
  readonly type: 'sitemaps';
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly pairs: readonly PairChange[];
}

/** Lines with other keys (crawl-delay, host, content-signal, …) added or removed. */
export interface DirectivesCause {
  readonly type: 'directives';
  readonly added: readonly DirectiveLine[];
  readonly removed: readonly DirectiveLine[];
  readonly pairs: readonly PairChange[];
}

/**
 * A usage preference (Content-Usage's train-ai or search, Content-Signal's search,
 * ai-input or ai-train) that changed for the crawlers that see it alike, where it
 * applies: the whole site, or under a path.
 */
export interface PreferencesCause {
  readonly type: 'preferences';
  readonly agents: readonly string[];
  readonly source: 'content-usage' | 'content-signal';
  /** `train-ai`, `search`, `ai-input`, `ai-train`. */
  readonly label: string;
  /** y/n (Content-Usage), yes/no (Content-Signal); null: none stated. */
  readonly before: string | null;
  readonly after: string | null;
  /** Where: null for the whole site, else the Content-Usage path it applies under. */
  readonly path: string | null;
  /** The line that states it now (in the old file when it is gone); null if none. */
  readonly line: number | null;
  readonly pairs: readonly PairChange[];
}

/**
 * The site's URL set (from its sitemaps) newly disallowed (or allowed) by a change of the
 * file, for the crawlers that see the same change: how many, mostly where, by which lines.
 */
export interface CoverageCause {
  readonly type: 'coverage';
  /** The crawlers it applies to (each sees this same change). */
  readonly agents: readonly string[];
  /** URLs in the set. */
  readonly urls: number;
  readonly newlyDisallowed: number;
  readonly newlyAllowed: number;
  /** Where the newly disallowed URLs are, most first (a few). */
  readonly prefixes: readonly PrefixCount[];
  /** The lines that now disallow them, most first (a few). */
  readonly rules: readonly RuleCount[];
  /** A few newly disallowed paths. */
  readonly samples: readonly string[];
  /** At or over notify.coverage's thresholds: it alerts (else it is recorded and shown). */
  readonly significant: boolean;
  readonly pairs: readonly PairChange[];
}

/** When a coverage change alerts: at least this many URLs and this share of the set. */
export interface CoverageThresholds {
  readonly minUrls: number;
  /** A share from 0 to 1. */
  readonly minShare: number;
}

export type { RegistryCause };

export type ChangeCause =
  | RefusedCause
  | CoverageCause
  | RegistryCause
  | PreferencesCause
  | StatusCause
  | SourceCause
  | StaleCause
  | FileCause
  | RuleCause
  | RulesCause
  | GroupCause
  | GroupsCause
  | SitemapsCause
  | DirectivesCause;

export type ChangeCauseType = ChangeCause['type'];

/** The last good copy of a site's file as of one state. */
export interface LastGood {
  readonly body: Uint8Array;
  /** The fetcher cut it at 500 KiB. */
  readonly truncated: boolean;
  readonly cut: BodyCut | null;
}

/** One of the two states compared. */
export interface CauseSide<Verdicts extends RecordedVerdicts = readonly WatchVerdict[]> {
  readonly fetch: FetchOutcome;
  readonly stale: boolean;
  /**
   * Where robots.txt was answered from when a redirect took it elsewhere (answeredFrom);
   * null: its own URL. Absent: not known, and not compared.
   */
  readonly answeredFrom?: string | null;
  /** The last good copy up to this state (this state's own body for a 2xx). */
  readonly lastGood: LastGood | null;
  /** Its verdicts, as recorded (the state before: possibly read back compactly). */
  readonly verdicts: Verdicts;
}

export interface ChangeInput {
  /** The site's profile (what its fetch status means). */
  readonly profile: Profile;
  readonly agents: readonly { readonly token: string; readonly profile: Profile }[];
  readonly before: CauseSide<RecordedVerdicts>;
  readonly after: CauseSide;
  /**
   * For recoveries: when the run of states that were not ok (`access`), or whose file was
   * not robots.txt (`file`), began. Unknown: null.
   */
  readonly since?: { readonly access: Date | null; readonly file: Date | null };
  /**
   * How the change moves the site's URL set, per crawler (compareCoverage over the states
   * of coverageQuestion), to say how much of the whole site it blocks.
   */
  readonly coverage?: {
    readonly changes: readonly CoverageChange[];
    readonly thresholds: CoverageThresholds;
  };
  /** The parses and compiled rules of the computation this change is part of, to share. */
  readonly cache?: ParseCache;
  /**
   * The places in `after.verdicts` whose verdict flipped (flippedPlaces), when the
   * computation found them already: only those pairs are looked at, unless a profile's
   * access moved (then every pair is).
   */
  readonly flipped?: readonly number[];
}

/**
 * What alerts can be about: the change event types, and three that only causes know:
 * a file that is not robots.txt or was cut (or is back), other lines of the file, and a
 * status change that crawlers treat alike (404 → 410).
 */
export const ALERT_TOPICS = [
  ...CHANGE_EVENT_TYPES,
  'file_condition_changed',
  'directives_changed',
  'redirect_changed',
  'fetch_status_same_effect',
  'coverage_changed',
  'preferences_changed',
  'registry_changed',
  // Not a kind of change: an incident opening, getting worse or resolving.
  'incidents',
  // Every change that mattered before incidents did: the topics of CHANGED_TOPICS.
  'changed',
] as const;

export type AlertTopic = (typeof ALERT_TOPICS)[number];

/**
 * The topics that alert when the configuration does not say: a site's incidents (it is
 * not as its owner intends), and a change that newly blocks a large share of its sitemaps.
 */
export const DEFAULT_ALERT_TOPICS: readonly AlertTopic[] = ['incidents', 'coverage_changed'];

/** What `changed` stands for: a page newly blocked, robots.txt's status or file changing. */
export const CHANGED_TOPICS: readonly AlertTopic[] = [
  'newly_disallowed',
  'fetch_status_changed',
  'file_condition_changed',
  'coverage_changed',
];

/** The topics a cause falls under: its kind, and the way its pairs flipped. */
export function causeTopics(cause: ChangeCause): AlertTopic[] {
  const topics: AlertTopic[] = [];
  switch (cause.type) {
    case 'fetch_status':
      topics.push(cause.effectChanged ? 'fetch_status_changed' : 'fetch_status_same_effect');
      break;
    case 'stale':
    case 'refused':
      topics.push('fetch_status_changed');
      break;
    case 'file_condition':
      topics.push('file_condition_changed');
      break;
    case 'rule':
    case 'rules':
    case 'group':
    case 'groups':
      topics.push('rules_changed');
      break;
    case 'sitemaps':
      topics.push('sitemaps_changed');
      break;
    case 'directives':
      topics.push('directives_changed');
      break;
    case 'source':
      topics.push('redirect_changed');
      break;
    case 'preferences':
      topics.push('preferences_changed');
      break;
    case 'registry':
      topics.push('registry_changed');
      break;
    case 'coverage':
      // Only a share of the site past the thresholds, newly blocked, alerts.
      if (cause.significant && cause.newlyDisallowed > 0) topics.push('coverage_changed');
      break;
  }
  if (cause.pairs.some((p) => p.flipped && !p.allowed)) topics.push('newly_disallowed');
  if (cause.pairs.some((p) => p.flipped && p.allowed)) topics.push('newly_allowed');
  return topics;
}

/** Whether a cause alerts under a configuration's topics. */
export function causeAlerts(cause: ChangeCause, topics: readonly AlertTopic[]): boolean {
  const changed = topics.includes('changed');
  return causeTopics(cause).some(
    (t) => topics.includes(t) || (changed && CHANGED_TOPICS.includes(t)),
  );
}

/**
 * How bad a cause is, lowest first: robots.txt unreachable (nothing crawled); a file
 * that is not robots.txt or is cut; pages newly blocked; robots.txt gone (everything
 * crawlable); recoveries; pages newly allowed; changes that change no watched page;
 * sitemaps, where robots.txt is answered from, and other lines; a status change with the same effect.
 */
export function causeSeverity(cause: ChangeCause): number {
  const blocks = cause.pairs.some((p) => !p.allowed);
  switch (cause.type) {
    case 'fetch_status':
      if (!cause.effectChanged) return 90;
      if (cause.after.access === 'unreachable') return 0;
      return cause.after.access === 'unavailable' ? 30 : 40;
    case 'stale':
      return 45;
    case 'refused':
      // Nothing is known of the site any more: said first.
      return 5;
    case 'file_condition':
      return cause.after === 'robots' || (cause.after === 'cut' && cause.before === 'cut')
        ? 40
        : 10;
    case 'rule':
    case 'group':
      return blocks ? 20 : cause.pairs.length > 0 ? 50 : 60;
    case 'rules':
    case 'groups':
      return 60;
    case 'sitemaps':
      return 70;
    case 'preferences':
      return 72;
    case 'registry':
      // New crawlers let in against the file's stance matter more than a plain update.
      return cause.purposes.some((p) => p.contradicts) ? 35 : 80;
    case 'directives':
      return 75;
    case 'source':
      return 74;
    case 'coverage':
      return cause.newlyDisallowed > 0 ? (cause.significant ? 25 : 55) : 65;
  }
}

/** Whether a cause is a bad turn (alerts lead with these), not a recovery or a detail. */
export function isProblem(cause: ChangeCause): boolean {
  return causeSeverity(cause) <= 30;
}

/** Most severe first; then the one that changed more pairs; then in file order. */
export function causeOrder(a: ChangeCause, b: ChangeCause): number {
  return (
    causeSeverity(a) - causeSeverity(b) ||
    flippedCount(b) - flippedCount(a) ||
    firstLine(a) - firstLine(b)
  );
}

export function flippedCount(cause: ChangeCause): number {
  return cause.pairs.filter((p) => p.flipped).length;
}

function firstLine(cause: ChangeCause): number {
  if (cause.type === 'rule') return cause.rule.line;
  if (cause.type === 'rules' || cause.type === 'group') return cause.group.line;
  return 0;
}

export function groupLabel(group: RobotsGroup): GroupLabel {
  return { agents: group.agents.map((a) => a.value), line: group.line };
}

export function ruleText(rule: RobotsRule): RuleText {
  return { directive: rule.directive, pattern: rule.pattern, line: rule.line };
}

export function readingOf(source: AgentRules['source']): Reading {
  return source === 'specific' ? 'own' : source === 'global' ? 'star' : 'none';
}

/** Whether two bodies are the same bytes. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
