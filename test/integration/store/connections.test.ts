/**
 * The connections robowatch holds on PostgreSQL, as `pg_stat_activity` shows them to the
 * server's operator: a daemon's checks on one connection of their own ("robowatch
 * checks"), everything else on the pool ("robowatch").
 */
import { createServer, connect } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DatabaseError, openDatabase, queryRows } from '../../../src/store/db.js';
import {
  adminQuery,
  createTestDatabase,
  databaseUrl,
  postgresUrl,
  roleConnectionsGone,
} from '../../support/database.js';
import type { TestDatabase } from '../../support/database.js';

describe.runIf(postgresUrl() !== undefined)('the connections on PostgreSQL', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.close();
    database = undefined;
  });

  it("runs the checks' statements on one connection of their own, however many are asked at once", async () => {
    database = await createTestDatabase('postgres');
    const { db, checks } = database.handle;
    expect(checks).toBeDefined();
    // Eight at once, each holding its connection a moment: the pool would spread them.
    const asked = () =>
      queryRows<{ pid: number; name: string }>(
        checks!,
        sql`SELECT pg_backend_pid() AS pid, current_setting('application_name') AS name,
              pg_sleep(0.02)::text`,
      );
    const rows = (await Promise.all(Array.from({ length: 8 }, asked))).flat();
    expect(new Set(rows.map((r) => r.pid)).size).toBe(1);
    expect(rows[0]!.name).toBe('robowatch checks');

    const [other] = await queryRows<{ pid: number; name: string }>(
      db,
      sql`SELECT pg_backend_pid() AS pid, current_setting('application_name') AS name`,
    );
    expect(other!.name).toBe('robowatch');
    expect(other!.pid).not.toBe(rows[0]!.pid);
  });

  it('keeps one database: a state written on the checks connection is read on the pool', async () => {
    database = await createTestDatabase('postgres');
    const { db, checks } = database.handle;
    await queryRows(checks!, sql`INSERT INTO sites (origin) VALUES ('https://one.example')`);
    const [row] = await queryRows<{ origin: string }>(db, sql`SELECT origin FROM sites`);
    expect(row?.origin).toBe('https://one.example');
  });
});

/**
 * A loopback TCP relay to the test server that counts the connections asked through it: how
 * a test sees that robowatch asked again after a refusal.
 */
class CountingRelay {
  asked = 0;
  readonly #sockets = new Set<Socket>();
  readonly #server: Server = createServer((client) => {
    this.asked += 1;
    const target = new URL(postgresUrl()!);
    const server = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, server]) {
      this.#sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.#sockets.delete(socket);
        client.destroy();
        server.destroy();
      });
    }
    client.pipe(server).pipe(client);
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
  }

  /** The URL of database `name` as `role`, through the relay. */
  url(name: string, role: string): string {
    const url = new URL(databaseUrl(name, role));
    url.host = `127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return url.toString();
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}

describe.runIf(postgresUrl() !== undefined)(
  'opening PostgreSQL as a role allowed one connection',
  () => {
    const role = `robowatch_slot_${process.pid}`;
    const relay = new CountingRelay();
    beforeAll(async () => {
      await relay.start();
      await adminQuery(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
      await adminQuery(`CREATE DATABASE ${role} OWNER ${role}`);
    });
    afterAll(async () => {
      await relay.stop();
      await adminQuery(`DROP DATABASE IF EXISTS ${role} WITH (FORCE)`);
      await adminQuery(`DROP ROLE IF EXISTS ${role}`);
    });

    /** The role's one connection, held by another client until it ends it. */
    async function holdTheSlot(): Promise<pg.Client> {
      await roleConnectionsGone(role);
      const holder = new pg.Client({ connectionString: databaseUrl(role, role) });
      holder.on('error', () => undefined); // ended by the test, or by the database's drop
      await holder.connect();
      return holder;
    }

    it('waits for the slot another client holds, and opens once it is let go', async () => {
      const holder = await holdTheSlot();
      let held = true;
      try {
        relay.asked = 0;
        // A generous wait, so that a busy machine cannot make the test's release come late.
        const opening = openDatabase({
          url: relay.url(role, role),
          dataDir: '',
          slotWaitMs: 120_000,
        });
        opening.catch(() => undefined); // awaited below, once the slot is let go
        // Refused at least once, and asked again.
        await vi.waitFor(() => expect(relay.asked).toBeGreaterThanOrEqual(2), {
          timeout: 60_000,
        });
        await holder.end();
        held = false;
        const handle = await opening;
        try {
          const [row] = await queryRows<{ who: string }>(
            handle.db,
            sql`SELECT current_user AS who`,
          );
          expect(row?.who).toBe(role);
        } finally {
          await handle.close();
        }
      } finally {
        if (held) await holder.end();
      }
    });

    it('says the connection limit is held when no slot comes free, and keeps nothing open', async () => {
      const holder = await holdTheSlot();
      try {
        relay.asked = 0;
        const opening = openDatabase({ url: relay.url(role, role), dataDir: '', slotWaitMs: 300 });
        await expect(opening).rejects.toThrow(DatabaseError);
        await expect(opening).rejects.toThrow(
          /^cannot connect to the database at postgres:\/\/.*: too many connections for role "robowatch_slot_\d+" \(still refused after 0\.3 s: every connection the role, the database or the server allows is held, by another robowatch process or another client\)$/,
        );
        expect(relay.asked).toBeGreaterThanOrEqual(2);
        // The holder's connection is the role's only one: robowatch left none behind.
        const { rows } = await holder.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = current_user',
        );
        expect(rows[0]!.n).toBe(1);
      } finally {
        await holder.end();
      }
    });
  },
);
