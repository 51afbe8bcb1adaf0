/**
 * The libraries behind the platform main.ts builds (database, job engine, HTTP client
 * and server, SMTP, logger): loaded only by the commands that use them, so that
 * `robowatch eval` and `--version` start without them.
 */
export { serve } from '@hono/node-server';
export { default as nodemailer } from 'nodemailer';
export { Agent } from 'undici';
export { createRobotsFetcher } from './fetch/robots-fetcher.js';
export { createLogger } from './lib/logger.js';
export { openDatabase } from './store/db.js';
export { JobEngine } from './store/jobs.js';
