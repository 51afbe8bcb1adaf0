/** What the store keeps of Internet Archive captures (robowatch backfill). */
import type { ChangeCause } from '../policy/changes/cause-model.js';
import type { BodyCut, FetchErrorKind, RedirectHop } from '../policy/fetch-result.js';
import type { FileCondition } from '../policy/file-condition.js';
import type { WatchVerdict } from '../policy/verdicts.js';

/** What an Internet Archive capture said, as robowatch read it (robowatch backfill). */
export interface CaptureFacts {
  /** The archive's capture time, YYYYMMDDhhmmss (UTC). */
  readonly timestamp: string;
  readonly capturedAt: Date;
  readonly originalUrl: string;
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
  readonly errorDetail: string | null;
  readonly redirects: readonly RedirectHop[];
  readonly finalUrl: string;
  readonly truncated: boolean;
}

/** A capture as stored, with its body. */
export interface ArchivedCapture extends CaptureFacts {
  readonly body: Uint8Array | null;
}

/** A capture as read from the archive, to store. */
export interface NewCapture extends CaptureFacts {
  readonly body: { readonly sha256: string; readonly bytes: Uint8Array } | null;
  /** Why it is left out of the history; null: it is part of it. */
  readonly skipped: string | null;
  readonly fetchedAt: Date;
}

/** One archived state: the captures from `firstSeenAt` to `lastSeenAt` that saw it. */
export interface ArchivedState {
  readonly firstSeenAt: Date;
  lastSeenAt: Date;
  captures: number;
  readonly originalUrl: string;
  readonly status: number | null;
  readonly error: FetchErrorKind | null;
  readonly errorDetail: string | null;
  readonly redirects: readonly RedirectHop[];
  readonly finalUrl: string;
  readonly body: { readonly sha256: string; readonly bytes: Uint8Array } | null;
  readonly cut: BodyCut | null;
  readonly stale: boolean;
  /** The state (index in the chain) whose body is the last good copy; null: none yet. */
  readonly lastGood: number | null;
  readonly fileCondition: FileCondition | null;
  readonly verdicts: readonly WatchVerdict[];
  /** Why it differs from the state before (empty for the first). */
  readonly causes: readonly ChangeCause[];
}

/** What a site's archived history holds, for its page and the command's report. */
export interface ArchiveSummary {
  readonly captures: number;
  readonly skipped: number;
  readonly snapshots: number;
  readonly first: Date | null;
  readonly last: Date | null;
}
