import { createHash, randomBytes } from 'node:crypto';
import { ALL_REGISTRAR_CAPABILITIES } from '../../../core/domains/capabilities.js';
import { yearlyPrice } from '../../../core/domains/price-list.js';
import {
  RegistryError,
  type Availability,
  type DsRecord,
  type RegisterRequest,
  type Registrar,
  type RegistrarCapability,
  type RegistrantContact,
  type RegistryDomainInfo,
  type RegistryRefusal,
  type RegistryResult,
  type RenewRequest,
  type TransferRequest,
  type TransferState,
  type TransferStatus,
} from '../../../core/domains/ports/registrar.port.js';
import type { RegistryMessage, RegistryMessages } from '../../../core/domains/ports/registry-messages.port.js';
import { EppPool, EppTransportError, type EppClientOptions, type EppSession } from './client.js';
import { attr, buildCommand, child, children, NS, text, type EppResponse, type XmlNode } from './xml.js';

/**
 * The EPP registrar (RFC 5730–5734, 3915, 8748): speaks to a registry over TLS with client
 * certificates. Every write carries a clTRID derived from our client transaction id, so a retried write
 * (after a dropped connection) is the same transaction to the registry.
 */
export interface EppRegistrarOptions {
  /** Nameservers used when a registration names none (a registered name always has nameservers). */
  readonly defaultNameservers: readonly string[];
  /** Retries of a command whose connection failed mid-way (same clTRID each time). */
  readonly retries: number;
  /** How long a DS read is answered again without asking the registry (0: never); see dsRecords. */
  readonly dsReadCacheMs?: number;
  /** The time in ms (the DS reads' age); default the wall clock. */
  readonly now?: () => number;
}

/** DS reads kept at once; past it the oldest goes (a Map iterates in insertion order). */
const DS_READS_KEPT = 10_000;

/** A price the registry quotes (RFC 8748 fee extension) or our price list gives. */
export interface Quote {
  readonly domain: string;
  readonly years: number;
  /** Kopiykas, or null when neither the registry nor the price list knows the name. */
  readonly amount: number | null;
  readonly currency: string;
  readonly source: 'registry_fee' | 'price_list';
}

const REFUSALS: Readonly<Record<number, RegistryRefusal>> = {
  2201: 'registry_not_authorized',
  2106: 'registry_policy_refused',
  2202: 'registry_auth_info_invalid',
  2300: 'registry_status_prohibits',
  2301: 'registry_status_prohibits',
  2303: 'registry_object_missing',
  2304: 'registry_status_prohibits',
  2306: 'registry_parameter_rejected',
  2308: 'registry_policy_refused',
};
/** Result codes that say "the registry could not do it now" rather than "no". */
const OUTAGES = new Set([2400, 2500, 2501, 2502]);

/** EPP clTRID is 3–64 characters: ours are `dmk-<id>`, hashed when the id is long. */
export const clTRIDFor = (clientTransactionId: string, suffix = ''): string => {
  const raw = `dmk-${clientTransactionId}${suffix}`;
  return raw.length <= 64 ? raw : `dmk-${createHash('sha256').update(raw).digest('hex').slice(0, 40)}`;
};

const dateOf = (dateTime: string): string => dateTime.slice(0, 10);

export class EppRegistrar implements Registrar, RegistryMessages {
  readonly name = 'epp';
  readonly capabilities: ReadonlySet<RegistrarCapability> = new Set(ALL_REGISTRAR_CAPABILITIES);
  private readonly pool: EppPool;
  /** Our client id at the registry: a transfer's reID (we asked) or acID (we are asked) tells its direction. */
  private readonly clientId: string;
  /** Recent DS reads by domain (dsRecords): the answer, or the read under way, and until when it stands. */
  private readonly dsReads = new Map<string, { readonly until: number; readonly answer: Promise<DsRecord[]> }>();

  constructor(
    client: EppClientOptions,
    private readonly options: EppRegistrarOptions,
  ) {
    if (options.defaultNameservers.length < 1) throw new Error('EPP registrar needs at least one default nameserver');
    this.pool = new EppPool(client);
    this.clientId = client.clientId;
  }

