/**
 * The libraries behind the platform main.ts builds (database, job engine, HTTP client
 * and server, SMTP, logger): loaded only by the commands that use them, so that
 * `robowatch eval` and `--version` start without them. The web server and the job engine
 * are loaded by main.ts when a command listens or starts the engine, and nodemailer when
 * it sends an email (a `check` that queued no alert does none of these).
 */
export { lazyAgent } from './fetch/lazy-agent.js';
export { guardedLookup } from './fetch/public-lookup.js';
export { createRobotsFetcher } from './fetch/robots-fetcher.js';
export { createLogger } from './lib/logger.js';
export { openDatabase } from './store/db.js';
