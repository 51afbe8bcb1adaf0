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

  /** A free port to listen on later (to test a server that is down, then up: refused). */
  async reservePort(): Promise<number> {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    this.port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return this.port;
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
    await new Promise<void>((resolve) => this.#server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.#server.server.address() as AddressInfo).port;
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
