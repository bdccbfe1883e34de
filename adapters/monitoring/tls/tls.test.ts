import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TlsSpec } from '../../../core/monitoring/monitor.js';
import { startTlsPeer } from '../../../test/monitoring/peers.js';
import { guardedLookup } from '../../net/ssrf/index.js';
import { TlsProbeAdapter } from './index.js';
import { reqArgs } from '../../../test/support/openssl-req.js';

const run = promisify(execFile);
const DAY = 24 * 3600_000;

/** A root and a leaf for tls.example.test made with openssl (the API suite uses our sandbox CA's own issuance). */
const makePki = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tls-probe-'));
  const f = (n: string) => join(dir, n);
  await run(
    'openssl',
    reqArgs({
      x509: true,
      key: 'ec:P-256',
      keyout: f('ca.key'),
      out: f('ca.pem'),
      days: 30,
      extra: ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
      subj: '/CN=Probe Test Root',
    }),
  );
  await run('openssl', reqArgs({ key: 'ec:P-256', keyout: f('leaf.key'), out: f('leaf.csr'), subj: '/CN=tls.example.test' }));
  writeFileSync(f('ext.cnf'), 'subjectAltName=DNS:tls.example.test\nbasicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\n');
  await run('openssl', [
    'x509',
    '-req',
    '-in',
    f('leaf.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-out',
    f('leaf.pem'),
    '-days',
    '20',
    '-extfile',
    f('ext.cnf'),
  ]);
  return { root: readFileSync(f('ca.pem'), 'utf8'), leaf: readFileSync(f('leaf.pem'), 'utf8'), key: readFileSync(f('leaf.key'), 'utf8') };
};

describe('adapters/monitoring/tls: TlsProbeAdapter', () => {
  let pki: Awaited<ReturnType<typeof makePki>>;
  let server: Awaited<ReturnType<typeof startTlsPeer>>;
  before(async () => {
    pki = await makePki();
    server = await startTlsPeer(pki.leaf, pki.key);
  });
  after(async () => server?.close());

  // Every name resolves to 127.0.0.1 here, through the guard as src/ wires it.
  const toLoopback = (_h: string, _o: unknown, cb: (e: null, a: Array<{ address: string; family: number }>) => void) =>
    cb(null, [{ address: '127.0.0.1', family: 4 }]);
  const probe = (trustRoot = true, allowLoopback = true) =>
    new TlsProbeAdapter({
      lookup: guardedLookup({ allowLoopback }, toLoopback) as never,
      ...(trustRoot ? { ca: async () => [pki.root] } : {}),
    });
  const spec = (host = 'tls.example.test', minDaysValid = 7): TlsSpec => ({ kind: 'tls', host, port: server.port, minDaysValid });

  it('a chain to a trusted root, covering the name, with enough days left passes', async () => {
    const r = await probe().check(spec(), new Date(), 2000);
    expect(r.ok, String(r.reason)).to.equal(true);
    expect(r.detail).to.include({ subject: 'tls.example.test', issuer: 'Probe Test Root' });
    expect(r.detail.days_left).to.be.within(18, 20);
  });

  it('fails: fewer days left than asked, expired or not yet valid on the given clock, an untrusted root, another name', async () => {
    expect((await probe().check(spec('tls.example.test', 25), new Date(), 2000)).reason).to.match(
      /^the certificate expires in 1\d days \(fewer than 25\)$/,
    );
    expect((await probe().check(spec(), new Date(Date.now() + 25 * DAY), 2000)).reason).to.match(/is not valid at|expired on/);
    expect((await probe().check(spec(), new Date(Date.now() - 2 * DAY), 2000)).reason).to.match(/not valid/);
    expect((await probe(false).check(spec(), new Date(), 2000)).reason).to.match(/^the chain does not verify: /);
    expect((await probe().check(spec('other.example.test'), new Date(), 2000)).reason).to.match(/does not cover other\.example\.test/);
  });

  it('live guard: a name resolving to loopback is refused at connect time', async () => {
    const r = await probe(true, false).check(spec(), new Date(), 2000);
    expect(r.ok).to.equal(false);
    expect(r.reason).to.match(/^target refused: tls\.example\.test resolves to 127\.0\.0\.1/);
  });
});
