import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Whether X-Robowatch-Signature is the HMAC-SHA256 of the body with the receiver's secret. */
  readonly signatureValid: boolean;
}

/** A loopback webhook receiver: records every POST and checks its signature. */
export class WebhookReceiver {
  readonly received: ReceivedHook[] = [];
  /** The status to answer with (a receiver that is failing answers 500). */
  status = 200;
  /** The body to answer with (what a failing receiver says); none by default. */
  answer = '';
  /** How long it takes to answer (a slow receiver). */
  delayMs = 0;
  /** Requests received and not answered yet. */
  pending = 0;
  #server: Server | undefined;
  url = '';

  constructor(readonly secret: string) {}

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const expected = `sha256=${createHmac('sha256', this.secret).update(body).digest('hex')}`;
        this.received.push({
          path: req.url ?? '',
          headers: req.headers,
          body,
          signatureValid: req.headers['x-robowatch-signature'] === expected,
        });
        this.pending++;
        setTimeout(() => {
          this.pending--;
          res.writeHead(this.status).end(this.answer);
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.#server ? this.#server.close(() => resolve()) : resolve(),
    );
  }
}
