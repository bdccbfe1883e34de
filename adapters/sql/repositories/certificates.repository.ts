import type { Certificate, CertificateAttempt, CertificateStatus } from '../../../core/certificates/certificate.js';
import type { CertificateRepository, DueQuery } from '../../../core/certificates/ports/certificate-repository.port.js';
import type { Environment } from '../../../core/kernel/environment.js';
import { bool, date, dateOrNull, iso, json, newestFirstPage, parse } from '../rows.js';
import type { Engine } from '../connection.js';
import type { KnexUnitOfWork } from '../unit-of-work.js';

type Row = {
  id: string;
  account_id: string;
  environment: string;
  names: string;
  status: string;
  ca: string;
  csr_pem: string;
  key_sealed: string | null;
  chain_pem: string | null;
  not_before: string | null;
  not_after: string | null;
  issuer: string | null;
  serial: string | null;
  failure_reason: string | null;
  attempts: number;
  next_attempt_at: string | null;
  renew_after: string | null;
  auto_renew: unknown;
  key_id: string | null;
  created_at: string;
  updated_at: string;
  issued_at: string | null;
  revoked_at: string | null;
};

const isoOrNull = (d: Date | null): string | null => (d ? iso(d) : null);

const mutable = (c: Certificate) => ({
  status: c.status,
  ca: c.ca,
  csr_pem: c.csrPem,
  key_sealed: c.keySealed,
  chain_pem: c.chainPem,
  not_before: isoOrNull(c.notBefore),
  not_after: isoOrNull(c.notAfter),
  issuer: c.issuer,
  serial: c.serial,
  failure_reason: c.failureReason,
  attempts: c.attempts,
  next_attempt_at: isoOrNull(c.nextAttemptAt),
  renew_after: isoOrNull(c.renewAfter),
  auto_renew: c.autoRenew,
  updated_at: iso(c.updatedAt),
  issued_at: isoOrNull(c.issuedAt),
  revoked_at: isoOrNull(c.revokedAt),
});

export class SqlCertificateRepository implements CertificateRepository {
  constructor(
    private readonly uow: KnexUnitOfWork,
    private readonly engine: Engine,
  ) {}

  async insert(c: Certificate): Promise<void> {
    await this.uow.transaction(async () => {
      const db = this.uow.db();
      await db('certificates').insert({
        id: c.id,
        account_id: c.accountId,
        environment: c.environment,
        names: json(c.names),
        key_id: c.keyId,
        created_at: iso(c.createdAt),
        ...mutable(c),
      });
      await db('certificate_domains').insert(
        c.domains.map((d) => ({ certificate_id: c.id, environment: c.environment, domain: d, created_at: iso(c.createdAt) })),
      );
    });
  }

  async update(c: Certificate, expected: CertificateStatus): Promise<boolean> {
    return (await this.uow.db()('certificates').where({ id: c.id, status: expected }).update(mutable(c))) > 0;
  }

  async find(id: string): Promise<Certificate | null> {
    const r: Row | undefined = await this.uow.db()('certificates').where({ id }).first();
    return r ? (await this.withDomains([r]))[0]! : null;
  }

  async list(accountId: string, environment: Environment, q: { before?: string; limit: number; domain?: string }): Promise<Certificate[]> {
    const db = this.uow.db();
    const sel = db('certificates as c').select('c.*').where({ 'c.account_id': accountId, 'c.environment': environment });
    if (q.domain) sel.whereExists(db('certificate_domains as d').whereRaw('d.certificate_id = c.id').andWhere('d.domain', q.domain));
    const rows: Row[] = await newestFirstPage(sel, 'c.created_at', 'c.id', q);
    return this.withDomains(rows);
  }

