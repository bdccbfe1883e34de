import { Resolver } from 'node:dns/promises';
import type { ChallengePropagation } from '../../core/certificates/zone-challenge-solver.js';
import { CertificateAuthorityError } from '../../core/certificates/ports/certificate-authority.port.js';
import type { ZonePublisherHub } from './zone-publisher-hub.js';

/**
 * Waits until our own DNS server answers a DNS-01 value before the CA is told to look. Where the
 * server runs in this process (npm start), a publish already resolved once it serves the change, so
 * this returns at once; a worker on its own asks the server at DNS_HOST:DNS_PORT, which picks changes
 * up within 2 s (ZoneSync), until the value shows or `timeoutMs` passes.
 */
export class ServedByOurDns implements ChallengePropagation {
  constructor(
    private readonly hub: ZonePublisherHub,
    private readonly server: { host: string; port: number },
    private readonly timeoutMs = 15_000,
  ) {}

  async served(name: string, value: string): Promise<void> {
    if (this.hub.serving) return;
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    const host = this.server.host === '0.0.0.0' ? '127.0.0.1' : this.server.host === '::' ? '::1' : this.server.host;
    resolver.setServers([host.includes(':') ? `[${host}]:${this.server.port}` : `${host}:${this.server.port}`]);
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const txt = await resolver.resolveTxt(name).catch(() => [] as string[][]);
      if (txt.some((chunks) => chunks.join('') === value)) return;
      if (Date.now() > deadline) {
        throw new CertificateAuthorityError(
          `our DNS server at ${host}:${this.server.port} did not serve the challenge value at ${name} within ${this.timeoutMs / 1000} s`,
          true,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
