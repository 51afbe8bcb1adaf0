import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A loopback HTTP server whose answers a test sets per path; records every request. */
export class FixtureServer {
  readonly routes = new Map<string, Handler>();
  readonly requests: { path: string; headers: IncomingMessage['headers'] }[] = [];
  #server: Server | undefined;
  #sockets = new Set<Socket>();
  /** TCP connections accepted, requests or not. */
  connections = 0;
  origin = '';

  /** Starts listening on `host` (127.0.0.1 by default) and a free port. */
  async start(host = '127.0.0.1'): Promise<this> {
    this.#server = createServer((req, res) => {
      this.requests.push({ path: req.url ?? '', headers: req.headers });
      const handler = this.routes.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (handler) handler(req, res);
      else {
        res.statusCode = 404;
        res.end('not found');
      }
    });
    this.#server.on('connection', (socket) => {
      this.connections++;
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, host, resolve));
    const { port } = this.#server.address() as AddressInfo;
    this.origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    return this;
  }

  /** Serves `body` at `path` with `status` and headers. */
  serve(
    path: string,
    status: number,
    body: string | Uint8Array = '',
    headers: Record<string, string> = {},
  ): void {
    this.routes.set(path, (_req, res) => {
      res.writeHead(status, { 'content-type': 'text/plain', ...headers });
      res.end(body);
    });
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) =>
      this.#server ? this.#server.close(() => resolve()) : resolve(),
    );
  }
}
