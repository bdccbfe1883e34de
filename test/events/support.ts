import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  at: number;
}

export type Behaviour = (path: string, n: number) => { status: number; body?: string; hold?: boolean; location?: string };

/** A real local webhook receiver: records every request and answers per path. */
export class Receiver {
  readonly received: Received[] = [];
  private server!: Server;
  private counts = new Map<string, number>();
  private held: Array<() => void> = [];
  port = 0;

  constructor(private behaviour: Behaviour = () => ({ status: 200, body: 'ok' })) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const n = (this.counts.get(path) ?? 0) + 1;
        this.counts.set(path, n);
        const b = this.behaviour(path, n);
        const rec: Received = {
          path,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          status: b.status,
          at: Date.now(),
        };
        if (b.hold) {
          rec.status = 0;
          this.received.push(rec);
          this.held.push(() => res.destroy());
          return;
        }
        this.received.push(rec);
        res.writeHead(b.status, { 'content-type': 'text/plain', ...(b.location ? { location: b.location } : {}) });
        res.end(b.body ?? '');
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  setBehaviour(b: Behaviour): void {
    this.behaviour = b;
  }

  async stop(): Promise<void> {
    for (const h of this.held) h();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}