  /** <domain:trnData> (RFC 5731 §3.2.4) as a transfer state; the direction from reID/acID against our client id. */
  private transferState(trn: XmlNode | undefined, domain: string): TransferState | null {
    if (!trn) return null;
    const reID = text(child(trn, 'reID'));
    const exDate = text(child(trn, 'exDate'));
    return {
      domain: text(child(trn, 'name')) || domain,
      status: text(child(trn, 'trStatus')) as TransferStatus,
      direction: reID.toLowerCase() === this.clientId.toLowerCase() ? 'in' : 'out',
      requestedAt: text(child(trn, 'reDate')),
      actionAt: text(child(trn, 'acDate')),
      registeredUntil: exDate ? dateOf(exDate) : null,
    };
  }

  /** <transfer op="…"> (RFC 5731 §3.2.4); `period` and `authInfo` only for a request. */
  private async transferCommand(
    op: 'request' | 'query' | 'cancel' | 'reject',
    domain: string,
    clTRID: string | null,
    extra: { years?: number; authCode?: string } = {},
  ): Promise<EppResponse> {
    return this.run((s) =>
      buildCommand(
        'transfer',
        {
          'domain:transfer': {
            '@_xmlns:domain': NS.domain,
            'domain:name': domain,
            ...(extra.years ? { 'domain:period': { '#text': extra.years, '@_unit': 'y' } } : {}),
            ...(extra.authCode !== undefined ? { 'domain:authInfo': { 'domain:pw': extra.authCode } } : {}),
          },
        },
        clTRID ?? s.nextTrid('dmk-trq'),
        undefined,
        { '@_op': op },
      ),
    );
  }

  /** op="request": 1001 (pending) with trnData; 2202 wrong authInfo, 2304 locked, 2300 already pending. */
  async requestTransfer(req: TransferRequest): Promise<TransferState> {
    const res = this.ok(
      await this.transferCommand('request', req.domain, clTRIDFor(req.clientTransactionId), { years: req.years, authCode: req.authCode }),
      `domain:transfer request ${req.domain}`,
    );
    const state = this.transferState(child(res.resData, 'trnData'), req.domain);
    return state ?? (await this.queryTransfer(req.domain))!;
  }

  async queryTransfer(domain: string): Promise<TransferState | null> {
    const res = await this.transferCommand('query', domain, null);
    if ([2301, 2303].includes(res.results[0]?.code ?? 0)) return null;
    return this.transferState(child(this.ok(res, `domain:transfer query ${domain}`).resData, 'trnData'), domain);
  }

  async cancelTransfer(domain: string, clientTransactionId: string): Promise<TransferState> {
    const res = this.ok(await this.transferCommand('cancel', domain, clTRIDFor(clientTransactionId)), `domain:transfer cancel ${domain}`);
    return this.transferState(child(res.resData, 'trnData'), domain) ?? (await this.queryTransfer(domain))!;
  }

  async rejectTransfer(domain: string, clientTransactionId: string): Promise<TransferState> {
    const res = this.ok(await this.transferCommand('reject', domain, clTRIDFor(clientTransactionId)), `domain:transfer reject ${domain}`);
    return this.transferState(child(res.resData, 'trnData'), domain) ?? (await this.queryTransfer(domain))!;
  }

  /** Sends one command (retrying on a new session when the connection failed; the clTRID stays the same). */
  private async run(build: (s: EppSession) => string): Promise<EppResponse> {
    let last: Error | null = null;
    for (let attempt = 0; attempt <= this.options.retries; attempt++) {
      try {
        return await this.pool.use((s) => s.command(build(s)));
      } catch (err) {
        if (!(err instanceof EppTransportError)) throw err;
        last = err;
      }
    }
    throw new RegistryError('unavailable', `registry unreachable: ${last?.message ?? 'unknown'}`, null, null, null);
  }

  /** The response, or a RegistryError for a 2xxx result (2302 is left to the caller when `allow` has it). */
  /** RFC 5731 §3.2.5 <domain:update> with its add/rem/chg parts (and an extension, as RFC 5910's secDNS:update). */
  private async updateDomain(
    domain: string,
    clientTransactionId: string,
    parts: XmlNode,
    extension?: XmlNode,
    what = `domain:update ${domain}`,
  ): Promise<void> {
    this.ok(
      await this.run(() =>
        buildCommand(
          'update',
          { 'domain:update': { '@_xmlns:domain': NS.domain, 'domain:name': domain, ...parts } },
          clTRIDFor(clientTransactionId),
          extension,
        ),
      ),
      what,
    );
  }

