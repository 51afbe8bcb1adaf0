/**
 * `robowatch users` and `robowatch keys`, as an operator runs them (in the test's process):
 * a user added with a made or piped password and tags, a key printed alone on its last
 * line that signs its user in with its scope, refusals in one line (the accounts' other
 * refusals: test/integration/web/accounts.test.ts), revoking and removing.
 * On PostgreSQL when the tests have it (a fresh database each), else the embedded one.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Accounts } from '../../src/monitor/accounts.js';
import { createAccountStore } from '../../src/store/accounts.js';
import { openDatabase } from '../../src/store/db.js';
import { runInProcess } from '../support/cli.js';
import { createTestDatabase, postgresUrl } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';

let database: TestDatabase | undefined;
let config = '';
let env: Record<string, string> = {};
let dataDir = '';

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'robowatch-users-'));
  dataDir = join(dir, 'data');
  config = join(dir, 'robowatch.yaml');
  writeFileSync(config, `dataDir: ${dataDir}\nsites: []\n`);
  database = postgresUrl() === undefined ? undefined : await createTestDatabase('postgres');
  env = { DATABASE_URL: database?.url ?? '' };
});
afterAll(async () => {
  await database?.close();
});

const robowatch = (args: string[], stdin?: string) =>
  runInProcess([...args, '--config', config], { env, ...(stdin === undefined ? {} : { stdin }) });

/** The accounts, read in this process after each command has closed the database. */
async function withAccounts<T>(use: (accounts: Accounts) => Promise<T>): Promise<T> {
  const handle = await openDatabase({ url: database?.url, dataDir });
  try {
    return await use(new Accounts(createAccountStore(handle.db), () => new Date()));
  } finally {
    await handle.close();
  }
}

describe('robowatch users and keys', () => {
  it('adds users, makes a key that signs its user in with its scope, and revokes and removes', async () => {
    const ana = await robowatch(['users', 'add', 'ana', '--role', 'admin']);
    expect([ana.code, ana.stderr]).toEqual([0, '']);
    const made = /^Their password \(shown once\): (\S{20})$/m.exec(ana.stdout)?.[1];
    expect(made).toBeDefined();

    const sam = await robowatch(
      ['users', 'add', 'sam', '--role', 'viewer', '--password-stdin'],
      'a long enough password\n',
    );
    expect(sam.stdout).toBe('Added sam (viewer).\n');

    const key = await robowatch([
      'keys',
      'create',
      '--user',
      'sam',
      '--scope',
      'read',
      '--name',
      'grafana',
    ]);
    expect(key.code).toBe(0);
    const lines = key.stdout.trimEnd().split('\n');
    const secret = lines.at(-1)!;
    expect(secret).toMatch(/^rwk_[A-Za-z0-9_-]{43}$/);

    const list = await robowatch(['users', 'list']);
    expect(list.stdout).toBe(
      'ana\tadmin\tevery site\tpassword\nsam\tviewer\tevery site\tpassword\n',
    );
    await withAccounts(async (accounts) => {
      expect(await accounts.key(secret, null)).toMatchObject({
        actor: { name: 'sam', via: 'key', keyName: 'grafana' },
        scope: 'read',
        tags: [],
      });
      const signed = await accounts.signIn('ana', made!, { address: '127.0.0.1', userAgent: null });
      expect(signed.user.name).toBe('ana');
      const audit = await accounts.listAudit({ limit: 10 });
      expect(audit.map((e) => e.action)).toEqual(['key.create', 'user.add', 'user.add']);
      expect(audit[0]!.actor).toMatch(/^robowatch \(.+\)$/);
    });

    const exported = await robowatch(['export', '--what', 'audit', '--format', 'jsonl']);
    expect(exported.code, exported.stderr).toBe(0);
    const rows = exported.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; target: string; via: string; after: string });
    expect(rows.map((r) => [r.action, r.target, r.via])).toEqual([
      ['key.create', 'sam: grafana', 'cli'],
      ['user.add', 'sam', 'cli'],
      ['user.add', 'ana', 'cli'],
    ]);
    expect(JSON.parse(rows[0]!.after)).toMatchObject({ scope: 'read' });
    expect(exported.stdout).not.toContain(secret);

    const keys = await robowatch(['keys', 'list']);
    expect(keys.stdout).toMatch(/^1\tsam\tgrafana\tread\trwk_\S{8}…\tno expiry\tlast used /);
    expect((await robowatch(['keys', 'revoke', '1'])).stdout).toBe(
      'Revoked key 1 "grafana" of sam.\n',
    );
    expect((await robowatch(['users', 'remove', 'sam'])).stdout).toBe('Removed sam.\n');
    await withAccounts(async (accounts) => {
      expect(await accounts.key(secret, null)).toBeUndefined();
      expect((await accounts.listUsers()).map((u) => u.name)).toEqual(['ana']);
    });
  });

  it('limits a user to the sites with some tags, and lets them see every site again', async () => {
    const added = await robowatch([
      'users',
      'add',
      'agency',
      '--role',
      'viewer',
      '--tags',
      'client-a, client-b',
      '--no-password',
    ]);
    expect([added.code, added.stdout]).toEqual([
      0,
      'Added agency (viewer, only sites tagged client-a, client-b).\n',
    ]);
    const changed = await robowatch([
      'users',
      'change',
      'agency',
      '--role',
      'editor',
      '--tags',
      'client-b',
    ]);
    expect(changed.stdout).toBe('agency is editor and sees the sites tagged client-b.\n');
    expect((await robowatch(['users', 'list'])).stdout).toContain(
      'agency\teditor\ttags: client-b\t\n',
    );
    const widened = await robowatch(['users', 'change', 'agency', '--every-site']);
    expect(widened.stdout).toBe('agency is editor and sees every site.\n');
  });

  it.each([
    [['users', 'add', 'ana', '--role', 'admin'], 'there is already a user "ana"'],
    [
      ['keys', 'create', '--user', 'ana', '--scope', 'read', '--expires', '0'],
      '--expires must be a number of days',
    ],
    [
      ['users', 'add', 'cy', '--role', 'admin', '--tags', 'client-a'],
      'an admin manages people, keys and recipients of every site and cannot be limited to tags',
    ],
    [['users', 'change', 'ana', '--tags', 'a', '--every-site'], 'give --tags or --every-site'],
    [['users', 'change', 'ana'], 'say what to change: --role, --tags or --every-site'],
    // A name a terminal would act on (ESC recolours it), or one that would be cut short.
    [
      ['keys', 'create', '--user', 'ana', '--scope', 'read', '--name', 'ci \u001b[31mred'],
      `a key's name is at most 100 characters, with no control characters: not "ci \\u001b[31mred"`,
    ],
    [
      ['keys', 'create', '--user', 'ana', '--scope', 'read', '--name', 'k'.repeat(101)],
      `a key's name is at most 100 characters, with no control characters: not "${'k'.repeat(40)}…"`,
    ],
  ])('refuses %j in one line (exit 2)', async (args, message) => {
    const run = await robowatch(args, 'short\n');
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a password piped from a file far larger than one', async () => {
    const run = await robowatch(
      ['users', 'add', 'dan', '--role', 'viewer', '--password-stdin'],
      'x'.repeat(5000),
    );
    expect([run.code, run.stdout, run.stderr]).toEqual([
      2,
      '',
      'robowatch: password standard input is larger than 4,096 bytes: give the password alone, on one line\n',
    ]);
  });
});
