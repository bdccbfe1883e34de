import type { Dns01Solver } from './ports/dns01-solver.port.js';
import type { Certificate } from './certificate.js';
import { domainOf } from './certificate-names.js';
import { CertificateAuthorityError, type DnsChallengeSolver } from './ports/certificate-authority.port.js';

/**
 * DNS-01 proofs for one certificate, written into the account's own zones by an internal actor
 * (`system:certificates:<id>`), through the same zone commit as a plan apply; additive, so an order for
 * x and *.x keeps both values at one name, and a user's own challenge values stay untouched.
 */
/** Resolves once our authoritative DNS answers `value` at `name` (at once when it runs in this process). */
export interface ChallengePropagation {
  served(name: string, value: string): Promise<void>;
}

export const zoneChallengeSolver =
  (dns01: Dns01Solver, propagation: ChallengePropagation) =>
  (c: Certificate): DnsChallengeSolver => {
    const scope = { accountId: c.accountId, environment: c.environment };
    const actor = `system:certificates:${c.id}`;
    return {
      async present(host, value) {
        const zone = domainOf(host, c.domains);
        if (!zone) throw new CertificateAuthorityError(`${host} is not inside the certificate's domains (${c.domains.join(', ')})`, false);
        const id = await dns01.present(scope, zone, host, value, actor);
        // A public CA looks right after we say "ready": in a worker without its own DNS server, wait
        // until the server process (which picks changes up by polling) answers with the value.
        if (c.ca === 'acme') await propagation.served(`_acme-challenge.${host}`, value);
        return id;
      },
      cleanup: (handle) => dns01.cleanUp(scope, handle, actor),
    };
  };