  private ok(res: EppResponse, what: string, allow: readonly number[] = []): EppResponse {
    const r = res.results[0];
    if (!r) throw new RegistryError('unavailable', `${what}: empty EPP response`);
    if (r.code < 2000 || allow.includes(r.code)) return res;
    const detail = `${what}: EPP ${r.code} ${r.message}${r.reasons.length ? ` (${r.reasons.join('; ')})` : ''}`;
    if (OUTAGES.has(r.code)) throw new RegistryError('unavailable', detail, null, null, r.code);
    throw new RegistryError('rejected', detail, null, REFUSALS[r.code] ?? null, r.code);
  }

  private async greeting() {
    return this.pool.ensureGreeting();
  }

  async check(domains: readonly string[]): Promise<Availability[]> {
    if (domains.length === 0) return [];
    const avail = await this.checkObjects('domain', domains, 'dmk-chk');
    const out: Availability[] = [];
    for (const domain of domains) {
      const available = avail.get(domain.toLowerCase()) ?? false;
      // A taken name's expiry comes from domain:info, where the registry allows it to non-sponsors.
      const registeredUntil = available ? null : ((await this.info(domain).catch(() => null))?.registeredUntil ?? null);
      out.push({ domain, available, registeredUntil });
    }
    return out;
  }

  /** A `<check>` of domain or host objects: whether each name is available, by its name in lower case. */
  private async checkObjects(object: 'domain' | 'host', names: readonly string[], tridPrefix: string): Promise<Map<string, boolean>> {
    const ns = object === 'domain' ? NS.domain : NS.host;
    const res = this.ok(
      await this.run((s) =>
        buildCommand(
          'check',
          { [`${object}:check`]: { [`@_xmlns:${object}`]: ns, [`${object}:name`]: [...names] } },
          s.nextTrid(tridPrefix),
        ),
      ),
      `${object}:check`,
    );
    const avail = new Map<string, boolean>();
    for (const cd of children(child(res.resData, 'chkData'), 'cd')) {
      const n = child(cd, 'name');
      avail.set(text(n).toLowerCase(), ['1', 'true'].includes(attr(n, 'avail') ?? ''));
    }
    return avail;
  }

  private async infoData(domain: string): Promise<XmlNode | null> {
    const res = await this.run((s) =>
      buildCommand(
        'info',
        {
          'domain:info': { '@_xmlns:domain': NS.domain, 'domain:name': { '#text': domain, '@_hosts': 'all' } },
        },
        s.nextTrid('dmk-inf'),
      ),
    );
    if (res.results[0]?.code === 2303) return null;
    return child(this.ok(res, `domain:info ${domain}`).resData, 'infData') ?? null;
  }

  async info(domain: string): Promise<RegistryDomainInfo | null> {
    const d = await this.infoData(domain);
    if (!d) return null;
    const ns = child(d, 'ns');
    const nameservers = [...children(ns, 'hostObj').map(text), ...children(ns, 'hostAttr').map((h) => text(child(h, 'hostName')))];
    return {
      domain,
      registeredUntil: dateOf(text(child(d, 'exDate'))),
      status: children(d, 'status')
        .map((s) => attr(s, 's') ?? '')
        .filter(Boolean),
      nameservers,
    };
  }

  /** Host objects when the greeting offers host-1.0 (creating the ones the registry lacks), else attributes. */
  private async nsElement(nameservers: readonly string[], clientTransactionId: string): Promise<XmlNode> {
    const g = await this.greeting();
    if (!g.objURIs.includes(NS.host)) return { 'domain:hostAttr': nameservers.map((h) => ({ 'domain:hostName': h })) };
    const hosts = await this.checkObjects('host', nameservers, 'dmk-hchk');
    const missing = nameservers.filter((h) => hosts.get(h.toLowerCase()) === true);
    for (const [i, host] of missing.entries()) {
      const res = await this.run(() =>
        buildCommand(
          'create',
          {
            'host:create': { '@_xmlns:host': NS.host, 'host:name': host },
          },
          clTRIDFor(clientTransactionId, `-h${i}`),
        ),
      );
      this.ok(res, `host:create ${host}`, [2302]);
    }
    return { 'domain:hostObj': [...nameservers] };
  }

