import type { RecordingDeps } from '../kernel/recording-deps.js';
import type { Authorizer } from '../access/authorize.js';
import { actorOf, type ApiKey } from '../kernel/caller.js';
import type { RightName } from '../kernel/rights.js';
import type { DomainRepository } from '../domains/ports/domain-repository.port.js';
import type { CaEnvironments } from './ports/certificate-authority.port.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import { DomainError } from '../kernel/errors.js';
import { filteredPage, memoized, type Page } from '../kernel/pagination.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import { viewCertificate, type Certificate, type CertificateView } from './certificate.js';
import { baseHost, normalizeNames, sameNames, suffixes } from './certificate-names.js';
import { CertificateAuthorityError } from './ports/certificate-authority.port.js';
import { MalformedCertificateInput, type CertificateKeys } from './ports/certificate-keys.port.js';
import type { CertificateRepository } from './ports/certificate-repository.port.js';

/** Hands a new or changed certificate to whoever runs the CA (the in-process runner, else the worker). */
export interface IssuanceQueue {
  enqueue(certificateId: string): void;
}

export interface RequestCertificateInput {
  readonly domains: readonly string[];
  readonly csr?: string;
  readonly auto_renew?: boolean;
}

/** What Certificates is built from (one object, named, instead of positions). */
export interface CertificatesDeps extends RecordingDeps {
  readonly certificates: CertificateRepository;
  readonly domains: DomainRepository;
  readonly authorizer: Authorizer;
  readonly environments: CaEnvironments;
  readonly keys: CertificateKeys;
  readonly box: SecretBox;
  readonly queue: IssuanceQueue;
}

/**
 * POST/GET /v1/certificates… (cert.issue class 1, cert.read class 0). A request is accepted
 * at once (202, pending) and issued by the CA outside the request: the sandbox CA in milliseconds, a
 * public CA after its DNS-01 validation. Every name must lie in a domain of the account that the key
 * may issue for; a certificate is visible to keys that may read all of its domains.
 */
export class Certificates {
  constructor(private readonly deps: CertificatesDeps) {}

  async request(key: ApiKey, input: RequestCertificateInput): Promise<CertificateView> {
    const names = normalizeNames(input.domains);
    const domains = await this.domainsFor(key, names);
    for (const d of domains) await this.deps.authorizer.check(key, 'cert.issue', d);
    const ca = this.deps.environments.get(key.environment).ca; // live without a CA: 503 environment_unavailable
    let csrPem: string;
    let keySealed: string | null = null;
    if (input.csr !== undefined) {
      csrPem = input.csr.trim() + '\n';
      const info = await this.deps.keys.inspectCsr(csrPem).catch((err: unknown) => {
        if (err instanceof MalformedCertificateInput) throw new DomainError('csr_invalid', { reason: err.detail });
        throw err;
      });
      if (!info.signatureValid) throw new DomainError('csr_invalid', { reason: 'the signature does not verify' });
      if (!sameNames(info.names, names) || info.otherNames.length > 0) {
        throw new DomainError('csr_names_mismatch', { csr_names: [...info.names, ...info.otherNames], domains: names });
      }
    } else {
      const generated = await this.deps.keys.generate(names);
      csrPem = generated.csrPem;
      keySealed = this.deps.box.seal(generated.privateKeyPem);
    }
    const now = this.deps.clock.now();
    const cert: Certificate = {
      id: `crt_${this.deps.random.id()}`,
      accountId: key.accountId,
      environment: key.environment,
      names,
      domains,
      status: 'pending',
      ca: ca.kind,
      csrPem,
      keySealed,
      chainPem: null,
      notBefore: null,
      notAfter: null,
      issuer: null,
      serial: null,
      failureReason: null,
      attempts: 0,
      nextAttemptAt: now,
      renewAfter: null,
      autoRenew: input.auto_renew ?? true,
      keyId: key.id,
      createdAt: now,
      updatedAt: now,
      issuedAt: null,
      revokedAt: null,
    };
    await this.deps.uow.transaction(async () => {
      await this.deps.certificates.insert(cert);
      await this.deps.events.record(
        'certificate.requested',
        {
          accountId: key.accountId,
          environment: key.environment,
          subject: `certificate:${cert.id}`,
          actor: actorOf(key),
          occurredAt: now,
        },
        { names, domains, ca: ca.kind, csr: input.csr !== undefined },
      );
      this.deps.uow.afterCommit(() => this.deps.queue.enqueue(cert.id));
    });
    return viewCertificate(cert);
  }

  async list(key: ApiKey, q: { cursor?: string; limit?: number; domain?: string }): Promise<Page<CertificateView>> {
    // ?domain= takes a registered domain (every certificate in it) or a host below one (the
    // certificates whose names cover it: the host itself or the wildcard of its parent).
    const host = q.domain !== undefined ? normalizeDomain(q.domain) : undefined;
    const domain = host !== undefined ? ((await this.registeredDomainOf(key, host)) ?? host) : undefined;
    await this.deps.authorizer.check(key, 'cert.read', domain); // held somewhere (or on that domain)
    const covers = (c: Certificate): boolean =>
      host === undefined || host === domain || c.names.includes(host) || c.names.includes(`*.${host.slice(host.indexOf('.') + 1)}`);
    const readable = memoized((d) => this.deps.authorizer.allows(key, 'cert.read', d));
    const visible = async (c: Certificate): Promise<boolean> => {
      for (const d of c.domains) if (!(await readable(d))) return false;
      return true;
    };
    return filteredPage({
      cursor: q.cursor,
      limit: q.limit,
      fetch: (before, limit) =>
        this.deps.certificates.list(key.accountId, key.environment, {
          ...(before ? { before } : {}),
          limit,
          ...(domain ? { domain } : {}),
        }),
      sortKey: cursorOf,
      keep: async (c) => covers(c) && (await visible(c)),
      view: viewCertificate,
    });
  }

