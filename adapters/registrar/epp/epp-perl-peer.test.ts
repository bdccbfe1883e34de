import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { connect } from 'node:tls';
import { expect } from 'chai';
import { RegistryError } from '../../../core/domains/ports/registrar.port.js';
import { makeEppCerts, type EppCerts } from '../../../test/support/epp-server.js';
import { createEppRegistrar, type EppRegistrar } from './index.js';

/**
 * Our EPP client against a registry that shares no code with it: a Perl peer built on
 * Debian's Net::EPP (Net::EPP::Protocol framing, Net::EPP::Frame responses, XML::LibXML reading) over TLS
 * with client certificates, validating every frame whole — the RFC 8748 fee extension included — with
 * xmllint against test/fixtures/epp/all.xsd. A framing bug that our own test registry cannot see (both
 * ends share client.ts's `frame`/`FrameReader`) fails here: see the last two tests.
 */
const PEER = resolve(import.meta.dirname, '../../../test/fixtures/epp-perl/registry.pl');
const SCHEMA = resolve(import.meta.dirname, '../../../test/fixtures/epp/all.xsd');

interface Peer {
  readonly port: number;
  readonly lines: string[];
  stop(): Promise<void>;
}

const startPeer = async (certs: EppCerts, extra: string[] = []): Promise<Peer> => {
  const child: ChildProcessWithoutNullStreams = spawn(
    'perl',
    [PEER, `--cert=${certs.dir}/server.pem`, `--key=${certs.dir}/server.key`, `--ca=${certs.files.ca}`, `--schema=${SCHEMA}`, ...extra],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const port = await new Promise<number>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the Perl EPP peer did not start: ${stderr}`)), 10_000);
    child.once('exit', (code) => fail(new Error(`the Perl EPP peer exited (${code}): ${stderr}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      const m = /^PORT (\d+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        ok(Number(m[1]));
      }
    });
  });
  return {
    port,
    lines,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
};

const registrarFor = (peer: Peer, certs: EppCerts, extra: { connectAttempts?: number; retries?: number } = {}): EppRegistrar =>
  createEppRegistrar({
    host: '127.0.0.1',
    port: peer.port,
    clientId: 'domivka',
    password: 'epp-test-secret-1',
    cert: certs.clientCert,
    key: certs.clientKey,
    ca: certs.ca,
    poolSize: 1, // the peer serves one session at a time
    greetingTimeoutMs: 3000,
    commandTimeoutMs: 3000,
    backoffMs: 20,
    maxBackoffMs: 100,
    defaultNameservers: ['ns1.domivka.net', 'ns2.domivka.net'],
    ...extra,
  });