  async register(req: RegisterRequest): Promise<RegistryResult> {
    const nameservers = req.nameservers.length > 0 ? req.nameservers : this.options.defaultNameservers;
    const ns = await this.nsElement(nameservers, req.clientTransactionId);
    const res = await this.run(() =>
      buildCommand(
        'create',
        {
          'domain:create': {
            '@_xmlns:domain': NS.domain,
            'domain:name': req.domain,
            'domain:period': { '#text': req.years, '@_unit': 'y' },
            'domain:ns': ns,
            'domain:authInfo': { 'domain:pw': newAuthInfo() },
          },
        },
        clTRIDFor(req.clientTransactionId),
      ),
    );
    if (res.results[0]?.code === 2302) {
      const holder = await this.info(req.domain).catch(() => null);
      throw new RegistryError('taken', `${req.domain} is registered`, holder?.registeredUntil ?? null, null, 2302);
    }
    const cre = child(this.ok(res, `domain:create ${req.domain}`).resData, 'creData');
    let exDate = text(child(cre, 'exDate'));
    if (!exDate) exDate = (await this.info(req.domain))?.registeredUntil ?? '';
    return { domain: req.domain, registeredUntil: dateOf(exDate) };
  }

  async renew(req: RenewRequest): Promise<RegistryResult> {
    const res = this.ok(
      await this.run(() =>
        buildCommand(
          'renew',
          {
            'domain:renew': {
              '@_xmlns:domain': NS.domain,
              'domain:name': req.domain,
              'domain:curExpDate': req.currentExpiry,
              'domain:period': { '#text': req.years, '@_unit': 'y' },
            },
          },
          clTRIDFor(req.clientTransactionId),
        ),
      ),
      `domain:renew ${req.domain}`,
    );
    let exDate = text(child(child(res.resData, 'renData'), 'exDate'));
    if (!exDate) exDate = (await this.info(req.domain))?.registeredUntil ?? '';
    return { domain: req.domain, registeredUntil: dateOf(exDate) };
  }

  private async mustInfo(domain: string): Promise<XmlNode> {
    const d = await this.infoData(domain);
    if (!d) throw new RegistryError('rejected', `${domain} is not registered at the registry`, null, 'registry_object_missing', 2303);
    return d;
  }

  async setNameservers(domain: string, nameservers: readonly string[], clientTransactionId: string): Promise<void> {
    const current = await this.info(domain);
    if (!current) throw new RegistryError('rejected', `${domain} is not registered at the registry`, null, 'registry_object_missing', 2303);
    const want = nameservers.map((n) => n.toLowerCase());
    const have = current.nameservers.map((n) => n.toLowerCase());
    const add = want.filter((n) => !have.includes(n));
    const rem = have.filter((n) => !want.includes(n));
    if (add.length === 0 && rem.length === 0) return;
    const addNs = add.length > 0 ? await this.nsElement(add, clientTransactionId) : null;
    const remNs =
      rem.length > 0
        ? 'domain:hostAttr' in (addNs ?? {}) || !(await this.greeting()).objURIs.includes(NS.host)
          ? { 'domain:hostAttr': rem.map((h) => ({ 'domain:hostName': h })) }
          : { 'domain:hostObj': rem }
        : null;
    await this.updateDomain(domain, clientTransactionId, {
      ...(addNs ? { 'domain:add': { 'domain:ns': addNs } } : {}),
      ...(remNs ? { 'domain:rem': { 'domain:ns': remNs } } : {}),
    });
  }

  async setTransferLock(domain: string, locked: boolean, clientTransactionId: string): Promise<void> {
    const d = await this.mustInfo(domain);
    const has = children(d, 'status').some((s) => attr(s, 's') === 'clientTransferProhibited');
    if (has === locked) return;
    const change = { 'domain:status': { '@_s': 'clientTransferProhibited' } };
    await this.updateDomain(domain, clientTransactionId, locked ? { 'domain:add': change } : { 'domain:rem': change });
  }

  /**
   * DNSSEC at the registry (RFC 5910, secDNS-1.1, dsData interface): a `<domain:update>` naming only the
   * domain, with `<secDNS:update><secDNS:add>` (or `<secDNS:rem>`) of `<secDNS:dsData>` in its extension.
   * A registry whose greeting does not offer secDNS-1.1 cannot take DS records: refused as its policy.
   */
  async setDs(domain: string, records: readonly DsRecord[], clientTransactionId: string): Promise<void> {
    try {
      await this.secDnsUpdate(domain, 'add', records, clientTransactionId);
    } finally {
      this.dsReads.delete(domain.toLowerCase());
    }
  }

