import { Client } from 'acme-client';
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { baseHost } from '../../../core/certificates/certificate-names.js';
import {
  CertificateAuthorityError,
  type CertificateAuthority,
  type IssueOrder,
  type IssuedCertificate,
} from '../../../core/certificates/ports/certificate-authority.port.js';
import { csrProblem, issuedFrom } from './certificate.js';
import { AcmeNetworkError, Transport, type AcmeProblem, type CallContext } from './transport.js';

const ACME = 'urn:ietf:params:acme:error:';
/** RFC 8555 §6.7 types worth the same order again later; every other refusal needs a change first. */
const RETRYABLE = new Set(['rateLimited', 'serverInternal', 'badNonce'].map((t) => ACME + t));

export interface AcmeTimeouts {
  /** One HTTP request (default 30 000 ms). */
  readonly requestMs?: number;
  /** Retries after a network failure (not after an HTTP answer), default 2, waiting retryDelayMs × n. */
  readonly networkRetries?: number;
  readonly retryDelayMs?: number;
  /** Polling a challenge or order for its final status: attempts, first and longest wait (defaults 12, 1 000, 10 000 ms). */
  readonly pollAttempts?: number;
  readonly pollMinMs?: number;
  readonly pollMaxMs?: number;
}

export interface AcmeCertificateAuthorityConfig {
  /** The ACME directory (RFC 8555 §7.1.1), e.g. https://acme-v02.api.letsencrypt.org/directory. */
  readonly directoryUrl: string;
  /** The account key (PEM). Without it one is generated on first use: read it with accountKeyPem() to keep it. */
  readonly accountKeyPem?: string;
  /** Account contact (RFC 8555 §7.3): the CA's expiry and incident mail goes there. */
  readonly email?: string;
  /** RFC 8555 §7.3: we may only create an account after agreeing to the CA's terms. */
  readonly termsOfServiceAgreed: true;
  /** Extra trust anchor (PEM) for the ACME server's TLS certificate, e.g. Pebble's; the system roots stay trusted. */
  readonly caPem?: string;
  readonly timeouts?: AcmeTimeouts;
  /** Where best-effort failures (a proof that could not be cleaned up) are reported; pino-shaped. */
  readonly logger?: { warn(obj: object, msg: string): void };
}

interface ValidConfig extends AcmeCertificateAuthorityConfig {
  readonly timeouts: Required<AcmeTimeouts>;
}

