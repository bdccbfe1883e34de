import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type Koa from 'koa';
import { DomainError } from '../../core/kernel/errors.js';
import { errorBody } from './error-table.js';

/**
 * How long a client may take, so a slow one cannot hold a connection (and the request's memory) for
 * Node's default 300 s. The API and the console share this server, so both are bound alike.
 */
export interface ClientTimeouts {
  /** The request line and headers must have arrived within this (Node's headersTimeout; Node answers 408). */
  readonly headersMs: number;
  /** A body with no byte for this long ends the request: 408 request_timeout, connection closed. A body
   * that keeps flowing is never cut by it, however large or long (up to MAX_BODY_BYTES and `requestMs`). */
  readonly bodyIdleMs: number;
  /** The whole request, headers and body, at most this (Node's requestTimeout): the backstop for a
   * body that trickles a byte just often enough. */
  readonly requestMs: number;
}

/** Keep-alive: idle connections outlive a client's or a load balancer's own idle timeout (60 s is
 * common), so it is always the client that closes one — never a reset under a reused request. Node
 * counts headersTimeout from a request's first byte, not over the idle time between requests. */
const KEEP_ALIVE_MS = 65_000;

/** A node:http server for the Koa app with the timeouts above. */
export const httpServer = (app: Koa, t: ClientTimeouts): Server => {
  const server = createServer(
    {
      headersTimeout: t.headersMs,
      requestTimeout: Math.max(t.requestMs, t.headersMs),
      keepAliveTimeout: KEEP_ALIVE_MS,
      // How often Node looks for requests past headersTimeout/requestTimeout (default 30 s, which would
      // let a 30 s bound run to 60 s).
      connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(t.headersMs / 4))),
    },
    app.callback(),
  );
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => watchBody(req, res, t.bodyIdleMs));
  return server;
};

/**
 * While a request's body is still coming, the socket may be silent at most `idleMs`: every byte read
 * starts the wait again. Only requests that carry a body are watched, and only until it has all been
 * read (the routes read it before they do anything slow), so a handler that takes its time is not cut.
 */
const watchBody = (req: IncomingMessage, res: ServerResponse, idleMs: number): void => {
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (!hasBody || req.complete) return;
  const socket = req.socket;
  const arm = () => {
    if (!req.complete && !socket.destroyed) socket.setTimeout(idleMs);
  };
  arm();
  // Read whole: no bound while the handler works; once answered, the connection idles as keep-alive.
  req.once('end', () => {
    if (!socket.destroyed) socket.setTimeout(res.writableFinished ? KEEP_ALIVE_MS : 0);
  });
  // Answered before the body was read (401, 413, 429 …): Node reads the rest to keep the connection and
  // would give it keep-alive's 65 s of silence; the rest of the body gets the same idle bound instead.
  res.once('finish', arm);
  // Node emits 'timeout' on the request it is parsing when the socket went silent.
  req.once('timeout', () => {
    const err = new DomainError('request_timeout', { seconds: Math.ceil(idleMs / 1000) });
    const abort = () => req.destroy(err); // the body reader (if any) ends with this error, not a hang
    if (res.headersSent) return abort();
    const body = JSON.stringify(errorBody(err.code, err.params));
    res.writeHead(408, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    res.end(body, abort);
  });
};