  async removeDs(domain: string, records: readonly DsRecord[], clientTransactionId: string): Promise<void> {
    try {
      await this.secDnsUpdate(domain, 'rem', records, clientTransactionId);
    } finally {
      this.dsReads.delete(domain.toLowerCase());
    }
  }

  /**
   * The DS records in domain:info's `<secDNS:infData>` (RFC 5910 §3.1.2); with the authInfo for a name
   * another registrar sponsors. A `recent` read of our own name (GET …/dnssec, read on every call) is
   * answered from this process's last read of it for `dsReadCacheMs` (30 s), and recent reads at once share
   * one command: a page or a client polling it must not turn into a domain:info each time (registries limit
   * their commands per registrar, and every customer's registrations share that limit). Other reads (what a
   * decision rests on) always ask, and refresh what recent reads get. Our own setDs/removeDs forget the name's
   * read; a change made by another process, or at the registry itself, shows within those 30 s. A failed read
   * is not kept.
   */
  async dsRecords(domain: string, authInfo?: string, options?: { readonly recent?: boolean }): Promise<DsRecord[]> {
    const ttl = this.options.dsReadCacheMs ?? 0;
    if (authInfo !== undefined || ttl <= 0) return this.readDs(domain, authInfo);
    const key = domain.toLowerCase();
    const now = (this.options.now ?? Date.now)();
    const kept = this.dsReads.get(key);
    if (options?.recent && kept && kept.until > now) return (await kept.answer).map((d) => ({ ...d }));
    const answer = this.readDs(domain);
    this.dsReads.delete(key);
    this.dsReads.set(key, { until: now + ttl, answer });
    if (this.dsReads.size > DS_READS_KEPT) this.dsReads.delete(this.dsReads.keys().next().value!);
    try {
      return (await answer).map((d) => ({ ...d }));
    } catch (err) {
      if (this.dsReads.get(key)?.answer === answer) this.dsReads.delete(key);
      throw err;
    }
  }

  private async readDs(domain: string, authInfo?: string): Promise<DsRecord[]> {
    const res = this.ok(
      await this.run((s) =>
        buildCommand(
          'info',
          {
            'domain:info': {
              '@_xmlns:domain': NS.domain,
              'domain:name': { '#text': domain, '@_hosts': 'all' },
              ...(authInfo !== undefined ? { 'domain:authInfo': { 'domain:pw': authInfo } } : {}),
            },
          },
          s.nextTrid('dmk-inf'),
        ),
      ),
      `domain:info ${domain}`,
    );
    const inf = children(res.extension, 'infData').find((n) => child(n, 'dsData') !== undefined);
    return children(inf, 'dsData').map((d) => ({
      keyTag: Number(text(child(d, 'keyTag'))),
      algorithm: Number(text(child(d, 'alg'))),
      digestType: Number(text(child(d, 'digestType'))),
      digest: text(child(d, 'digest')).toUpperCase(),
    }));
  }

  private async secDnsUpdate(domain: string, how: 'add' | 'rem', records: readonly DsRecord[], clientTransactionId: string) {
    if (records.length === 0) return;
    const g = await this.greeting();
    if (!g.extURIs.includes(NS.secDNS))
      throw new RegistryError(
        'rejected',
        `the registry offers no DNSSEC extension (secDNS-1.1) for ${domain}`,
        null,
        'registry_policy_refused',
        null,
      );
    await this.updateDomain(
      domain,
      clientTransactionId,
      {},
      {
        'secDNS:update': {
          '@_xmlns:secDNS': NS.secDNS,
          [`secDNS:${how}`]: {
            'secDNS:dsData': records.map((r) => ({
              'secDNS:keyTag': r.keyTag,
              'secDNS:alg': r.algorithm,
              'secDNS:digestType': r.digestType,
              'secDNS:digest': r.digest.toUpperCase(),
            })),
          },
        },
      },
      `domain:update (secDNS ${how}) ${domain}`,
    );
  }

