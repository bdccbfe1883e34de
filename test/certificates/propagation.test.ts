import { expect } from 'chai';
import { CertificateAuthorityError } from '../../core/certificates/ports/certificate-authority.port.js';
import { ServedByOurDns } from '../../adapters/dns/challenge-propagation.js';
import { ZonePublisherHub } from '../../adapters/dns/zone-publisher-hub.js';
import { exampleZone } from '../dns/server/fixtures.js';
import { startServer } from '../dns/server/tools.js';

/** A worker without its own DNS server tells the CA to look only once our server answers the value. */
describe('DNS-01 values: waiting until our own DNS server serves them', () => {
  it('returns at once when a nameserver runs in this process (its publish already awaited serving)', async () => {
    const hub = new ZonePublisherHub();
    hub.attach({ publish: async () => undefined, withdraw: async () => undefined });
    const t0 = Date.now();
    await new ServedByOurDns(hub, { host: '127.0.0.1', port: 9 }, 50).served('_acme-challenge.x.test', 'v');
    expect(Date.now() - t0).to.be.below(50);
  });

  it('asks the server at DNS_HOST:DNS_PORT until the value shows (the other process picks it up later)', async () => {
    const { ns, port } = await startServer([exampleZone(1)]);
    try {
      const wait = new ServedByOurDns(new ZonePublisherHub(), { host: '127.0.0.1', port }, 5000).served(
        '_acme-challenge.www.example.test',
        'late-value',
      );
      setTimeout(() => {
        void ns.publish(
          exampleZone(2, [{ name: '_acme-challenge.www.example.test', type: 'TXT', ttl: 60, values: ['other', 'late-value'] }]),
        );
      }, 400);
      const t0 = Date.now();
      await wait;
      expect(Date.now() - t0).to.be.within(300, 3000);
    } finally {
      await ns.stop();
    }
  });

  it('gives up with a retryable CA error when the value never shows', async () => {
    const { ns, port } = await startServer([exampleZone(1)]);
    try {
      const err = await new ServedByOurDns(new ZonePublisherHub(), { host: '127.0.0.1', port }, 500)
        .served('_acme-challenge.www.example.test', 'never')
        .catch((e: unknown) => e);
      expect(err).to.be.instanceOf(CertificateAuthorityError);
      expect((err as CertificateAuthorityError).retryable).to.equal(true);
      expect((err as CertificateAuthorityError).reason).to.match(/did not serve/);
    } finally {
      await ns.stop();
    }
  });
});
