import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EmbeddedNameserver } from '../../dns/embedded/index.js';
import { X509CertificateKeys } from '../../crypto/x509/index.js';
import { SERVICE_NAMESERVERS, soaValue, type RecordSet } from '../../../core/dns/zone/record-set.js';
import {
  certificateAuthorityContract,
  expectCaError,
  SpySolver,
  type ChallengeDns,
} from '../../../test/contracts/certificate-authority.contract.js';
import { dig, freePort, rdata } from '../../../test/dns/server/tools.js';
import { requirePebble, startPebble, type Pebble } from '../../../test/support/pebble.js';
import { AcmeCertificateAuthority, type AcmeTimeouts } from './index.js';

const ZONE = 'acme-test.example';
/** Fail fast in tests: no network retries, short polls (Pebble with PEBBLE_VA_NOSLEEP answers at once). */
const FAST: AcmeTimeouts = { requestMs: 5_000, networkRetries: 0, pollAttempts: 20, pollMinMs: 25, pollMaxMs: 250 };

/**
 * Our embedded nameserver serving one zone; the solver's TXT values at `_acme-challenge.<host>` are
 * added and removed by publishing the zone again with the next serial, as the zone commit does.
 */
class ZoneDns implements ChallengeDns {
  readonly txt = new Map<string, string[]>();
  /** The most values one name held at once. */
  readonly peak = new Map<string, number>();
  private serial = 1;
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly ns: EmbeddedNameserver) {}

  publish(): Promise<void> {
    const serial = ++this.serial;
    const sets: RecordSet[] = [
      { name: ZONE, type: 'SOA', ttl: 3600, values: [soaValue(serial)] },
      { name: ZONE, type: 'NS', ttl: 3600, values: SERVICE_NAMESERVERS.map((n) => `${n}.`) },
      ...[...this.txt].map(([name, values]) => ({ name, type: 'TXT' as const, ttl: 60, values })),
    ];
    return this.ns.publish({ domain: ZONE, serial, recordSets: sets });
  }

  private change(fn: () => void): Promise<void> {
    this.queue = this.queue.then(() => {
      fn();
      return this.publish();
    });
    return this.queue;
  }

  add(name: string, value: string): Promise<void> {
    return this.change(() => {
      const values = [...(this.txt.get(name) ?? []), value];
      this.txt.set(name, values);
      this.peak.set(name, Math.max(this.peak.get(name) ?? 0, values.length));
    });
  }

  remove(name: string, value: string): Promise<void> {
    return this.change(() => {
      const left = (this.txt.get(name) ?? []).filter((v) => v !== value);
      if (left.length) this.txt.set(name, left);
      else this.txt.delete(name);
    });
  }
}

