import { expect } from 'chai';
import type { HttpSpec } from '../../../core/monitoring/monitor.js';
import { startHttpPeer, type HttpPeer } from '../../../test/monitoring/peers.js';
import { assertPublicUrl, guardedLookup } from '../../net/ssrf/index.js';
import { HttpProbeAdapter } from './index.js';

/** The http probe against a real local server, through the SSRF guard as src/ wires it. */
describe('adapters/monitoring/http: HttpProbeAdapter', () => {
  let peer: HttpPeer;
  before(async () => {
    peer = await startHttpPeer();
  });
  after(async () => peer.close());

  const probe = (allowLoopback: boolean) =>
    new HttpProbeAdapter({
      lookup: guardedLookup({ allowLoopback }) as never,
      assertUrl: (u) => assertPublicUrl(u, { allowLoopback, requireHttps: false }),
    });
  const spec = (path: string, extra: Partial<HttpSpec> = {}): HttpSpec => ({
    kind: 'http',
    url: `http://localhost:${peer.port}${path}`,
    expectedStatus: 200,
    bodyContains: null,
    maxLatencyMs: null,
    ...extra,
  });

  it('up: the status, the body substring and the latency are checked', async () => {
    const r = await probe(true).check(spec('/up', { bodyContains: 'hello', maxLatencyMs: 5000 }), 2000);
    expect(r).to.include({ ok: true, reason: null });
    expect(r.latencyMs).to.be.a('number').and.be.below(5000);
    expect(r.detail).to.include({ status: 200 });
  });

  it('a 500, a wrong body, a slow answer, a timeout; a redirect is the answer, not followed', async () => {
    expect((await probe(true).check(spec('/fail'), 2000)).reason).to.equal('status 500, expected 200');
    expect((await probe(true).check(spec('/wrong', { bodyContains: 'hello' }), 2000)).reason).to.equal('the body does not contain "hello"');
    peer.slowMs = 300;
    expect((await probe(true).check(spec('/slow', { maxLatencyMs: 100 }), 2000)).reason).to.match(/^answered in \d+ ms, over 100 ms$/);
    const t = await probe(true).check(spec('/slower'), 500);
    expect(t).to.include({ ok: false, reason: 'no complete answer within 500 ms' });
    const redirect = await probe(true).check(spec('/redirect'), 2000);
    expect(redirect.reason).to.equal('status 302, expected 200');
    expect(redirect.detail).to.include({ location: 'http://127.0.0.1:1/' });
    expect((await probe(true).check(spec('/redirect', { expectedStatus: 302 }), 2000)).ok).to.equal(true);
  });

  it('live guard: loopback refused before connecting (literal) and at connect time (a name resolving to 127.0.0.1)', async () => {
    const before = peer.hits.get('/up') ?? 0;
    const literal = await probe(false).check({ ...spec('/up'), url: `http://127.0.0.1:${peer.port}/up` }, 2000);
    expect(literal.ok).to.equal(false);
    expect(literal.reason).to.match(/^target refused: /);
    // localhost passes assertPublicUrl only with allowLoopback; use a name that looks public but resolves to loopback.
    const named = await new HttpProbeAdapter({
      lookup: guardedLookup({ allowLoopback: false }, (_h, _o, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }])) as never,
      assertUrl: (u) => assertPublicUrl(u, { allowLoopback: false, requireHttps: false }),
    }).check({ ...spec('/up'), url: `http://app.example.com:${peer.port}/up` }, 2000);
    expect(named.ok).to.equal(false);
    expect(named.reason).to.match(/^target refused: app\.example\.com resolves to 127\.0\.0\.1/);
    expect(peer.hits.get('/up') ?? 0).to.equal(before);
  });
});