/** Waits until the peer has printed a line matching re (its output trails the answers it sends). */
const lineMatching = async (peer: Peer, re: RegExp, ms = 3000): Promise<string> => {
  const until = Date.now() + ms;
  for (;;) {
    const hit = peer.lines.find((l) => re.test(l));
    if (hit) return hit;
    if (Date.now() > until) throw new Error(`the peer never printed ${re}; it printed:\n${peer.lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const utcToday = () => new Date().toISOString().slice(0, 10);
const inYears = (years: number) => `${Number(utcToday().slice(0, 4)) + years}${utcToday().slice(4)}`;

const LOGIN =
  '<?xml version="1.0" encoding="UTF-8"?><epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><login>' +
  '<clID>domivka</clID><pw>epp-test-secret-1</pw><options><version>1.0</version><lang>en</lang></options>' +
  '<svcs><objURI>urn:ietf:params:xml:ns:domain-1.0</objURI></svcs></login><clTRID>raw-1</clTRID></command></epp>';

/**
 * A raw TLS session with hand-made RFC 5734 frames, so that nothing on this side comes from our client's
 * framing code. `exchange(xml, countsItself)` sends one frame (with a wrong prefix when countsItself is
 * false) and reads the next answer.
 */
const rawSession = async (peer: Peer, certs: EppCerts) => {
  const socket = connect({ host: '127.0.0.1', port: peer.port, cert: certs.clientCert, key: certs.clientKey, ca: certs.ca });
  let buf = Buffer.alloc(0);
  const frames: string[] = [];
  let wake: (() => void) | null = null;
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.on('error', () => undefined);
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 4 && buf.length >= buf.readUInt32BE(0)) {
      const total = buf.readUInt32BE(0);
      frames.push(buf.subarray(4, total).toString('utf8'));
      buf = buf.subarray(total);
    }
    wake?.();
  });
  const next = async (): Promise<string> => {
    const until = Date.now() + 5000;
    while (frames.length === 0) {
      if (Date.now() > until) throw new Error('no frame from the peer within 5 s');
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, 100);
      });
    }
    return frames.shift()!;
  };
  await new Promise<void>((r) => socket.once('secureConnect', () => r()));
  expect(await next()).to.match(/<greeting>/);
  return {
    closed,
    async exchange(xml: string, countsItself: boolean): Promise<string> {
      const body = Buffer.from(xml, 'utf8');
      const head = Buffer.alloc(4);
      head.writeUInt32BE(body.length + (countsItself ? 4 : 0), 0);
      socket.write(Buffer.concat([head, body]));
      return next();
    },
    close: () => socket.destroy(),
  };
};

describe('EPP registrar against an independent Net::EPP (Perl) registry peer', function () {
  this.timeout(30_000);
  let certs: EppCerts;
  before(() => {
    certs = makeEppCerts();
  });
  after(() => certs.cleanup());

  it('greeting → login → check (with the fee extension) → create → info → renew → poll/ack → logout, every frame schema-valid', async () => {
    const peer = await startPeer(certs, ['--fee=1', '--fee-per-year=400.00', '--queue-deletion=gone.com.ua']);
    const registrar = registrarFor(peer, certs);
    try {
      const [free, held] = await registrar.check(['perl-peer.com.ua', 'taken-perl.com.ua']);
      expect(free).to.include({ domain: 'perl-peer.com.ua', available: true });
      expect(held).to.include({ domain: 'taken-perl.com.ua', available: false });

      const quotes = await registrar.quote(['perl-peer.com.ua'], 2, 'create');
      expect(quotes).to.deep.equal([{ domain: 'perl-peer.com.ua', years: 2, amount: 80_000, currency: 'UAH', source: 'registry_fee' }]);

      const created = await registrar.register({
        domain: 'perl-peer.com.ua',
        years: 1,
        nameservers: ['ns1.example.net', 'ns2.example.net'],
        clientTransactionId: 'perl-rt-1',
      });
      expect(created).to.deep.equal({ domain: 'perl-peer.com.ua', registeredUntil: inYears(1) });

      const again = await registrar
        .register({ domain: 'perl-peer.com.ua', years: 1, nameservers: [], clientTransactionId: 'perl-rt-2' })
        .catch((e) => e);
      expect(again).to.be.instanceOf(RegistryError);
      expect((again as RegistryError).reason).to.equal('taken');
      expect((again as RegistryError).registeredUntil).to.equal(inYears(1));

      const info = await registrar.info('perl-peer.com.ua');
      expect(info).to.deep.equal({
        domain: 'perl-peer.com.ua',
        registeredUntil: inYears(1),
        status: ['ok'],
        nameservers: ['ns1.example.net', 'ns2.example.net'],
      });
      expect(await registrar.info('never-made.com.ua')).to.equal(null);

      const renewed = await registrar.renew({
        domain: 'perl-peer.com.ua',
        years: 2,
        currentExpiry: inYears(1),
        clientTransactionId: 'perl-rn-1',
      });
      expect(renewed).to.deep.equal({ domain: 'perl-peer.com.ua', registeredUntil: inYears(3) });
      const stale = await registrar
        .renew({ domain: 'perl-peer.com.ua', years: 1, currentExpiry: inYears(1), clientTransactionId: 'perl-rn-2' })
        .catch((e) => e);
      expect(stale).to.be.instanceOf(RegistryError);
      expect((stale as RegistryError).registryCode).to.equal(2306);

      const msg = await registrar.poll();
      expect(msg).to.include({ kind: 'deleted_by_registry', domain: 'gone.com.ua' });
      await registrar.ack(msg!.id);
      expect(await registrar.poll()).to.equal(null);
    } finally {
      await registrar.close();
    }
    await lineMatching(peer, /^COMMAND logout /);
    await peer.stop();

    expect(peer.lines.filter((l) => /^(SCHEMA|FRAMING)-ERROR/.test(l))).to.deep.equal([]);
    const commands = peer.lines.filter((l) => l.startsWith('COMMAND ')).map((l) => l.split(' ').slice(1, 3).join(' '));
    expect(commands).to.include.members([
      'login -',
      'check domain:check',
      'create domain:create',
      'info domain:info',
      'renew domain:renew',
      'poll -',
      'logout -',
    ]);
    // Every frame either way was validated whole: the greeting, and one command and one answer per command.
    const valid = peer.lines.filter((l) => /^FRAME (c2s|s2c) valid$/.test(l));
    expect(valid.filter((l) => l.includes('c2s'))).to.have.length(commands.length);
    expect(valid.filter((l) => l.includes('s2c'))).to.have.length(commands.length + 1);
  });

  it('the peer validates the fee extension inside the frame: an unknown fee:command name is answered 2001', async () => {
    const peer = await startPeer(certs, ['--fee=1']);
    const raw = await rawSession(peer, certs);
    try {
      expect(await raw.exchange(LOGIN, true)).to.match(/<result code="1000">/);
      const check = (name: string) =>
        '<?xml version="1.0" encoding="UTF-8"?><epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><command><check>' +
        '<domain:check xmlns:domain="urn:ietf:params:xml:ns:domain-1.0"><domain:name>fee-raw.com.ua</domain:name></domain:check></check>' +
        '<extension><fee:check xmlns:fee="urn:ietf:params:xml:ns:epp:fee-1.0"><fee:currency>UAH</fee:currency>' +
        `<fee:command name="${name}"><fee:period unit="y">1</fee:period></fee:command></fee:check></extension><clTRID>raw-2</clTRID></command></epp>`;
      const ok = await raw.exchange(check('renew'), true);
      expect(ok).to.match(/<result code="1000">/);
      expect(ok).to.match(/<fee:command name="renew">.*<fee:fee[^>]*>400\.00<\/fee:fee>/);
      expect(await raw.exchange(check('buy'), true)).to.match(/<result code="2001">[\s\S]*fee-1\.0\}command', attribute 'name'/);
    } finally {
      raw.close();
      await peer.stop();
    }
    expect(peer.lines.filter((l) => l.startsWith('SCHEMA-ERROR c2s'))).to.have.length(1);
    expect(peer.lines.filter((l) => l.startsWith('SCHEMA-ERROR s2c'))).to.deep.equal([]);
  });

  it('the peer detects a frame whose length prefix does not count its own 4 bytes (RFC 5734 §4)', async () => {
    const peer = await startPeer(certs);
    const raw = await rawSession(peer, certs);
    try {
      const answer = await raw.exchange(LOGIN, false);
      expect(answer).to.match(/<result code="2001">/);
      await raw.closed;
    } finally {
      raw.close();
    }
    await lineMatching(peer, /^FRAMING-ERROR /);
    await peer.stop();
    expect(peer.lines.filter((l) => l.startsWith('COMMAND login'))).to.deep.equal([]);
  });

  it('our client detects a peer whose greeting length prefix does not count itself, and fails cleanly', async () => {
    const peer = await startPeer(certs, ['--misframe-greeting=1']);
    const registrar = registrarFor(peer, certs, { connectAttempts: 1, retries: 0 });
    try {
      const err = await registrar.check(['perl-peer.com.ua']).then(
        () => null,
        (e) => e,
      );
      expect(err).to.be.instanceOf(RegistryError);
      expect((err as RegistryError).reason).to.equal('unavailable');
      // Detected from the bytes (the 4 bytes left over read as a length, or the cut greeting), not waited out.
      expect((err as RegistryError).message).to.match(/bad EPP frame length|EPP session setup failed/);
      expect((err as RegistryError).message).to.not.match(/within \d+ ms/);
    } finally {
      await registrar.close();
      await peer.stop();
    }
  });
});
