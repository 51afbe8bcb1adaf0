/**
 * The web UI open to anyone: listening beyond this machine (0.0.0.0) with no web.token,
 * single sign-on or user, anyone who can reach the port reads every site, its history and
 * its alerts. The daemon says so once it listens; on loopback, or once people must sign in,
 * it does not. A real listener on the node platform; requests go to loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/validate.js';
import { startWeb } from '../../../src/compose-web.js';
import { Accounts } from '../../../src/monitor/accounts.js';
import { quietNodeContext } from '../../support/node-context.js';
import { createAccountStore } from '../../../src/store/accounts.js';
import { createTestDatabase } from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

const context = quietNodeContext();
const app = { fetch: () => new Response('robowatch') };

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase('pglite');
});
afterAll(() => database.close());

/** The warnings `robowatch start` logs once it listens as `web` says. */
async function warningsListening(web: string): Promise<string[]> {
  const config = parseConfig(`sites: [{url: https://shop.example, watch: [/]}]\nweb: ${web}\n`, {
    file: 'robowatch.yaml',
    cwd: '/tmp',
    env: {},
    version: 'test',
  });
  const warnings: string[] = [];
  const logger = {
    info: () => undefined,
    warn: (_fields: object, message: string) => warnings.push(message),
    error: () => undefined,
  };
  const listener = await startWeb(context, config, app, logger, database.handle.db);
  try {
    // It answers where it says it listens (asked on loopback, whatever the address).
    const port = new URL(listener.url).port;
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('robowatch');
  } finally {
    await listener.close();
  }
  return warnings;
}

describe('the web UI listening beyond this machine', () => {
  it('warns when anyone who reaches it can read it, and not on loopback or with a token', async () => {
    expect(await warningsListening('{listen: 0.0.0.0:0}')).toEqual([
      'the web UI listens beyond this machine (0.0.0.0) with no web.token, single sign-on or user: anyone who can reach it reads every site, its history, its alerts and where they are sent; set web.token, or add a user with robowatch users add',
    ]);
    expect(await warningsListening('{listen: 127.0.0.1:0}')).toEqual([]);
    expect(
      await warningsListening('{listen: 0.0.0.0:0, token: a-token-of-sixteen-characters}'),
    ).toEqual([]);
  });

  it('does not warn once there is a user to sign in as', async () => {
    const accounts = new Accounts(createAccountStore(database.handle.db), () => new Date());
    await accounts.addUser(
      { name: 'test', userId: null, via: 'cli', address: null },
      { name: 'ada', role: 'admin', password: 'a long enough password' },
    );
    expect(await warningsListening('{listen: 0.0.0.0:0}')).toEqual([]);
  });
});
