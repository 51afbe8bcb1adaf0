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

/** The first line of an error's message, for one-line reports. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n', 1)[0]!.trim();
}