const validate = (c: AcmeCertificateAuthorityConfig): ValidConfig => {
  let url: URL;
  try {
    url = new URL(c.directoryUrl);
  } catch {
    throw new Error(`ACME: directoryUrl is not a URL: ${String(c?.directoryUrl)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('ACME: directoryUrl must be http(s)');
  if (c.termsOfServiceAgreed !== true) throw new Error('ACME: termsOfServiceAgreed must be true to create an account (RFC 8555 §7.3)');
  if (c.email !== undefined && !/^[^\s@,<>]+@[^\s@,<>]+\.[^\s@,<>]+$/.test(c.email))
    throw new Error(`ACME: email is not an address: ${c.email}`);
  if (c.accountKeyPem !== undefined && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(c.accountKeyPem))
    throw new Error('ACME: accountKeyPem is not a PEM private key');
  if (c.caPem !== undefined && !/-----BEGIN CERTIFICATE-----/.test(c.caPem)) throw new Error('ACME: caPem is not a PEM certificate');
  const t = {
    requestMs: 30_000,
    networkRetries: 2,
    retryDelayMs: 2_000,
    pollAttempts: 12,
    pollMinMs: 1_000,
    pollMaxMs: 10_000,
    ...c.timeouts,
  };
  for (const [k, v] of Object.entries(t)) {
    if (!Number.isInteger(v) || v < 0 || (k !== 'networkRetries' && k !== 'retryDelayMs' && v === 0))
      throw new Error(`ACME: timeouts.${k} must be a positive integer`);
  }
  return { ...c, timeouts: t };
};

const oneLine = (s: string): string => s.replace(/\n/g, '');
/** Reasons are shown to users and stored: the CA's words, but not a whole HTML error page. */
const MAX_REASON = 1000;
const clip = (s: string): string => (s.length > MAX_REASON ? `${s.slice(0, MAX_REASON - 1)}…` : s);

/** "urn:…:type: detail", with the subproblems' identifiers and details (RFC 8555 §6.7.1). */
const describe = (p: Pick<AcmeProblem, 'type' | 'detail' | 'subproblems'>): string => {
  const subs = (p.subproblems ?? []).map(
    (s) => `${s.identifier?.value ? `${s.identifier.value}: ` : ''}${s.type ?? ''}${s.detail ? `: ${s.detail}` : ''}`,
  );
  return [`${p.type}: ${p.detail || '(no detail)'}`, ...subs].join('; ');
};

/** `challengeName`: where a failed DNS-01 proof was looked for, added when the CA's detail does not say (Pebble's does not). */
const fromProblem = (p: AcmeProblem, challengeName?: string): CertificateAuthorityError => {
  const reason = challengeName && !p.detail.includes(challengeName) ? `${describe(p)} (DNS-01 at ${challengeName})` : describe(p);
  return new CertificateAuthorityError(clip(reason), RETRYABLE.has(p.type) || p.status === 429 || p.status >= 500, p.type);
};

/** Any failure of an acme-client call as the port's error, with the server's own problem where it sent one. */
const toCaError = (err: unknown, ctx: CallContext): CertificateAuthorityError => {
  if (err instanceof CertificateAuthorityError) return err;
  if (err instanceof AcmeNetworkError) return new CertificateAuthorityError(`The ACME server could not be reached: ${err.message}`, true);
  const message = err instanceof Error ? err.message : String(err);
  const p = ctx.lastProblem;
  // acme-client throws Error(detail) for a problem answer: match it back to the document we saw.
  if (p && oneLine(p.detail) === message) return fromProblem(p);
  if (message === 'Operation is pending or processing')
    return new CertificateAuthorityError('The ACME server did not finish the order in time.', true);
  if (ctx.lastBareStatus !== null)
    return new CertificateAuthorityError(`The ACME server answered HTTP ${ctx.lastBareStatus} without a problem document.`, true);
  return new CertificateAuthorityError(clip(`ACME: ${message}`), true);
};

interface Proof {
  readonly authz: Awaited<ReturnType<Client['getAuthorizations']>>[number];
  readonly challenge: Awaited<ReturnType<Client['getAuthorizations']>>[number]['challenges'][number];
  readonly host: string;
  readonly digest: string;
}

/**
 * A CA spoken to over ACME (RFC 8555) with acme-client, proving control by DNS-01 only (§8.4) through the
 * order's solver: Let's Encrypt in production, Pebble in tests. Every proof of an order is published
 * before any challenge is answered (x and *.x need two values at one name at once), acme-client's own
 * pre-check through the system resolver is not used (our DNS is the authority; the CA asks it
 * directly), and every presented proof is cleaned up whatever happens.
 */
export class AcmeCertificateAuthority implements CertificateAuthority {
  readonly kind = 'acme' as const;
  private readonly config: ValidConfig;
  private readonly transport: Transport;
  private key: Promise<string> | null = null;
  private client: Promise<Client> | null = null;

  constructor(config: AcmeCertificateAuthorityConfig) {
    this.config = validate(config);
    const t = this.config.timeouts;
    this.transport = new Transport({
      requestTimeoutMs: t.requestMs,
      networkRetries: t.networkRetries,
      retryDelayMs: t.retryDelayMs,
      ...(config.caPem ? { caPem: config.caPem } : {}),
    });
  }

  /** The account key (PKCS#8 PEM): the configured one, or one generated once (ECDSA P-256) for the caller to persist. */
  accountKeyPem(): Promise<string> {
    this.key ??= this.config.accountKeyPem
      ? Promise.resolve(this.config.accountKeyPem)
      : promisify(generateKeyPair)('ec', { namedCurve: 'P-256' }).then(({ privateKey }) =>
          privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        );
    return this.key;
  }

  async issue(order: IssueOrder): Promise<IssuedCertificate> {
    const names = [...new Set(order.names.map((n) => n.toLowerCase()))];
    if (names.length === 0)
      throw new CertificateAuthorityError(`${ACME}malformed: an order needs at least one identifier`, false, `${ACME}malformed`);
    // Checked here rather than by the CA at finalize: a request that cannot be finalized makes no DNS motions.
    const problem = await csrProblem(order.csrPem, names);
    if (problem) throw new CertificateAuthorityError(`${ACME}badCSR: ${problem}`, false, `${ACME}badCSR`);

    return this.transport.run(async (ctx) => {
      const acme = <T>(fn: () => Promise<T>): Promise<T> => fn().catch((err: unknown) => Promise.reject(toCaError(err, ctx)));
      const client = await acme(() => this.account());
      const placed = await acme(() => client.createOrder({ identifiers: names.map((value) => ({ type: 'dns', value })) }));
      const authzs = await acme(() => client.getAuthorizations(placed));
      const proofs: Proof[] = [];
      for (const authz of authzs) {
        if (authz.status === 'valid') continue; // reused (RFC 8555 §7.1.4): nothing to prove
        const challenge = authz.challenges.find((c) => c.type === 'dns-01');
        if (authz.status !== 'pending' || !challenge) {
          throw new CertificateAuthorityError(
            `${authz.identifier.value}: ${!challenge ? 'the CA offers no dns-01 challenge' : `the authorization is ${authz.status}`}`,
            false,
          );
        }
        proofs.push({
          authz,
          challenge,
          host: baseHost(authz.identifier.value.toLowerCase()),
          digest: await client.getChallengeKeyAuthorization(challenge),
        });
      }

      const handles: string[] = [];
      let answered = false;
      try {
        for (const p of proofs) handles.push(await order.solver.present(p.host, p.digest));
        answered = true;
        await acme(() => Promise.all(proofs.map((p) => client.completeChallenge(p.challenge))));
        const outcomes = await Promise.allSettled(proofs.map((p) => client.waitForValidStatus(p.challenge)));
        const failed = outcomes.findIndex((o) => o.status === 'rejected');
        if (failed >= 0) throw await this.validationError(client, placed, proofs, (outcomes[failed] as PromiseRejectedResult).reason, ctx);
      } catch (err) {
        // Authorizations left pending count against the account's limit (RFC 8555 §7.5.2): give them up.
        if (!answered) await Promise.allSettled(proofs.map((p) => client.deactivateAuthorization(p.authz)));
        throw err;
      } finally {
        for (const h of handles) {
          await order.solver
            .cleanup(h)
            .catch((err: unknown) => this.config.logger?.warn({ err, handle: h }, 'ACME: a DNS-01 proof could not be cleaned up'));
        }
      }

      const finalized = await acme(() => client.finalizeOrder(placed, order.csrPem));
      const chain = await acme(() => client.getCertificate(finalized));
      try {
        return issuedFrom(chain);
      } catch (err) {
        throw new CertificateAuthorityError(`ACME: the issued certificate cannot be read: ${(err as Error).message}`, true);
      }
    });
  }

  /** RFC 8555 §7.6, signed with the account key (the account that ordered it). Already revoked counts as done. */
  async revoke(certificatePem: string, reason?: number): Promise<void> {
    return this.transport.run(async (ctx) => {
      try {
        const client = await this.account();
        await client.revokeCertificate(certificatePem, reason === undefined ? {} : { reason });
      } catch (err) {
        const e = toCaError(err, ctx);
        if (e.problemType === `${ACME}alreadyRevoked`) return;
        throw e;
      }
    });
  }

  async rootPem(): Promise<null> {
    return null;
  }

  /** Closes idle connections to the CA (tests; a server process just exits). */
  close(): void {
    this.transport.close();
  }

  /** The client with its account created or found (RFC 8555 §7.3); memoised, forgotten on failure. */
  private account(): Promise<Client> {
    this.client ??= (async () => {
      const t = this.config.timeouts;
      const client = new Client({
        directoryUrl: this.config.directoryUrl,
        accountKey: await this.accountKeyPem(),
        backoffAttempts: t.pollAttempts,
        backoffMin: t.pollMinMs,
        backoffMax: t.pollMaxMs,
      });
      await client.createAccount({
        termsOfServiceAgreed: true,
        ...(this.config.email ? { contact: [`mailto:${this.config.email}`] } : {}),
      });
      return client;
    })();
    this.client.catch(() => (this.client = null));
    return this.client;
  }

  /** The CA's own reason for a failed challenge, read back from the authorization (RFC 8555 §7.1.4 `error`). */
  private async validationError(
    client: Client,
    placed: Parameters<Client['getAuthorizations']>[0],
    proofs: Proof[],
    err: unknown,
    ctx: CallContext,
  ): Promise<CertificateAuthorityError> {
    const authzs = await client.getAuthorizations(placed).catch(() => []);
    for (const a of authzs) {
      const failed = a.challenges.find((c) => c.type === 'dns-01' && c.status === 'invalid' && c.error);
      if (failed?.error) {
        const e = failed.error as { type?: string; detail?: string; subproblems?: AcmeProblem['subproblems'] };
        const host = baseHost(a.identifier.value.toLowerCase());
        return fromProblem(
          {
            type: e.type ?? `${ACME}unauthorized`,
            detail: e.detail ?? '',
            status: 200,
            ...(e.subproblems ? { subproblems: e.subproblems } : {}),
          },
          `_acme-challenge.${host}`,
        );
      }
    }
    const mapped = toCaError(err, ctx);
    const hosts = [...new Set(proofs.map((p) => p.host))].map((h) => `_acme-challenge.${h}`).join(', ');
    return new CertificateAuthorityError(`${mapped.reason} (DNS-01 at ${hosts})`, mapped.retryable, mapped.problemType);
  }
}
