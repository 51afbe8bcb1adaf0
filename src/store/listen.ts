/**
 * PostgreSQL's LISTEN on a connection of its own: the site catalogue's changes
 * (migration 0024's `robowatch_catalog`) reach a daemon at their commit instead of at its
 * next upkeep round. The connection is held for the process's life and opened again when
 * lost (a restart of the server, a network cut), from one second apart up to thirty; each
 * time it listens again, `onNotify` is called once with an empty payload, for what was
 * committed while nobody listened. A listener that cannot connect costs nothing but its
 * retries: the upkeep round still reads the catalogue's count every 15 s.
 */
import pg from 'pg';

export interface Listening {
  /** Resolves once the first LISTEN is in place (or the listener is closed first). */
  readonly ready: Promise<void>;
  /** Stops listening and closes its connection. */
  close(): Promise<void>;
}

const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 30_000;

export function listenOn(
  url: string,
  channel: string,
  onNotify: (payload: string) => void,
): Listening {
  let closed = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | undefined;
  let retryMs = FIRST_RETRY_MS;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const connect = async (): Promise<void> => {
    if (closed) return;
    const own = new pg.Client({
      connectionString: url,
      application_name: 'robowatch listen',
      // A dead peer (a cut network, a host gone) is found by the kernel, not never.
      keepAlive: true,
      connectionTimeoutMillis: 10_000,
    });
    client = own;
    let lost = false;
    const again = (): void => {
      if (lost) return;
      lost = true;
      own.removeAllListeners('notification');
      void own.end().catch(() => undefined);
      if (closed) return;
      timer = setTimeout(() => void connect(), retryMs);
      timer.unref(); // the process's own work keeps it alive, not a retry
      retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
    };
    own.on('error', again);
    own.on('end', again);
    own.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    try {
      await own.connect();
      await own.query(`LISTEN ${own.escapeIdentifier(channel)}`);
    } catch {
      again();
      return;
    }
    if (closed || lost) return;
    retryMs = FIRST_RETRY_MS;
    markReady();
    // What was committed before this LISTEN (since the caller's last read, or while the
    // connection was lost) announced nothing to this connection.
    onNotify('');
  };

  void connect();
  return {
    ready,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      markReady();
      await client?.end().catch(() => undefined);
    },
  };
}