  async get(key: ApiKey, id: string): Promise<CertificateView> {
    return viewCertificate(await this.load(key, id, 'cert.read'));
  }

  /** The chain as PEM (leaf first), for an issued (or since expired or revoked) certificate. */
  async chain(key: ApiKey, id: string): Promise<string> {
    const c = await this.load(key, id, 'cert.read');
    if (!c.chainPem) throw new DomainError('certificate_not_ready', { certificate_id: id, status: c.status });
    return c.chainPem;
  }

  /** The private key we generated: only to keys that may issue for every name (never read-only keys). */
  async privateKey(key: ApiKey, id: string): Promise<string> {
    const c = await this.load(key, id, 'cert.issue');
    if (!c.keySealed) throw new DomainError('private_key_not_held', { certificate_id: id });
    await this.deps.uow.transaction(() =>
      this.deps.events.record(
        'certificate.private_key_read',
        {
          accountId: c.accountId,
          environment: c.environment,
          subject: `certificate:${c.id}`,
          actor: actorOf(key),
          occurredAt: this.deps.clock.now(),
        },
        {},
      ),
    );
    return this.deps.box.open(c.keySealed);
  }

  /** Revokes an issued certificate at its CA (RFC 8555 §7.6), then marks it revoked. */
  async revoke(key: ApiKey, id: string, reason = 0): Promise<CertificateView> {
    const c = await this.load(key, id, 'cert.issue');
    if (c.status === 'revoked') return viewCertificate(c);
    if (c.status !== 'issued' || !c.chainPem) throw new DomainError('certificate_not_revocable', { certificate_id: id, status: c.status });
    const ca = this.deps.environments.get(c.environment).ca;
    try {
      await ca.revoke(c.chainPem, reason);
    } catch (err) {
      if (err instanceof CertificateAuthorityError) throw new DomainError('certificate_authority_failed', { reason: err.reason });
      throw err;
    }
    const now = this.deps.clock.now();
    const revoked: Certificate = { ...c, status: 'revoked', revokedAt: now, updatedAt: now, nextAttemptAt: null };
    const written = await this.deps.uow.transaction(async () => {
      // Conditional: a renewal finishing meanwhile must not bring the certificate back, nor this undo it.
      if (!(await this.deps.certificates.update(revoked, 'issued'))) return false;
      await this.deps.events.record(
        'certificate.revoked',
        { accountId: c.accountId, environment: c.environment, subject: `certificate:${c.id}`, actor: actorOf(key), occurredAt: now },
        { reason, serial: c.serial },
      );
      return true;
    });
    if (!written) {
      // Renewed in place while we revoked at the CA: revoke what is current now.
      const current = await this.deps.certificates.find(id);
      if (current?.status === 'revoked') return viewCertificate(current);
      return this.revoke(key, id, reason);
    }
    return viewCertificate(revoked);
  }

  /** The sandbox CA's root (PEM), for users to verify sandbox chains. */
  async trustRoot(): Promise<string> {
    const root = await this.deps.environments.get('test').ca.rootPem();
    if (!root) throw new DomainError('not_found');
    return root;
  }

  private async load(key: ApiKey, id: string, right: RightName): Promise<Certificate> {
    const c = await this.deps.certificates.find(id);
    if (!c || c.accountId !== key.accountId || c.environment !== key.environment)
      throw new DomainError('certificate_not_found', { certificate_id: id });
    for (const d of c.domains) await this.deps.authorizer.check(key, right, d);
    return c;
  }

  /** The account's registered domain holding `host` (the longest match), or null. */
  private async registeredDomainOf(key: ApiKey, host: string, known = new Map<string, boolean>()): Promise<string | null> {
    for (const candidate of suffixes(host)) {
      let exists = known.get(candidate);
      if (exists === undefined) {
        exists = (await this.deps.domains.find(key.accountId, key.environment, candidate)) !== null;
        known.set(candidate, exists);
      }
      if (exists) return candidate;
    }
    return null;
  }

  /** The account's registered domain holding each name (longest match); a name outside them is refused. */
  private async domainsFor(key: ApiKey, names: readonly string[]): Promise<string[]> {
    const found = new Set<string>();
    const known = new Map<string, boolean>();
    for (const name of names) {
      const owner = await this.registeredDomainOf(key, baseHost(name), known);
      if (!owner) {
        // Ask the authorizer first: a key that may not issue for the name learns nothing about the account.
        await this.deps.authorizer.check(key, 'cert.issue', suffixes(baseHost(name)).at(-1)!);
        throw new DomainError('domain_not_found', { domain: name });
      }
      found.add(owner);
    }
    return [...found].sort();
  }
}

const cursorOf = (c: Certificate): string => `${c.createdAt.toISOString()}|${c.id}`;
