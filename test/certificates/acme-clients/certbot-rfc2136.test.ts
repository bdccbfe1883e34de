import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePebble, startPebble, type Pebble } from '../../support/pebble.js';
import { ROOT, startServerProcess, type ServerProcess } from '../../support/server-process.js';
import { run, sans, verifyChain } from './harness.js';

const ZONE = 'domivka-demo.dev';

/**
 * README "DNS UPDATE (RFC 2136) with TSIG", certbot block: certbot 2.1 with Debian's
 * python3-certbot-dns-rfc2136 (dnspython: UPDATEs over TCP, its signed SOA lookup over TCP then UDP)
 * obtains x + *.x from Pebble with an ACME-only key's TSIG credential, against `npm start` with
 * DNS_WORKERS=2 (each worker reads UDP from its own SO_REUSEPORT socket).
 */
describe('certbot --dns-rfc2136 with an ACME-only key, DNS_WORKERS=2', function () {
  this.timeout(90_000);
  let server: ServerProcess;
  let pebble: Pebble;
  let tmp: string;
  let tsig: { name: string; algorithm: string; secret: string };
  before(async function () {
    requirePebble(this, 'certbot', 'openssl', 'nsupdate');
    if (!existsSync('/usr/lib/python3/dist-packages/certbot_dns_rfc2136')) {
      if (process.env.CI) throw new Error('python3-certbot-dns-rfc2136 missing');
      this.skip();
    }
    server = await startServerProcess({ DNS_WORKERS: '2' });
    pebble = await startPebble(server.dnsPort);
    tmp = mkdtempSync(join(tmpdir(), 'certbot-rfc2136-'));
    const issued = await run(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      [join(ROOT, 'src/main/sandbox-key.ts'), '--template', 'acme_client', '--domains', ZONE, '--json'],
      server.env as Record<string, string>,
    );
    expect(issued.code, issued.out).to.equal(0);
    tsig = JSON.parse(issued.out.trim().split('\n').pop()!).tsig;
  });
  after(async () => {
    await pebble?.stop();
    await server?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("issues x + *.x: exit 0, the SANs asked for, a chain to Pebble's root, the secret in no log", async () => {
    const ini = join(tmp, 'domivka.ini');
    writeFileSync(
      ini,
      [
        'dns_rfc2136_server = 127.0.0.1',
        `dns_rfc2136_port = ${server.dnsPort}`,
        `dns_rfc2136_name = ${tsig.name}`,
        `dns_rfc2136_secret = ${tsig.secret}`,
        `dns_rfc2136_algorithm = ${tsig.algorithm.toUpperCase()}`,
        '',
      ].join('\n'),
    );
    chmodSync(ini, 0o600);
    const names = [ZONE, `*.${ZONE}`];
    const r = await run(
      'certbot',
      [
        'certonly',
        '--non-interactive',
        '--agree-tos',
        '--register-unsafely-without-email',
        '--server',
        pebble.directoryUrl,
        '--config-dir',
        join(tmp, 'config'),
        '--work-dir',
        join(tmp, 'work'),
        '--logs-dir',
        join(tmp, 'logs'),
        '--dns-rfc2136',
        '--dns-rfc2136-credentials',
        ini,
        '--dns-rfc2136-propagation-seconds',
        '1',
        ...names.flatMap((d) => ['-d', d]),
      ],
      { REQUESTS_CA_BUNDLE: pebble.listenerCaFile, HOME: tmp },
    );
    const log = readFileSync(join(tmp, 'logs', 'letsencrypt.log'), 'utf8');
    expect(r.code, `${r.out}\n${log.slice(-4000)}`).to.equal(0);
    const live = join(tmp, 'config', 'live', ZONE);
    expect(sans(readFileSync(join(live, 'cert.pem'), 'utf8'))).to.deep.equal([...names].sort());
    const root = join(tmp, 'pebble-root.pem');
    writeFileSync(root, await pebble.rootPem());
    const v = await verifyChain(root, join(live, 'chain.pem'), join(live, 'cert.pem'));
    expect(v.code, v.out).to.equal(0);
    expect(`${r.out}\n${log}`).not.to.contain(tsig.secret);
  });

  it('the same credential is REFUSED for an A record, over UDP and over TCP', async () => {
    for (const args of [[], ['-v']]) {
      const r = await new Promise<{ code: number; out: string }>((resolve) => {
        const child = execFile(
          'nsupdate',
          [...args, '-y', `${tsig.algorithm}:${tsig.name}:${tsig.secret}`],
          { timeout: 15_000 },
          (err, so, se) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${so}${se}` }),
        );
        child.stdin!.end(`server 127.0.0.1 ${server.dnsPort}\nzone ${ZONE}\nupdate add www.${ZONE}. 60 A 192.0.2.66\nsend\n`);
      });
      expect(r.code, r.out).to.not.equal(0);
      expect(r.out, args.join(' ')).to.match(/update failed: REFUSED/);
    }
  });
});