  async newestForDomains(environment: Environment, domains: readonly string[], limit: number): Promise<Certificate[]> {
    if (domains.length === 0) return [];
    const db = this.uow.db();
    // Driven by the (environment, domain, created_at) index of the links, newest first.
    const links: Array<{ certificate_id: string }> = await db('certificate_domains')
      .select('certificate_id')
      .where({ environment })
      .whereIn('domain', [...domains])
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'certificate_id', order: 'desc' },
      ])
      .limit(limit);
    const ids = [...new Set(links.map((l) => l.certificate_id))];
    if (ids.length === 0) return [];
    const rows: Row[] = await db('certificates').whereIn('id', ids);
    const order = new Map(ids.map((id, i) => [id, i]));
    return this.withDomains(rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!));
  }

  async lease(id: string, token: string, now: Date, until: Date): Promise<boolean> {
    const n = await this.uow
      .db()('certificates')
      .where({ id })
      .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', iso(now)))
      .update({ lock_token: token, lock_expires_at: iso(until) });
    return n > 0;
  }

  async claimDue(q: DueQuery): Promise<Certificate[]> {
    const ids: string[] = await this.uow.transaction(async () => {
      const db = this.uow.db();
      const now = iso(q.now);
      const accountNow = iso(q.accountNow);
      const sel = db('certificates')
        .select('id')
        .where({ environment: q.environment })
        .andWhere((w) =>
          w
            .where((p) => p.where('status', 'pending').andWhere('next_attempt_at', '<=', now))
            .orWhere((r) =>
              r.where('status', 'issued').andWhere((x) =>
                x
                  .where((y) =>
                    y
                      .where('auto_renew', true)
                      .andWhere('renew_after', '<=', accountNow)
                      .andWhere((z) => z.whereNull('next_attempt_at').orWhere('next_attempt_at', '<=', now)),
                  )
                  .orWhere('not_after', '<=', accountNow),
              ),
            ),
        )
        .andWhere((w) => w.whereNull('lock_expires_at').orWhere('lock_expires_at', '<', now))
        .orderBy('id')
        .limit(q.limit);
      if (q.accountId) sel.andWhere({ account_id: q.accountId });
      if (q.excludeAccounts && q.excludeAccounts.length > 0) sel.whereNotIn('account_id', [...q.excludeAccounts]);
      if (this.engine === 'postgres') sel.forUpdate().skipLocked();
      const found = (await sel).map((r: { id: string }) => r.id);
      if (found.length > 0)
        await db('certificates')
          .whereIn('id', found)
          .update({ lock_token: q.token, lock_expires_at: iso(q.leaseUntil) });
      return found;
    });
    if (ids.length === 0) return [];
    return this.withDomains(await this.uow.db()('certificates').whereIn('id', ids).orderBy('id'));
  }

  async releaseLease(id: string, token: string): Promise<void> {
    await this.uow.db()('certificates').where({ id, lock_token: token }).update({ lock_token: null, lock_expires_at: null });
  }

  async recordAttempt(a: CertificateAttempt): Promise<void> {
    await this.uow
      .db()('certificate_attempts')
      .insert({
        id: a.id,
        certificate_id: a.certificateId,
        kind: a.kind,
        outcome: a.outcome,
        reason: a.reason,
        started_at: iso(a.startedAt),
        finished_at: iso(a.finishedAt),
      });
  }

  async attempts(certificateId: string, limit: number): Promise<CertificateAttempt[]> {
    const rows = await this.uow
      .db()('certificate_attempts')
      .where({ certificate_id: certificateId })
      .orderBy([
        { column: 'started_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit);
    return rows.map((r: { id: string; kind: string; outcome: string; reason: string | null; started_at: string; finished_at: string }) => ({
      id: r.id,
      certificateId,
      kind: r.kind as CertificateAttempt['kind'],
      outcome: r.outcome as CertificateAttempt['outcome'],
      reason: r.reason,
      startedAt: date(r.started_at),
      finishedAt: date(r.finished_at),
    }));
  }

  private async withDomains(rows: Row[]): Promise<Certificate[]> {
    if (rows.length === 0) return [];
    const links: Array<{ certificate_id: string; domain: string }> = await this.uow
      .db()('certificate_domains')
      .whereIn(
        'certificate_id',
        rows.map((r) => r.id),
      )
      .orderBy('domain');
    const byId = new Map<string, string[]>();
    for (const l of links) {
      const list = byId.get(l.certificate_id) ?? [];
      list.push(l.domain);
      byId.set(l.certificate_id, list);
    }
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      environment: r.environment as Environment,
      names: parse<string[]>(r.names),
      domains: byId.get(r.id) ?? [],
      status: r.status as CertificateStatus,
      ca: r.ca,
      csrPem: r.csr_pem,
      keySealed: r.key_sealed,
      chainPem: r.chain_pem,
      notBefore: dateOrNull(r.not_before),
      notAfter: dateOrNull(r.not_after),
      issuer: r.issuer,
      serial: r.serial,
      failureReason: r.failure_reason,
      attempts: Number(r.attempts),
      nextAttemptAt: dateOrNull(r.next_attempt_at),
      renewAfter: dateOrNull(r.renew_after),
      autoRenew: bool(r.auto_renew),
      keyId: r.key_id,
      createdAt: date(r.created_at),
      updatedAt: date(r.updated_at),
      issuedAt: dateOrNull(r.issued_at),
      revokedAt: dateOrNull(r.revoked_at),
    }));
  }
}

/** The sandbox CA's material (one row) and ACME account keys: small key-value stores for the CA adapters. */
export class SqlCaMaterial {
  constructor(private readonly uow: KnexUnitOfWork) {}

  async loadSandbox<T>(): Promise<T | null> {
    const r = await this.uow.db()('sandbox_ca').where({ id: 'current' }).first();
    return r ? parse<T>(r.material) : null;
  }

  /** Stores the material unless another process stored its own first; returns the one that won. */
  async saveSandboxIfAbsent<T>(material: T): Promise<T> {
    await this.uow
      .db()('sandbox_ca')
      .insert({ id: 'current', material: json(material), created_at: iso(new Date()) })
      .onConflict('id')
      .ignore();
    return (await this.loadSandbox<T>())!;
  }

  async acmeAccountKey(directoryUrl: string): Promise<string | null> {
    const r = await this.uow.db()('acme_accounts').where({ directory_url: directoryUrl }).first();
    return r ? r.key_sealed : null;
  }

  async saveAcmeAccountKeyIfAbsent(directoryUrl: string, keySealed: string): Promise<string> {
    await this.uow
      .db()('acme_accounts')
      .insert({ directory_url: directoryUrl, key_sealed: keySealed, created_at: iso(new Date()) })
      .onConflict('directory_url')
      .ignore();
    return (await this.acmeAccountKey(directoryUrl))!;
  }
}
