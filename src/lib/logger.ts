import { pino } from 'pino';

/** Structured logs: a message and fields (site, snapshot, delivery, …). */
export interface Logger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** JSON lines on a stream (stdout for the daemon), ISO times. main.ts creates the one it uses. */
export function createLogger(destination: NodeJS.WritableStream, level = 'info'): Logger {
  return pino(
    { level, timestamp: pino.stdTimeFunctions.isoTime, base: { pid: process.pid } },
    destination,
  );
}

/** A logger that drops everything (tests, one-shot commands). */
export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
