/**
 * Users, sessions, keys and the audit log, wired beside compose.ts: loaded by the web app
 * and `robowatch users`, not by a check.
 */
import type { Platform } from './compose.js';
import { Accounts } from './monitor/accounts.js';
import { createAccountStore } from './store/accounts.js';
import type { Database } from './store/db.js';

/** Users, sessions, keys and the audit log, over a database. */
export function wireAccounts(platform: Pick<Platform, 'now'>, db: Database): Accounts {
  return new Accounts(createAccountStore(db), () => platform.now());
}
