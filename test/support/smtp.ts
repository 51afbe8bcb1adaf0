import { readFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import PostalMime from 'postal-mime';
import type { Email } from 'postal-mime';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly envelopeTo: string[];
  readonly raw: string;
  readonly parsed: Email;
}

/** A real SMTP server on loopback that keeps and parses every message it accepts. */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = [];
  #server: SMTPServer | undefined;
  #holder: ReturnType<typeof createNetServer> | undefined;
  port = 0;

  /** `maxBytes`: refuse larger messages (552), as real servers do; none by default. */
  constructor(private readonly maxBytes?: number) {}

  /**
   * A free port to listen on later, refused meanwhile (a mail server that is down, then
   * up). It is taken below the kernel's ephemeral range: a port from that range, once let
   * go, can be taken by any outgoing connection another test makes before start() listens
   * on it again, as one was in CI (EADDRINUSE); below it, only a listener asking for it by
   * number can, and none here does.
   */
  async reservePort(): Promise<number> {
    const lowest = 20_000;
    const below = ephemeralRangeStart();
    for (let tries = 0; tries < 100; tries++) {
      const port = lowest + Math.floor(Math.random() * (below - lowest));
      if (await isFree(port)) {
        this.port = port;
        return port;
      }
    }
    throw new Error(`no free port between ${lowest} and ${below} after 100 tries`);
  }

  /**
   * A port to listen on later, held meanwhile by a server that drops every connection (a
   * mail server that is down for long, then up): released only as start() takes it, so
   * that none of the many connections a daemon makes meanwhile (each outgoing one takes
   * an ephemeral port) can take it first, as one did in CI (EADDRINUSE).
   */
  async holdPort(): Promise<number> {
    const holder = createNetServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    this.port = (holder.address() as AddressInfo).port;
    this.#holder = holder;
    return this.port;
  }

  async start(): Promise<this> {
    const holder = this.#holder;
    this.#holder = undefined;
    if (holder !== undefined) await new Promise<void>((resolve) => holder.close(() => resolve()));
    this.#server = new SMTPServer({
      ...(this.maxBytes === undefined ? {} : { size: this.maxBytes }),
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
            const error = new Error('552 too much mail data') as Error & { responseCode: number };
            error.responseCode = 552;
            callback(error);
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          PostalMime.parse(raw).then(
            (parsed) => {
              this.received.push({
                envelopeTo: session.envelope.rcptTo.map((r) => r.address),
                raw,
                parsed,
              });
              callback();
            },
            (error: Error) => callback(error),
          );
        });
      },
    });
    // A port that cannot be had fails the test at once, not after its timeout.
    const server = this.#server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const holder = this.#holder;
    this.#holder = undefined;
    if (holder !== undefined) await new Promise<void>((resolve) => holder.close(() => resolve()));
    if (this.#server === undefined) return;
    await new Promise<void>((resolve) => this.#server!.close(() => resolve()));
    this.#server = undefined;
  }
}

/** Where the kernel starts taking ports for outgoing connections (Linux's default if unread). */
function ephemeralRangeStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/);
    const port = Number(start);
    return Number.isInteger(port) && port > 20_001 ? port : 32_768;
  } catch {
    return 32_768;
  }
}

/** Whether a listener can take this loopback port now. */
async function isFree(port: number): Promise<boolean> {
  const probe = createNetServer();
  const listening = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => resolve(true));
  });
  if (listening) await new Promise<void>((resolve) => probe.close(() => resolve()));
  return listening;
}