let hostCounter = 0;
const freshHost = (): string => `t${++hostCounter}-${Date.now().toString(36)}.${ZONE}`;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('ACME CA (adapters/ca/acme)', () => {
  const keys = new X509CertificateKeys();

  describe('against Pebble, validating through our own DNS server', () => {
    let ns: EmbeddedNameserver;
    let dns: ZoneDns;
    let pebble: Pebble;
    let ca: AcmeCertificateAuthority;
    const made: AcmeCertificateAuthority[] = [];
    const acmeCa = (extra: Partial<ConstructorParameters<typeof AcmeCertificateAuthority>[0]> = {}): AcmeCertificateAuthority => {
      const c = new AcmeCertificateAuthority({
        directoryUrl: pebble.directoryUrl,
        caPem: pebble.listenerCaPem,
        termsOfServiceAgreed: true,
        email: 'hostmaster@domivka.test',
        timeouts: FAST,
        ...extra,
      });
      made.push(c);
      return c;
    };

    before(async function () {
      this.timeout(30_000);
      requirePebble(this);
      const port = await freePort();
      ns = new EmbeddedNameserver({ host: '127.0.0.1', port, axfrAllow: [], secondaries: [] });
      await ns.start();
      dns = new ZoneDns(ns);
      await dns.publish();
      pebble = await startPebble(port);
      ca = acmeCa();
    });
    after(async () => {
      for (const c of made) c.close();
      await pebble?.stop();
      await ns?.stop();
    });

    certificateAuthorityContract('acme (Pebble)', () => ({
      ca,
      dns,
      freshHost,
      trustAnchorPem: () => pebble.rootPem(),
      isRevoked: async (pem) => (await pebble.certStatus(new X509Certificate(pem).serialNumber)) === 'Revoked',
      cleanup: async () => {
        expect([...dns.txt.keys()], 'proofs left in the zone').to.deep.equal([]);
      },
    }));

    it('x and *.x: both values are served at one name at once (Pebble asks UDP without EDNS: the answer fits 512 octets)', async function () {
      requirePebble(this, 'dig');
      const host = freshHost();
      const names = [host, `*.${host}`];
      const seen: string[][] = [];
      const solver = new SpySolver({
        add: async (name, value) => {
          await dns.add(name, value);
          if (dns.txt.get(name)!.length === 2) seen.push(rdata((await dig(ns.address().port, name, 'TXT', '+noedns')).answer, 'TXT'));
        },
        remove: (name, value) => dns.remove(name, value),
      });
      await ca.issue({ names, csrPem: (await keys.generate(names)).csrPem, solver, at: new Date() });
      expect(dns.peak.get(`_acme-challenge.${host}`)).to.equal(2);
      expect(seen).to.have.length(1);
      expect(seen[0]).to.have.members(solver.presented.map((p) => `"${p.value}"`));
      expect(solver.presented.map((p) => p.value)[0]).to.not.equal(solver.presented[1]!.value);
    });

    it('an identifier the CA refuses comes back with its problem type, not retryable, before any DNS motion', async () => {
      const host = freshHost();
      const names = [`*.*.${host}`];
      const solver = new SpySolver(dns);
      const err = await expectCaError(ca.issue({ names, csrPem: (await keys.generate(names)).csrPem, solver, at: new Date() }));
      expect(err.reason).to.match(/^urn:ietf:params:acme:error:\w+: /);
      expect(err.problemType).to.be.oneOf(['urn:ietf:params:acme:error:rejectedIdentifier', 'urn:ietf:params:acme:error:malformed']);
      expect(err.retryable).to.equal(false);
      expect(solver.presented).to.deep.equal([]);
    });

    it("validation failure carries the CA's problem type and detail (urn:…:unauthorized)", async () => {
      const host = freshHost();
      const solver = new SpySolver(dns, 'wrong');
      const err = await expectCaError(ca.issue({ names: [host], csrPem: (await keys.generate([host])).csrPem, solver, at: new Date() }));
      expect(err.problemType).to.equal('urn:ietf:params:acme:error:unauthorized');
      expect(err.reason).to.match(/^urn:ietf:params:acme:error:unauthorized: .+_acme-challenge\./);
    });

    it('the account key: generated once per instance; a second instance with it is the same account (it may revoke)', async () => {
      const first = acmeCa();
      const key = await first.accountKeyPem();
      expect(key).to.match(/^-----BEGIN PRIVATE KEY-----/);
      expect(await first.accountKeyPem()).to.equal(key);
      expect(await acmeCa().accountKeyPem()).to.not.equal(key);
      const host = freshHost();
      const issued = await first.issue({
        names: [host],
        csrPem: (await keys.generate([host])).csrPem,
        solver: new SpySolver(dns),
        at: new Date(),
      });
      const again = acmeCa({ accountKeyPem: key });
      expect(await again.accountKeyPem()).to.equal(key);
      await again.revoke(issued.certificatePem, 1);
      // Revoking again is done, not an error (RFC 8555 alreadyRevoked).
      await again.revoke(issued.certificatePem, 1);
      // Another account may not revoke it.
      const stranger = acmeCa();
      const host2 = freshHost();
      const other = await first.issue({
        names: [host2],
        csrPem: (await keys.generate([host2])).csrPem,
        solver: new SpySolver(dns),
        at: new Date(),
      });
      const err = await expectCaError(stranger.revoke(other.certificatePem));
      expect(err.retryable).to.equal(false);
    });

    it("TLS stays verified: without Pebble's listener certificate as caPem it fails at once, retryable", async () => {
      const untrusting = acmeCa({ caPem: undefined });
      const t0 = Date.now();
      const host = freshHost();
      const solver = new SpySolver(dns);
      const err = await expectCaError(
        untrusting.issue({ names: [host], csrPem: (await keys.generate([host])).csrPem, solver, at: new Date() }),
      );
      expect(Date.now() - t0).to.be.below(3000);
      expect(err.retryable).to.equal(true);
      expect(err.reason).to.match(/could not be reached: .*(self[- ]signed|certificate)/i);
      expect(solver.presented).to.deep.equal([]);
    });

    it(`timing: an x + *.x issuance, median of 5`, async function () {
      this.timeout(60_000);
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const host = freshHost();
        const names = [host, `*.${host}`];
        const csrPem = (await keys.generate(names)).csrPem;
        const t0 = performance.now();
        await ca.issue({ names, csrPem, solver: new SpySolver(dns), at: new Date() });
        times.push(Math.round(performance.now() - t0));
      }
      this.test!.title += ` → ${median(times)} ms (${times.join(', ')})`;
      expect(median(times)).to.be.below(5000);
    });
  });

  describe('against a stand-in ACME server (scripted answers, no Pebble needed)', () => {
    let server: Server;
    let base: string;
    let answer: (req: IncomingMessage, res: ServerResponse, body: string) => boolean = () => false;
    let requests = 0;

    before(async () => {
      server = createServer((req, res) => {
        requests++;
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          res.setHeader('Replay-Nonce', `nonce-${requests}`);
          if (answer(req, res, body)) return;
          const json = (status: number, data: unknown, headers: Record<string, string> = {}): void => {
            res.writeHead(status, { 'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers });
            res.end(JSON.stringify(data));
          };
          if (req.url === '/dir')
            return json(200, {
              newNonce: `${base}/nonce`,
              newAccount: `${base}/acct`,
              newOrder: `${base}/order`,
              revokeCert: `${base}/revoke`,
            });
          if (req.url === '/nonce') return void res.writeHead(200).end();
          if (req.url === '/acct') return json(201, { status: 'valid' }, { Location: `${base}/acct/1` });
          return json(404, { type: 'urn:ietf:params:acme:error:malformed', detail: 'no such resource' });
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((r) => server.close(() => r())));

    const orderFailsWith = async (status: number, problem: object, headers: Record<string, string> = {}) => {
      answer = (req, res) => {
        if (req.url !== '/order') return false;
        res.writeHead(status, { 'Content-Type': 'application/problem+json', ...headers }).end(JSON.stringify(problem));
        return true;
      };
      const ca = new AcmeCertificateAuthority({ directoryUrl: `${base}/dir`, termsOfServiceAgreed: true, timeouts: FAST });
      const names = ['x.example.com'];
      const solver = new SpySolver({ add: async () => undefined, remove: async () => undefined });
      const t0 = Date.now();
      const err = await expectCaError(ca.issue({ names, csrPem: (await keys.generate(names)).csrPem, solver, at: new Date() }));
      ca.close();
      expect(Date.now() - t0, 'acme-client retries are off').to.be.below(2000);
      expect(solver.presented).to.deep.equal([]);
      return err;
    };

    it("rateLimited (429, Retry-After): retryable at once, with the CA's words", async () => {
      const err = await orderFailsWith(
        429,
        {
          type: 'urn:ietf:params:acme:error:rateLimited',
          detail: 'too many certificates (5) already issued for this exact set of identifiers',
        },
        { 'Retry-After': '3600' },
      );
      expect(err.reason).to.equal(
        'urn:ietf:params:acme:error:rateLimited: too many certificates (5) already issued for this exact set of identifiers',
      );
      expect(err.problemType).to.equal('urn:ietf:params:acme:error:rateLimited');
      expect(err.retryable).to.equal(true);
    });

    it('serverInternal (500): retryable', async () => {
      const err = await orderFailsWith(500, { type: 'urn:ietf:params:acme:error:serverInternal', detail: 'database is down' });
      expect(err).to.include({ retryable: true, problemType: 'urn:ietf:params:acme:error:serverInternal' });
    });

    it('rejectedIdentifier and caa: not retryable; subproblems name the identifier (RFC 8555 §6.7.1)', async () => {
      const rej = await orderFailsWith(400, {
        type: 'urn:ietf:params:acme:error:rejectedIdentifier',
        detail: 'Error creating new order',
        subproblems: [
          {
            type: 'urn:ietf:params:acme:error:rejectedIdentifier',
            detail: 'Domain name is on a blocklist',
            identifier: { type: 'dns', value: 'x.example.com' },
          },
        ],
      });
      expect(rej.retryable).to.equal(false);
      expect(rej.reason).to.equal(
        'urn:ietf:params:acme:error:rejectedIdentifier: Error creating new order; x.example.com: urn:ietf:params:acme:error:rejectedIdentifier: Domain name is on a blocklist',
      );
      const caa = await orderFailsWith(403, {
        type: 'urn:ietf:params:acme:error:caa',
        detail: 'CAA record for x.example.com prevents issuance',
      });
      expect(caa).to.include({ retryable: false, problemType: 'urn:ietf:params:acme:error:caa' });
    });

    it('a server that is down: retryable, fast with networkRetries 0; retried networkRetries times otherwise', async () => {
      const port = await freePort();
      const names = ['x.example.com'];
      const csrPem = (await keys.generate(names)).csrPem;
      const solver = new SpySolver({ add: async () => undefined, remove: async () => undefined });
      const down = new AcmeCertificateAuthority({
        directoryUrl: `http://127.0.0.1:${port}/dir`,
        termsOfServiceAgreed: true,
        timeouts: FAST,
      });
      const err = await expectCaError(down.issue({ names, csrPem, solver, at: new Date() }));
      expect(err.retryable).to.equal(true);
      expect(err.reason).to.match(/ECONNREFUSED|connect/);
      const patient = new AcmeCertificateAuthority({
        directoryUrl: `http://127.0.0.1:${port}/dir`,
        termsOfServiceAgreed: true,
        timeouts: { ...FAST, networkRetries: 2, retryDelayMs: 100 },
      });
      const t0 = Date.now();
      await expectCaError(patient.issue({ names, csrPem, solver, at: new Date() }));
      expect(Date.now() - t0).to.be.within(300, 2000); // waits 100 + 200 ms between three attempts
    });

    it("an HTTP error without a problem document (a proxy's HTML page): retryable, short reason", async () => {
      answer = (req, res) => {
        if (req.url !== '/order') return false;
        res.writeHead(502, { 'Content-Type': 'text/html' }).end(`<html><body>${'Bad gateway. '.repeat(500)}</body></html>`);
        return true;
      };
      const ca = new AcmeCertificateAuthority({ directoryUrl: `${base}/dir`, termsOfServiceAgreed: true, timeouts: FAST });
      const names = ['x.example.com'];
      const err = await expectCaError(
        ca.issue({
          names,
          csrPem: (await keys.generate(names)).csrPem,
          solver: new SpySolver({ add: async () => undefined, remove: async () => undefined }),
          at: new Date(),
        }),
      );
      ca.close();
      answer = () => false;
      expect(err).to.include({ retryable: true, reason: 'The ACME server answered HTTP 502 without a problem document.' });
    });

    it('a server that does not answer: retryable after requestMs', async () => {
      answer = (req) => req.url === '/dir'; // never responds
      const ca = new AcmeCertificateAuthority({
        directoryUrl: `${base}/dir`,
        termsOfServiceAgreed: true,
        timeouts: { ...FAST, requestMs: 300 },
      });
      const t0 = Date.now();
      const names = ['x.example.com'];
      const err = await expectCaError(
        ca.issue({
          names,
          csrPem: (await keys.generate(names)).csrPem,
          solver: new SpySolver({ add: async () => undefined, remove: async () => undefined }),
          at: new Date(),
        }),
      );
      expect(Date.now() - t0).to.be.within(250, 2000);
      expect(err).to.include({ retryable: true });
      expect(err.reason).to.match(/no answer within 300 ms/);
      answer = () => false;
      ca.close();
    });

    /**
     * A scripted order for x and *.x: two pending authorizations with one dns-01 challenge each. Records
     * what the client does, interleaved with the solver's calls, to check the order of the motions.
     */
    const scriptedOrder = (events: string[]) => {
      const payloadOf = (body: string): string => Buffer.from((JSON.parse(body) as { payload: string }).payload, 'base64url').toString();
      const completed = new Set<string>();
      answer = (req, res, body) => {
        const json = (status: number, data: unknown, headers: Record<string, string> = {}): true => {
          res
            .writeHead(status, { 'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers })
            .end(JSON.stringify(data));
          return true;
        };
        const m = /^\/(order|authz|chall)\/?(\d*)$/.exec(req.url ?? '');
        if (!m) {
          if (req.url !== '/finalize') return false;
          events.push('finalize');
          return json(403, { type: 'urn:ietf:params:acme:error:unauthorized', detail: 'scripted: no certificate today' });
        }
        const [, kind, n] = m;
        const payload = payloadOf(body);
        if (kind === 'order')
          return json(
            201,
            { status: 'pending', authorizations: [`${base}/authz/1`, `${base}/authz/2`], finalize: `${base}/finalize` },
            { Location: `${base}/order/1` },
          );
        if (kind === 'authz') {
          if (payload.includes('deactivated')) {
            events.push(`deactivate ${n}`);
            return json(200, { status: 'deactivated' });
          }
          return json(200, {
            status: 'pending',
            identifier: { type: 'dns', value: 'x.example.com' },
            ...(n === '2' ? { wildcard: true } : {}),
            challenges: [
              { type: 'http-01', url: `${base}/http/${n}`, token: `h${n}`, status: 'pending' },
              { type: 'dns-01', url: `${base}/chall/${n}`, token: `token${n}`, status: 'pending' },
            ],
          });
        }
        if (payload === '{}') {
          events.push(`complete ${n}`);
          completed.add(n!);
        }
        return json(200, {
          type: 'dns-01',
          url: `${base}/chall/${n}`,
          token: `token${n}`,
          status: completed.has(n!) ? 'valid' : 'pending',
        });
      };
    };

    const recordingSolver = (events: string[], failOn = 0): SpySolver => {
      const solver = new SpySolver({
        add: async (name) => void events.push(`present ${name}`),
        remove: async (name) => void events.push(`cleanup ${name}`),
      });
      if (failOn) {
        const present = solver.present.bind(solver);
        solver.present = async (host, value) => {
          if (solver.presented.length + 1 === failOn) throw new Error('zone commit failed');
          return present(host, value);
        };
      }
      return solver;
    };

    it('x and *.x: both dns-01 proofs are published before either challenge is answered; cleaned up before finalize', async () => {
      const events: string[] = [];
      scriptedOrder(events);
      const ca = new AcmeCertificateAuthority({ directoryUrl: `${base}/dir`, termsOfServiceAgreed: true, timeouts: FAST });
      const names = ['x.example.com', '*.x.example.com'];
      const solver = recordingSolver(events);
      const err = await expectCaError(ca.issue({ names, csrPem: (await keys.generate(names)).csrPem, solver, at: new Date() }));
      ca.close();
      answer = () => false;
      expect(err.reason).to.equal('urn:ietf:params:acme:error:unauthorized: scripted: no certificate today');
      expect(events.slice(0, 2)).to.deep.equal(['present _acme-challenge.x.example.com', 'present _acme-challenge.x.example.com']);
      expect(events.slice(2, 4)).to.have.members(['complete 1', 'complete 2']);
      expect(events.slice(4)).to.deep.equal(['cleanup _acme-challenge.x.example.com', 'cleanup _acme-challenge.x.example.com', 'finalize']);
      // RFC 8555 §8.4: the TXT value is base64url(SHA-256(keyAuthorization)), one per challenge token.
      expect(solver.presented[0]!.value).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(solver.presented[0]!.value).to.not.equal(solver.presented[1]!.value);
    });

    it('a solver failure: nothing is answered, the pending authorizations are deactivated (RFC 8555 §7.5.2), earlier proofs cleaned up', async () => {
      const events: string[] = [];
      scriptedOrder(events);
      const ca = new AcmeCertificateAuthority({ directoryUrl: `${base}/dir`, termsOfServiceAgreed: true, timeouts: FAST });
      const names = ['x.example.com', '*.x.example.com'];
      const solver = recordingSolver(events, 2);
      let caught: unknown;
      await ca.issue({ names, csrPem: (await keys.generate(names)).csrPem, solver, at: new Date() }).catch((e: unknown) => (caught = e));
      ca.close();
      answer = () => false;
      expect((caught as Error).message).to.equal('zone commit failed');
      expect(events[0]).to.equal('present _acme-challenge.x.example.com');
      expect(events.slice(1, 3)).to.have.members(['deactivate 1', 'deactivate 2']);
      expect(events.slice(3)).to.deep.equal(['cleanup _acme-challenge.x.example.com']);
    });

    it('config is validated by the constructor', () => {
      const ok = { directoryUrl: 'https://acme.example/dir', termsOfServiceAgreed: true as const };
      expect(() => new AcmeCertificateAuthority({ ...ok, directoryUrl: 'not a url' })).to.throw(/directoryUrl/);
      expect(() => new AcmeCertificateAuthority({ ...ok, directoryUrl: 'ftp://acme.example/dir' })).to.throw(/http/);
      expect(() => new AcmeCertificateAuthority({ ...ok, termsOfServiceAgreed: false as unknown as true })).to.throw(
        /termsOfServiceAgreed/,
      );
      expect(() => new AcmeCertificateAuthority({ ...ok, email: 'nobody' })).to.throw(/email/);
      expect(() => new AcmeCertificateAuthority({ ...ok, accountKeyPem: 'x' })).to.throw(/accountKeyPem/);
      expect(() => new AcmeCertificateAuthority({ ...ok, caPem: 'x' })).to.throw(/caPem/);
      expect(() => new AcmeCertificateAuthority({ ...ok, timeouts: { requestMs: 0 } })).to.throw(/requestMs/);
      expect(new AcmeCertificateAuthority(ok).kind).to.equal('acme');
    });

    it("rootPem() is null: a public CA's roots are already trusted", async () => {
      expect(await new AcmeCertificateAuthority({ directoryUrl: `${base}/dir`, termsOfServiceAgreed: true }).rootPem()).to.equal(null);
    });
  });
});
