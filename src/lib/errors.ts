/**
 * Errors that end a command. Expected outcomes (a 503, a disallowed URL) are values,
 * not errors; these are for input a person must fix or failures a command cannot
 * survive. Each carries the exit status it maps to and a one-line message.
 */

/** Bad input: an unknown flag, a missing file, a malformed line. Exit status 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
  override readonly name = 'UsageError';
}

/** A failure the command cannot continue after: bad config, database unreachable. Exit status 1. */
export class FatalError extends Error {
  readonly exitCode = 1;
  override readonly name = 'FatalError';
}

/**
 * Another check of a site recorded a new state between a check's read and its write;
 * nothing was recorded. Checking again compares with that state. (The store throws it,
 * the monitor retries: it lives here, where both may import it.)
 */
export class StateMovedError extends Error {
  override readonly name = 'StateMovedError';
  constructor(siteId: number) {
    super(`another check recorded a new state of site ${siteId} meanwhile; not recorded twice`);
  }
}

/**
 * What the web app answers for a path it does not serve (404). A command talking to a
 * daemon of an earlier release tells a request that daemon lacks by this very message.
 * (The web answers it, the CLI reads it: it lives here, where both may import it.)
 */
export function nothingAt(path: string): string {
  return `nothing at ${path}`;
}

/** Why a file could not be read, in words (no errno code, no syscall name). */
export function readProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT'
    ? 'no such file'
    : code === 'EISDIR'
      ? 'it is a directory'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : (error as Error).message;
}

/**
 * An error as one line for people: its own message's first line (cut past `max`
 * characters: a long query) and, when it wraps another error, that one's too, which
 * usually names the cause.
 */
export function oneLine(error: unknown, max = 160): string {
  const first = (e: unknown) =>
    (e instanceof Error ? e.message : String(e)).split('\n', 1)[0]!.trim();
  let message = first(error);
  if (message.length > max) message = `${message.slice(0, max - 3)}...`;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined ? message : `${message} (${first(cause)})`;
}

/**
 * A statement the database refused (PostgreSQL's or PGlite's error, found through the
 * errors that wrap it), as one line for people; undefined for any other error. A user
 * that may only read gets the command that writes named.
 */
export function databaseRefusal(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const { code, severity } = e as { code?: unknown; severity?: unknown };
    if (typeof severity !== 'string' || typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code))
      continue;
    const message = e.message.split('\n', 1)[0]!.trim();
    return code === '42501'
      ? `the database refused a write: ${message} (this command writes; its database user may only read)`
      : `the database refused a statement: ${message} (SQLSTATE ${code})`;
  }
  return undefined;
}

/** The Internet Archive refused too often, failed, or answered what is not a CDX listing. */
export class ArchiveError extends Error {}

/** Single sign-on did not sign someone in: why, in one line for the sign-in page. */
export class SsoFailed extends Error {}
