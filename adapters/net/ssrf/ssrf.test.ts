import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import {
  assertPublicUrl,
  guardedFetch,
  guardedLookup,
  isAllowedAddress,
  SsrfRefusedError,
  GuardedFetchError,
  type Resolve,
} from './index.js';

const live = { allowLoopback: false, requireHttps: true };
const sandbox = { allowLoopback: true, requireHttps: false };

function refused(fn: () => unknown, reason?: string): void {
  try {
    fn();
  } catch (e) {
    expect(e).to.be.instanceOf(SsrfRefusedError);
    if (reason) expect((e as SsrfRefusedError).reason).to.equal(reason);
    return;
  }
  expect.fail('expected an SsrfRefusedError');
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('SSRF guard (adapters/net/ssrf)', () => {
  describe('assertPublicUrl', () => {
    it('accepts public https URLs in live', () => {
      for (const u of [
        'https://example.com/hook',
        'https://hooks.example.co.uk:8443/a?b=c',
        'https://93.184.216.34/x',
        'https://[2606:2800:220:1:248:1893:25c8:1946]/',
      ]) {
        expect(() => assertPublicUrl(u, live), u).not.to.throw();
      }
    });
    it('refuses non-https in live, other schemes everywhere, credentials and junk', () => {
      refused(() => assertPublicUrl('http://example.com/', live), 'scheme');
      refused(() => assertPublicUrl('ftp://example.com/', sandbox), 'scheme');
      refused(() => assertPublicUrl('file:///etc/passwd', sandbox), 'scheme');
      refused(() => assertPublicUrl('https://user:pw@example.com/', live), 'credentials');
      refused(() => assertPublicUrl('not a url', live), 'invalid_url');
      refused(() => assertPublicUrl('https://exa_mple.com/', live), 'host');
    });
    it('refuses loopback, private, link-local, unique-local, CGNAT, multicast, unspecified, metadata and their mapped forms', () => {
      const bad = [
        'http://127.0.0.1/',
        'http://127.8.9.1/',
        'http://[::1]/',
        'http://10.0.0.1/',
        'http://172.16.3.4/',
        'http://192.168.1.1/',
        'http://169.254.169.254/latest/meta-data/',
        'http://169.254.1.1/',
        'http://[fe80::1]/',
        'http://[fd00::1]/',
        'http://[fd00:ec2::254]/',
        'http://100.64.0.1/',
        'http://224.0.0.1/',
        'http://[ff02::1]/',
        'http://0.0.0.0/',
        'http://[::]/',
        'http://255.255.255.255/',
        'http://[::ffff:127.0.0.1]/',
        'http://[::ffff:10.0.0.1]/',
        'http://[::ffff:169.254.169.254]/',
        'http://[64:ff9b::7f00:1]/',
        'http://[2002:7f00:1::]/',
        'http://2130706433/',
        'http://0x7f.1/',
        'http://127.1/',
        'http://017700000001/',
      ];
      for (const u of bad) {
        refused(() => assertPublicUrl(u.replace('http:', 'https:'), live), 'address');
        refused(() => assertPublicUrl(u, { allowLoopback: false, requireHttps: false }), 'address');
      }
    });
    it('refuses names that only ever mean this machine or a local network', () => {
      for (const u of [
        'https://localhost/',
        'https://api.localhost/',
        'https://intranet/',
        'https://printer.local/',
        'https://metadata.google.internal/',
      ])
        refused(() => assertPublicUrl(u, live), 'host');
    });
    it('the sandbox opening admits loopback only — not private or metadata addresses', () => {
      expect(() => assertPublicUrl('http://127.0.0.1:8080/hook', sandbox)).not.to.throw();
      expect(() => assertPublicUrl('http://[::1]:8080/hook', sandbox)).not.to.throw();
      expect(() => assertPublicUrl('http://localhost:8080/hook', sandbox)).not.to.throw();
      for (const u of ['http://10.0.0.1/', 'http://169.254.169.254/', 'http://[fd00::1]/', 'http://192.168.0.1/'])
        refused(() => assertPublicUrl(u, sandbox), 'address');
    });
    it('isAllowedAddress judges embedded IPv4 by the IPv4 address', () => {
      expect(isAllowedAddress('::ffff:93.184.216.34', { allowLoopback: false })).to.equal(true);
      expect(isAllowedAddress('::ffff:192.168.0.1', { allowLoopback: false })).to.equal(false);
      expect(isAllowedAddress('8.8.8.8', { allowLoopback: false })).to.equal(true);
      expect(isAllowedAddress('not-an-ip', { allowLoopback: true })).to.equal(false);
    });
  });

  describe('guardedLookup (connect time)', () => {
    it('net.connect to a name that resolves to loopback is refused before any connection', async () => {
      let accepted = 0;
      const { server, port } = await listen(() => accepted++);
      server.on('connection', () => accepted++);
      try {
        const err = await new Promise<Error>((resolve, reject) => {
          const s = connect({ host: 'localhost', port, lookup: guardedLookup({ allowLoopback: false }) as never });
          s.on('connect', () => reject(new Error('connected')));
          s.on('error', resolve);
        });
        expect(err).to.be.instanceOf(SsrfRefusedError);
        expect(accepted).to.equal(0);
      } finally {
        server.close();
      }
    });
    it('catches DNS rebinding: a name public at creation that resolves to 127.0.0.1 at send time', async () => {
      let answer = '93.184.216.34';
      const resolve: Resolve = (_h, _o, cb) => cb(null, [{ address: answer, family: 4 }]);
      expect(() => assertPublicUrl('http://rebind.example.com/', { allowLoopback: false, requireHttps: false })).not.to.throw();
      answer = '127.0.0.1';
      const err = await guardedFetch('http://rebind.example.com/', {
        allowLoopback: false,
        requireHttps: false,
        resolve,
        timeoutMs: 2000,
      }).catch((e) => e);
      expect(err).to.be.instanceOf(SsrfRefusedError);
    });
    it('refuses a name when any one of its addresses is not public', async () => {
      const resolve: Resolve = (_h, _o, cb) =>
        cb(null, [
          { address: '93.184.216.34', family: 4 },
          { address: '10.1.2.3', family: 4 },
        ]);
      const lookup = guardedLookup({ allowLoopback: false }, resolve);
      const err = await new Promise((r) => lookup('mixed.example.com', { all: true }, (e) => r(e)));
      expect(err).to.be.instanceOf(SsrfRefusedError);
    });
  });

  describe('IPv6 forms that embed an IPv4 address are judged by the embedded address', () => {
    /** Every IPv6 form that carries `v4`, as a resolver or a URL would hand it to us. */
    const forms = (v4: string): Record<string, string> => {
      const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
      const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
      const inv = (x: number, y: number) => (~((x << 8) | y) & 0xffff).toString(16);
      return {
        'IPv4-compatible, dotted': `::${v4}`,
        'IPv4-compatible, hex': `::${hex(a, b)}:${hex(c, d)}`,
        'IPv4-mapped': `::ffff:${v4}`,
        'IPv4-mapped, hex': `::ffff:${hex(a, b)}:${hex(c, d)}`,
        'SIIT IPv4-translated': `::ffff:0:${v4}`,
        'NAT64 64:ff9b::/96': `64:ff9b::${v4}`,
        'NAT64 local-use 64:ff9b:1::/48': `64:ff9b:1::${v4}`,
        '6to4 2002::/16': `2002:${hex(a, b)}:${hex(c, d)}::1`,
        'Teredo 2001::/32 (client = last 32 bits inverted)': `2001:0:4136:e378:8000:63bf:${inv(a, b)}:${inv(c, d)}`,
      };
    };
    const lookupOf = (address: string) =>
      new Promise<unknown>((r) =>
        guardedLookup({ allowLoopback: false }, (_h, _o, cb) => cb(null, [{ address, family: 6 }]))('x.example.com', { all: true }, (e) =>
          r(e),
        ),
      );
    for (const inner of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '192.168.1.1']) {
      it(`refuses every form embedding ${inner}: literal URL, connect-time lookup`, async () => {
        for (const [form, address] of Object.entries(forms(inner))) {
          expect(isAllowedAddress(address, { allowLoopback: false }), `${form} ${address}`).to.equal(false);
          refused(() => assertPublicUrl(`https://[${address}]/hook`, live), 'address');
          expect(await lookupOf(address), `${form} ${address}`).to.be.instanceOf(SsrfRefusedError);
        }
      });
    }
    it('allows every form embedding 8.8.8.8', async () => {
      for (const [form, address] of Object.entries(forms('8.8.8.8'))) {
        expect(isAllowedAddress(address, { allowLoopback: false }), `${form} ${address}`).to.equal(true);
        expect(() => assertPublicUrl(`https://[${address}]/hook`, live), form).not.to.throw();
        expect(await lookupOf(address), `${form} ${address}`).to.equal(null);
      }
    });
    it('refuses a local-use NAT64 address whose IPv4 is not in the /96 layout, and a Teredo address with a private server', () => {
      expect(isAllowedAddress('64:ff9b:1:808:8:800::', { allowLoopback: false })).to.equal(false);
      expect(isAllowedAddress('2001:0:a00:1:8000:63bf:f7f7:f7f7', { allowLoopback: false })).to.equal(false);
    });
    it('keeps :: refused and ::1 loopback (open only with allowLoopback)', () => {
      expect(isAllowedAddress('::', { allowLoopback: true })).to.equal(false);
      expect(isAllowedAddress('::1', { allowLoopback: false })).to.equal(false);
      expect(isAllowedAddress('::1', { allowLoopback: true })).to.equal(true);
    });
  });

  describe('guardedFetch', () => {
    it('in live, http://127.0.0.1, http://[::1], http://10.0.0.1, http://169.254.169.254 and localhost are refused', async () => {
      for (const u of [
        'http://127.0.0.1/',
        'http://[::1]/',
        'http://10.0.0.1/',
        'http://169.254.169.254/',
        'https://localhost/',
        'https://127.0.0.1/',
      ]) {
        const err = await guardedFetch(u, { ...live, timeoutMs: 1000 }).catch((e) => e);
        expect(err, u).to.be.instanceOf(SsrfRefusedError);
      }
    });
    it('never follows a redirect: a 302 to loopback is the answer, and the target is never hit', async () => {
      let targetHits = 0;
      const target = await listen((_q, s) => {
        targetHits++;
        s.end('secret');
      });
      const redirector = await listen((_q, s) => {
        s.writeHead(302, { location: `http://127.0.0.1:${target.port}/` });
        s.end();
      });
      try {
        const res = await guardedFetch(`http://127.0.0.1:${redirector.port}/`, { ...sandbox, method: 'GET' });
        expect(res.status).to.equal(302);
        expect(targetHits).to.equal(0);
      } finally {
        target.server.close();
        redirector.server.close();
      }
    });
    it('posts the body and headers, reads at most maxBodyBytes of the answer, measures latency', async () => {
      let got = '';
      const { server, port } = await listen((q, s) => {
        q.on('data', (c) => (got += c));
        q.on('end', () => {
          s.writeHead(200, { 'x-seen': String(q.headers['x-test']) });
          s.end('y'.repeat(5000));
        });
      });
      try {
        const res = await guardedFetch(`http://127.0.0.1:${port}/in`, {
          ...sandbox,
          headers: { 'x-test': 'ok', 'content-type': 'application/json' },
          body: '{"a":1}',
        });
        expect(res.status).to.equal(200);
        expect(got).to.equal('{"a":1}');
        expect(res.headers['x-seen']).to.equal('ok');
        expect(res.body.length).to.equal(1024);
        expect(res.truncated).to.equal(true);
        expect(res.latencyMs).to.be.greaterThan(0);
      } finally {
        server.close();
      }
    });
    it('gives up after the timeout', async () => {
      const { server, port } = await listen(() => undefined);
      try {
        const t0 = Date.now();
        const err = await guardedFetch(`http://127.0.0.1:${port}/`, { ...sandbox, timeoutMs: 300 }).catch((e) => e);
        expect(err).to.be.instanceOf(GuardedFetchError);
        expect((err as GuardedFetchError).kind).to.equal('timeout');
        expect(Date.now() - t0).to.be.lessThan(3000);
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  });
});
