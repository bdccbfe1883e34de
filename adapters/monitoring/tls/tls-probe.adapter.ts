import type { LookupFunction } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { checkServerIdentity, connect, rootCertificates, type DetailedPeerCertificate } from 'node:tls';
import type { TlsSpec } from '../../../core/monitoring/monitor.js';
import type { ProbeOutcome, TlsProbe } from '../../../core/monitoring/ports/probes.port.js';

const DAY = 24 * 3600_000;

/** OpenSSL's verdicts about time alone: we judge validity periods on `now` (the account's clock in the sandbox). */
const TIME_ERRORS = new Set(['CERT_NOT_YET_VALID', 'CERT_HAS_EXPIRED']);

/**
 * The chain's signatures, checked link by link with node:crypto up to a root of `trusted` — used only
 * when OpenSSL's verdict was about time (OpenSSL reports one error, so a time error could hide another).
 */
const signaturesVerify = (peer: DetailedPeerCertificate, trusted: readonly string[]): boolean => {
  const roots = trusted
    .map((pem) => {
      try {
        return new X509Certificate(pem);
      } catch {
        return null;
      }
    })
    .filter((c): c is X509Certificate => c !== null);
  let cert = new X509Certificate(peer.raw);
  let next: DetailedPeerCertificate | undefined = peer.issuerCertificate;
  for (let depth = 0; depth < 10; depth++) {
    const root = roots.find((r) => cert.checkIssued(r) && cert.verify(r.publicKey));
    if (root) return true;
    if (!next || next === peer || next.raw.equals(cert.raw)) return false;
    const issuer = new X509Certificate(next.raw);
    if (!cert.checkIssued(issuer) || !cert.verify(issuer.publicKey) || !issuer.ca) return false;
    cert = issuer;
    next = next.issuerCertificate === next ? undefined : next.issuerCertificate;
  }
  return false;
};

export interface TlsProbeOptions {
  /** Connect-time resolver: the SSRF guard's (live) or one asking our own DNS (sandbox). */
  readonly lookup: LookupFunction;
  /** Roots trusted besides Node's bundled Mozilla store (the sandbox CA's root in the test environment). */
  readonly ca?: () => Promise<readonly string[]>;
}

/**
 * The tls probe: a TLS handshake with SNI, then — from node:tls against the trust store — the chain
 * verdict (`authorized` / `authorizationError`), the host name against the certificate
 * (tls.checkServerIdentity, RFC 6125), and the days left before notAfter, measured from `now`.
 */
export class TlsProbeAdapter implements TlsProbe {
  constructor(private readonly options: TlsProbeOptions) {}

  async check(spec: TlsSpec, now: Date, timeoutMs: number): Promise<ProbeOutcome> {
    const extra = this.options.ca ? await this.options.ca() : [];
    const started = performance.now();
    return new Promise<ProbeOutcome>((resolve) => {
      // Time validity is judged below against `now`, each certificate of the chain included.
      let done = false;
      const finish = (o: ProbeOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        socket.destroy();
        resolve(o);
      };
      const socket = connect({
        host: spec.host,
        port: spec.port,
        servername: spec.host,
        lookup: this.options.lookup,
        ca: [...rootCertificates, ...extra],
        rejectUnauthorized: false,
        ALPNProtocols: ['http/1.1'],
      });
      const timer = setTimeout(
        () => finish({ ok: false, latencyMs: null, reason: `no handshake within ${timeoutMs} ms`, detail: { timeout_ms: timeoutMs } }),
        timeoutMs,
      );
      socket.on('error', (err: NodeJS.ErrnoException) => {
        const refused = (err as { code?: string }).code === 'ssrf_refused';
        finish({
          ok: false,
          latencyMs: null,
          reason: refused ? `target refused: ${err.message}` : `handshake failed: ${err.code ?? err.message}`,
          detail: refused ? { refused: true } : { error: err.code ?? err.message },
        });
      });
      socket.once('secureConnect', () => {
        const latencyMs = Math.round(performance.now() - started);
        const cert = socket.getPeerCertificate(true) as DetailedPeerCertificate;
        if (!cert || !cert.valid_to) return finish({ ok: false, latencyMs, reason: 'the server sent no certificate', detail: {} });
        const notAfter = new Date(cert.valid_to);
        const notBefore = new Date(cert.valid_from);
        const daysLeft = Math.floor((notAfter.getTime() - now.getTime()) / DAY);
        const chain: string[] = [];
        for (
          let c: DetailedPeerCertificate | undefined = cert;
          c && chain.length < 10;
          c = c.issuerCertificate === c ? undefined : c.issuerCertificate
        ) {
          chain.push(typeof c.subject?.CN === 'string' ? c.subject.CN : JSON.stringify(c.subject));
        }
        const detail = {
          subject: cert.subject?.CN ?? null,
          issuer: cert.issuer?.CN ?? null,
          not_before: notBefore.toISOString(),
          not_after: notAfter.toISOString(),
          days_left: daysLeft,
          serial: cert.serialNumber,
          chain,
          protocol: socket.getProtocol(),
        };
        const verdict = socket.authorized
          ? null
          : String((socket.authorizationError as unknown as { code?: string })?.code ?? socket.authorizationError);
        // Node checks the name only once the chain verified: a name error means the chain is fine (the name is judged below).
        const chainOk =
          verdict === null ||
          verdict === 'ERR_TLS_CERT_ALTNAME_INVALID' ||
          (TIME_ERRORS.has(verdict) && signaturesVerify(cert, [...rootCertificates, ...extra]));
        if (!chainOk)
          return finish({
            ok: false,
            latencyMs,
            reason: `the chain does not verify: ${verdict}`,
            detail: { ...detail, authorized: false },
          });
        const identity = checkServerIdentity(spec.host, cert);
        if (identity)
          return finish({ ok: false, latencyMs, reason: `the certificate does not cover ${spec.host}: ${identity.message}`, detail });
        for (
          let c: DetailedPeerCertificate | undefined = cert.issuerCertificate, i = 0;
          c && c !== cert && i < 10;
          c = c.issuerCertificate === c ? undefined : c.issuerCertificate, i++
        ) {
          if (now < new Date(c.valid_from) || now > new Date(c.valid_to))
            return finish({
              ok: false,
              latencyMs,
              reason: `the chain certificate ${String(c.subject?.CN)} is not valid at ${now.toISOString()}`,
              detail,
            });
        }
        if (now < notBefore)
          return finish({ ok: false, latencyMs, reason: `the certificate is not valid before ${notBefore.toISOString()}`, detail });
        if (daysLeft < 0) return finish({ ok: false, latencyMs, reason: `the certificate expired on ${notAfter.toISOString()}`, detail });
        if (daysLeft < spec.minDaysValid)
          return finish({
            ok: false,
            latencyMs,
            reason: `the certificate expires in ${daysLeft} days (fewer than ${spec.minDaysValid})`,
            detail,
          });
        finish({ ok: true, latencyMs, reason: null, detail });
      });
    });
  }
}