  /** The authInfo (transfer code) the registry keeps for a name we sponsor (for the human-only reveal). */
  async transferCode(domain: string): Promise<string> {
    const d = await this.mustInfo(domain);
    const pw = text(child(child(d, 'authInfo'), 'pw'));
    if (!pw)
      throw new RegistryError(
        'rejected',
        `the registry did not disclose the transfer code of ${domain}`,
        null,
        'registry_not_authorized',
        2201,
      );
    return pw;
  }

  /** RFC 5733 contact:create for the new holder, then RFC 5731 domain:update <chg><registrant>. */
  async changeRegistrant(domain: string, registrant: RegistrantContact, clientTransactionId: string): Promise<void> {
    // What the contact schema and RFC 5733 §2.4 require, checked before a frame the registry would
    // refuse (2001/2005) is ever sent: cc is ISO 3166-1 alpha-2; name, city and e-mail are required.
    const a0 = registrant.address;
    const problem = !/^[A-Za-z]{2}$/.test(a0.countryCode)
      ? `the country code "${a0.countryCode}" is not ISO 3166-1 alpha-2`
      : !registrant.name.trim()
        ? 'the name is empty'
        : !a0.city.trim()
          ? 'the city is empty'
          : !/^[^@\s]+@[^@\s]+$/.test(registrant.email)
            ? 'the e-mail address is not valid'
            : null;
    if (problem) throw new RegistryError('rejected', `contact for ${domain} is not valid: ${problem}`);
    await this.mustInfo(domain);
    const contactId = `dmk${createHash('sha256').update(clientTransactionId).digest('hex').slice(0, 13)}`;
    const a = registrant.address;
    const created = await this.run(() =>
      buildCommand(
        'create',
        {
          'contact:create': {
            '@_xmlns:contact': NS.contact,
            'contact:id': contactId,
            'contact:postalInfo': {
              '@_type': 'int',
              'contact:name': registrant.name,
              ...(registrant.organization ? { 'contact:org': registrant.organization } : {}),
              'contact:addr': {
                'contact:street': a.street.slice(0, 3),
                'contact:city': a.city,
                ...(a.region ? { 'contact:sp': a.region } : {}),
                ...(a.postalCode ? { 'contact:pc': a.postalCode } : {}),
                'contact:cc': a.countryCode.toUpperCase(),
              },
            },
            ...(registrant.phone ? { 'contact:voice': registrant.phone } : {}),
            'contact:email': registrant.email,
            'contact:authInfo': { 'contact:pw': newAuthInfo() },
          },
        },
        clTRIDFor(clientTransactionId, '-c'),
      ),
    );
    // 2302: the contact exists already — a repeat of this same change.
    this.ok(created, `contact:create ${contactId}`, [2302]);
    await this.updateDomain(domain, clientTransactionId, { 'domain:chg': { 'domain:registrant': contactId } });
  }

  /** contact:info, for checking what the registry holds about a contact id. */
  async contactInfo(id: string): Promise<{ id: string; name: string; email: string; countryCode: string } | null> {
    const res = await this.run((s) =>
      buildCommand('info', { 'contact:info': { '@_xmlns:contact': NS.contact, 'contact:id': id } }, s.nextTrid('dmk-cinf')),
    );
    if (res.results[0]?.code === 2303) return null;
    const d = child(this.ok(res, `contact:info ${id}`).resData, 'infData');
    const p = children(d, 'postalInfo')[0];
    return { id, name: text(child(p, 'name')), email: text(child(d, 'email')), countryCode: text(child(child(p, 'addr'), 'cc')) };
  }

  /** The registrant contact id the registry holds for a domain. */
  async registrantOf(domain: string): Promise<string | null> {
    return text(child(await this.mustInfo(domain), 'registrant')) || null;
  }

  /** domain:transfer op="query" (RFC 5731 §3.1.3): the state of a transfer of the name. */
  async transferStatus(domain: string): Promise<{ status: string; requestedBy: string; requestedAt: string; actBy: string } | null> {
    const res = await this.run((s) =>
      buildCommand(
        'transfer',
        {
          'domain:transfer': { '@_xmlns:domain': NS.domain, 'domain:name': domain },
        },
        s.nextTrid('dmk-trq'),
        undefined,
        { '@_op': 'query' },
      ),
    );
    if ([2301, 2303].includes(res.results[0]?.code ?? 0)) return null;
    const t = child(this.ok(res, `domain:transfer query ${domain}`).resData, 'trnData');
    return {
      status: text(child(t, 'trStatus')),
      requestedBy: text(child(t, 'reID')),
      requestedAt: text(child(t, 'reDate')),
      actBy: text(child(t, 'acDate')),
    };
  }

