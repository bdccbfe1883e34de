import { Recorder } from '../../core/kernel/recorder.js';
import { ContainerModule, type Container, type ServiceIdentifier } from 'inversify';
import type { UseCases } from '../../adapters/http/index.js';
import { type Logger } from 'pino';
import { SqlStore } from '../../adapters/sql/index.js';
import { AcmeChallenges } from '../../core/dns/acme/acme-challenges.use-case.js';
import { ZonePublisherHub } from '../../adapters/dns/zone-publisher-hub.js';
import type * as X509 from '../../adapters/crypto/x509/index.js';
import type { CertificateKeys } from '../../core/certificates/ports/certificate-keys.port.js';
import { loadOwn } from './platform.module.js';
import { Certificates } from '../../core/certificates/certificates.use-case.js';
import { CertificateIssuance } from '../../core/certificates/certificate-issuance.use-case.js';
import { CertificateStatusQuery } from '../../core/certificates/certificate-status.use-case.js';
import { zoneChallengeSolver } from '../../core/certificates/zone-challenge-solver.js';
import type { Dns01Solver } from '../../core/certificates/ports/dns01-solver.port.js';
import { ServedByOurDns } from '../../adapters/dns/challenge-propagation.js';
import { InProcessIssuanceQueue } from '../issuance-queue.js';
import { ownDns, type Config } from '../config.js';
import type { Certificate } from '../../core/certificates/certificate.js';
import { TOKENS as T } from '../tokens.js';

/**
 * The X.509 reader and key generator, its code (@peculiar/x509 with its ASN.1 schemas, ~200 modules) loaded
 * on its first call rather than by every start (issue 21).
 */
const lazyCertificateKeys = (): CertificateKeys => {
  let keys: Promise<CertificateKeys> | null = null;
  const get = (): Promise<CertificateKeys> =>
    (keys ??= loadOwn<typeof X509>('../../adapters/crypto/x509/index.js', () => import('../../adapters/crypto/x509/index.js')).then(
      (m) => new m.X509CertificateKeys(),
      (err: unknown) => {
        keys = null; // tried again by the next call
        throw err;
      },
    ));
  return {
    generate: async (names) => (await get()).generate(names),
    inspectCsr: async (pem) => (await get()).inspectCsr(pem),
    inspectCertificate: async (pem) => (await get()).inspectCertificate(pem),
  };
};

/** The certificates capability's use cases, constructed by hand from their ports (no decorators in core/). */
export const certificatesModule = () =>
  new ContainerModule(({ bind }) => {
    const s = id(T.Store);
    bind(T.CertificateKeys).toConstantValue(lazyCertificateKeys());
    bind(T.IssuanceQueue)
      .toResolvedValue((l: Logger) => new InProcessIssuanceQueue(l.child({ component: 'certificates' })), [T.Logger])
      .inSingletonScope();
    bind(T.Certificates)
      .toResolvedValue(
        (st: SqlStore, a, e, k, b, q: InProcessIssuanceQueue, i: CertificateIssuance, r, c, rec: Recorder) => {
          q.attach(i);
          return new Certificates({
            certificates: st.certificates,
            domains: st.domains,
            authorizer: a,
            environments: e,
            keys: k,
            box: b,
            queue: q,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
          });
        },
        [
          s,
          T.Authorizer,
          T.Environments,
          T.CertificateKeys,
          T.SecretBox,
          T.IssuanceQueue,
          T.CertificateIssuance,
          T.Random,
          T.Clock,
          T.Recorder,
        ],
      )
      .inSingletonScope();
    bind(T.CertificateIssuance)
      .toResolvedValue(
        (st: SqlStore, e, ch, k, b, at, r, c, cfg: Config, hub: ZonePublisherHub, log: Logger, rec: Recorder) =>
          new CertificateIssuance({
            certificates: st.certificates,
            environments: e,
            // Each environment's challenges are checked where its zones are served (production: sandbox
            // zones on SANDBOX_DNS_PORT, never on DNS_PORT).
            solverFor: (
              (test, live) => (c: Certificate) =>
                (c.environment === 'test' ? test : live)(c)
            )(
              zoneChallengeSolver(dns01Of(ch), new ServedByOurDns(hub, ownDns(cfg, 'test'))),
              zoneChallengeSolver(dns01Of(ch), new ServedByOurDns(hub, ownDns(cfg, 'live'))),
            ),
            keys: k,
            box: b,
            accountTime: at,
            events: rec,
            uow: st.uow,
            random: r,
            clock: c,
            options: { renewBeforeMs: cfg.certRenewBeforeDays * 24 * 3600_000, maxAttempts: 5 },
            onError: (err, certificateId) =>
              log.error({ err, certificateId, component: 'certificates' }, 'certificate run failed; retried on a later pass'),
          }),
        [
          s,
          T.Environments,
          T.AcmeChallenges,
          T.CertificateKeys,
          T.SecretBox,
          T.AccountTime,
          T.Random,
          T.Clock,
          T.Config,
          T.ZonePublisher,
          T.Logger,
          T.Recorder,
        ],
      )
      .inSingletonScope();
    bind(T.CertificateStatusQuery)
      .toResolvedValue((st: SqlStore) => new CertificateStatusQuery(st.certificates), [s])
      .inSingletonScope();
  });

const id = <X>(token: ServiceIdentifier<X>) => token;

/** Certificates' DNS-01 proofs go into our own zones through the ACME challenge use case. */
const dns01Of = (challenges: AcmeChallenges): Dns01Solver => ({
  present: (scope, zone, host, value, actor) => challenges.addFor(scope, zone, host, value, actor),
  cleanUp: (scope, handle, actor) => challenges.removeFor(scope, handle, actor),
});

/** What the routes (and the console) call of this capability. */
export const certificatesUseCases = (c: Container): Pick<UseCases, 'certificates'> => ({
  certificates: c.get(T.Certificates),
});
