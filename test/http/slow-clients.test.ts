import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import type { Route } from '../../adapters/http/index.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

/** Takes a body of any size, answers with its length; optionally thinks a while after reading it. */
const sizeRoute: Route = {
  id: 'slowClientsSize',
  method: 'POST',
  path: '/v1/test/body-size',
  tag: 'Test',
  writes: false,
  summary: 'body size',
  access: { kind: 'public' },
  body: { type: 'object', properties: { pad: { type: 'string' }, think_ms: { type: 'integer' } } },
  responses: { 200: { description: 'size' } },
  handle: async (i) => {
    const b = i.body as { pad?: string; think_ms?: number };
    if (b.think_ms) await new Promise((r) => setTimeout(r, b.think_ms));
    return { status: 200, body: { length: b.pad?.length ?? 0 } };
  },
};

interface Raw {
  readonly socket: Socket;
  /** Everything the server sent, once it closed the connection. */
  readonly closed: Promise<string>;
}

const open = (api: TestApi): Raw => {
  const url = new URL(api.base);
  const socket = connect(Number(url.port), url.hostname);
  let got = '';
  socket.on('data', (d) => (got += d.toString('utf8')));
  const closed = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(got));
    socket.on('error', () => undefined);
  });
  return { socket, closed };
};

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
const jsonOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Slow clients are bound (the API and the console are one server): headers must arrive in time, and a
 * body that goes silent for HTTP_BODY_IDLE_SECONDS ends the request, instead of Node's 300 s. Bounds of
 * 1 s here; without them these requests would be held for minutes and the tests time out.
 */
eachStore('Slow clients: header time and body idle time are bound, a flowing upload is not', (kind) => {
  let api: TestApi;
  before(async () => {
    api = await startApi(kind, {
      env: { HTTP_BODY_IDLE_SECONDS: '1', HTTP_HEADERS_TIMEOUT_SECONDS: '1', MAX_BODY_BYTES: String(4 * 1024 * 1024) },
      extraRoutes: [sizeRoute],
    });
  });
  after(async () => api.close());

  it('API: headers, then a body that stalls → 408 request_timeout in the error shape, connection closed', async () => {
    const c = open(api);
    c.socket.write(
      'POST /v1/account/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"email":',
    );
    const raw = await c.closed;
    expect(statusOf(raw), raw).to.equal(408);
    const body = jsonOf(raw);
    expect(body.error.code).to.equal('request_timeout');
    expect(body.error.message.en).to.contain('1 s without a byte');
    expect(body.error.message.uk).to.contain('1 с без жодного байта');
  });

  it('console: the sign-in form posted with a body that stalls → 408, connection closed', async () => {
    const c = open(api);
    c.socket.write(
      'POST /console/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 500\r\n\r\nemail=a',
    );
    const raw = await c.closed;
    expect(statusOf(raw), raw).to.equal(408);
    expect(jsonOf(raw).error.code).to.equal('request_timeout');
  });

  it('answered before its body was read (401), a body that stalls is ended too, not kept for keep-alive', async () => {
    const c = open(api);
    c.socket.write('POST /v1/domains HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":');
    const raw = await c.closed;
    expect(statusOf(raw), raw).to.equal(401);
    expect(jsonOf(raw).error.code).to.equal('unauthenticated');
  });

  it('a chunked body that stalls is ended too', async () => {
    const c = open(api);
    c.socket.write(
      'POST /v1/test/body-size HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"pad\r\n',
    );
    const raw = await c.closed;
    expect(statusOf(raw), raw).to.equal(408);
    expect(jsonOf(raw).error.code).to.equal('request_timeout');
  });

  it('headers that never finish: Node answers 408 and closes', async () => {
    const c = open(api);
    c.socket.write('POST /v1/account/sessions HTTP/1.1\r\nHost: x\r\n');
    const raw = await c.closed;
    expect(statusOf(raw), raw).to.equal(408);
  });

  it('a large body that keeps flowing, for several times the bound, is accepted whole', async () => {
    const pad = 'x'.repeat(2 * 1024 * 1024);
    const body = Buffer.from(JSON.stringify({ pad }));
    const c = open(api);
    c.socket.write(
      `POST /v1/test/body-size HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    // About 4 s in all (four times the bound), a piece every 20 ms: never silent for long.
    const pieces = 200;
    const size = Math.ceil(body.length / pieces);
    for (let i = 0; i < pieces; i++) {
      c.socket.write(body.subarray(i * size, (i + 1) * size));
      await sleep(20);
    }
    const raw = await c.closed;
    expect(statusOf(raw), raw.slice(0, 300)).to.equal(200);
    expect(jsonOf(raw)).to.deep.equal({ length: pad.length });
  });

  it('a handler that thinks longer than the bound after reading the body is not cut', async () => {
    const r = await api.call('/v1/test/body-size', { method: 'POST', json: { pad: 'abc', think_ms: 2500 } });
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.equal({ length: 3 });
  });

  it('an idle keep-alive connection between requests is not taken for slow headers', async () => {
    const c = open(api);
    const get = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n';
    c.socket.write(get);
    await sleep(2500);
    c.socket.write(get.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
    const raw = await c.closed;
    expect(raw.match(/HTTP\/1\.1 200 /g) ?? [], raw).to.have.length(2);
  });
});
