import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';

/**
 * A local HTTP peer for the monitoring suites: /up answers 200 "hello monitoring", /fail 500, /slow
 * after `slowMs`, /wrong 200 with another body, /toggle whatever `mode` says, /redirect 302, and
 * /count/<n> counts hits per path (two workers must never run one due check twice).
 */
export interface HttpPeer {
  readonly port: number;
  mode: 'up' | 'down';
  slowMs: number;
  readonly hits: Map<string, number>;
  close(): Promise<void>;
}

export const startHttpPeer = async (): Promise<HttpPeer> => {
  const peer = { mode: 'up', slowMs: 400, hits: new Map<string, number>() } as HttpPeer & { mode: 'up' | 'down'; slowMs: number };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    peer.hits.set(path, (peer.hits.get(path) ?? 0) + 1);
    if (path === '/up' || path.startsWith('/count/') || path.startsWith('/proc/')) return res.end('hello monitoring');
    if (path === '/fail') return res.writeHead(500).end('broken');
    if (path === '/wrong') return res.end('something else entirely');
    if (path === '/slow') return void setTimeout(() => res.end('hello monitoring, slowly'), peer.slowMs);
    if (path === '/slower') return void setTimeout(() => res.end('hello monitoring, too late'), 3000);
    if (path === '/redirect') return res.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
    if (path === '/toggle') return peer.mode === 'up' ? res.end('hello monitoring') : res.writeHead(503).end('down for maintenance');
    res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return Object.assign(peer, {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  });
};

/** A TLS server on 127.0.0.1 presenting `chainPem` (leaf first) with `keyPem`. */
export const startTlsPeer = async (chainPem: string, keyPem: string): Promise<{ port: number; close(): Promise<void> }> => {
  const server: TlsServer = createTlsServer({ cert: chainPem, key: keyPem }, (socket) => socket.end('hello\n'));
  server.on('tlsClientError', () => {});
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((ok) => server.close(() => ok())) };
};