  /** Prices: the registry's fee extension (RFC 8748) when its greeting announces it, else our price list. */
  async quote(domains: readonly string[], years = 1, command: 'create' | 'renew' = 'create'): Promise<Quote[]> {
    const g = await this.greeting();
    if (!g.extURIs.includes(NS.fee) || domains.length === 0) {
      return domains.map((domain) => {
        const y = yearlyPrice(domain);
        return { domain, years, amount: y === null ? null : y * years, currency: 'UAH', source: 'price_list' as const };
      });
    }
    const res = this.ok(
      await this.run((s) =>
        buildCommand(
          'check',
          {
            'domain:check': { '@_xmlns:domain': NS.domain, 'domain:name': [...domains] },
          },
          s.nextTrid('dmk-fee'),
          {
            'fee:check': {
              '@_xmlns:fee': NS.fee,
              'fee:currency': 'UAH',
              'fee:command': { '@_name': command, 'fee:period': { '#text': years, '@_unit': 'y' } },
            },
          },
        ),
      ),
      'domain:check (fee)',
    );
    const fees = new Map<string, { amount: number | null; currency: string }>();
    const chk = child(res.extension, 'chkData');
    const currency = text(child(chk, 'currency')) || 'UAH';
    for (const cd of children(chk, 'cd')) {
      const name = text(child(cd, 'objID')).toLowerCase();
      const cmd = children(cd, 'command').find((c) => (attr(c, 'name') ?? command) === command);
      const parts = children(cmd, 'fee');
      const total = parts.reduce((sum, f) => sum + Math.round(Number(text(f)) * 100), 0);
      fees.set(name, { amount: parts.length > 0 && Number.isFinite(total) ? total : null, currency });
    }
    return domains.map((domain) => {
      const f = fees.get(domain.toLowerCase());
      return { domain, years, amount: f?.amount ?? null, currency: f?.currency ?? currency, source: 'registry_fee' as const };
    });
  }

  /** The oldest registry message (poll req), or null when the queue is empty. */
  async poll(): Promise<RegistryMessage | null> {
    const res = this.ok(
      await this.run((s) => buildCommand('poll', null, s.nextTrid('dmk-poll'), undefined, { '@_op': 'req' })),
      'poll req',
    );
    if (res.results[0]?.code === 1300 || !res.msgQ) return null;
    const trn = child(res.resData, 'trnData');
    const pan = child(res.resData, 'panData');
    const msg = res.msgQ;
    if (trn) {
      const status = text(child(trn, 'trStatus'));
      const transfer = this.transferState(trn, text(child(trn, 'name')))!;
      // A transfer out (acID is ours: another registrar asked) or a transfer in (reID is ours: we asked).
      const kind =
        transfer.direction === 'in'
          ? 'transfer_in'
          : status === 'pending'
            ? 'transfer_requested'
            : status === 'serverApproved' || status === 'clientApproved'
              ? 'transfer_completed'
              : 'transfer_cancelled';
      return {
        id: msg.id,
        kind,
        transfer,
        domain: text(child(trn, 'name')) || null,
        queuedAt: msg.qDate,
        text: msg.msg,
        data: {
          status,
          requested_by: text(child(trn, 'reID')),
          requested_at: text(child(trn, 'reDate')),
          act_by: text(child(trn, 'acDate')),
        },
      };
    }
    const domain = text(child(pan, 'name')) || null;
    const deleted = /delet/i.test(msg.msg);
    return { id: msg.id, kind: deleted ? 'deleted_by_registry' : 'other', domain, queuedAt: msg.qDate, text: msg.msg, data: {} };
  }

  /** Removes a message from the queue (poll ack). */
  async ack(id: string): Promise<void> {
    this.ok(
      await this.run((s) => buildCommand('poll', null, s.nextTrid('dmk-ack'), undefined, { '@_op': 'ack', '@_msgID': id })),
      `poll ack ${id}`,
    );
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Live sessions (for tests and health). */
  get sessions(): number {
    return this.pool.size;
  }
}

/** A fresh authInfo for a new object (RFC 5731 §2.6): 16 random characters. */
const newAuthInfo = (): string => randomBytes(12).toString('base64url');
