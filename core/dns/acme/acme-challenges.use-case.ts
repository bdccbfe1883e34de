import type { RecordingDeps } from '../../kernel/recording-deps.js';
import type { Authorizer } from '../../access/authorize.js';
import { actorOf, type ApiKey } from '../../kernel/caller.js';
import { normalizeDomain } from '../../kernel/domain-name.js';
import { DomainError } from '../../kernel/errors.js';
import { transientCheckpoints, type Checkpoints } from '../../kernel/checkpoints.port.js';
import { dnsAccess, isAcmeName } from '../dns-access.js';
import type { AcmeChallenge, AcmeChallengeRepository, ZoneRepository } from '../ports/zone-repository.port.js';
import { storableName } from '../zone/names.js';
import type { RecordSet } from '../zone/record-set.js';
import { ZONE_BUSY_RETRY_AFTER_S, ZoneChanged, type ZoneService } from '../zone/zone-service.js';
import type { StoredZone } from '../zone/zone.js';

/** Runs one committing transaction (a checkpoint phase when the request is phased). */
type Committer = (fn: () => Promise<StoredZone>) => Promise<StoredZone>;

export const CHALLENGE_TTL = 60;
export const CHALLENGE_LIFETIME_MS = 24 * 3600_000;

export interface ChallengeView {
  id: string;
  name: string;
  value: string;
  ttl: number;
  expires_at: string;
}

/** What AcmeChallenges is built from (one object, named, instead of positions). */
export interface AcmeChallengesDeps extends RecordingDeps {
  readonly zones: ZoneRepository;
  readonly challenges: AcmeChallengeRepository;
  readonly zoneService: ZoneService;
  readonly authorizer: Authorizer;
}

/**
 * POST/DELETE /v1/domains/{domain}/dns/acme-challenges (dns.acme_challenge or dns.edit): one TXT value
 * at _acme-challenge.<host>, additive (an order for x and *.x needs two values at one name at once),
 * short TTL, gone by itself after 24 hours. The name may be `_acme-challenge.<host>` with or without
 * a trailing dot, or the bare `<host>` (DESIGN) — what certbot hooks and lego's exec provider send.
 */
export class AcmeChallenges {
  constructor(private readonly deps: AcmeChallengesDeps) {}

  /** `_acme-challenge.<host>` from what ACME clients send; a wildcard's challenge is at its base name. */
  static challengeName(input: string, zone: string): string | null {
    let host = input.trim().toLowerCase();
    if (host.endsWith('.')) host = host.slice(0, -1);
    if (host.startsWith('_acme-challenge.')) host = host.slice('_acme-challenge.'.length);
    // A bare *.x (certbot's CERTBOT_DOMAIN for a wildcard) is validated at _acme-challenge.x (RFC 8555 §8.4).
    else if (host.startsWith('*.')) host = host.slice(2);
    if (host.includes('*') || host.includes('_')) return null;
    // Stored as A-labels, like every other name in the zone: a Unicode owner is never answered by DNS.
    let ascii: string;
    try {
      ascii = normalizeDomain(host);
    } catch {
      if (host !== zone) return null;
      ascii = zone;
    }
    const stored = storableName(`_acme-challenge.${ascii}.`, zone);
    return stored.ok && isAcmeName(stored.name, zone) ? stored.name : null;
  }

  async add(
    key: ApiKey,
    domain: string,
    input: { name: string; value: string },
    cp: Checkpoints = transientCheckpoints(this.deps.uow),
  ): Promise<ChallengeView> {
    const zoneName = normalizeDomain(domain);
    if (cp.last?.point === 'added') return this.republish(key, zoneName, cp.last.data.result as ChallengeView);
    await dnsAccess(this.deps.authorizer, key, zoneName);
    const name = AcmeChallenges.challengeName(input.name, zoneName);
    if (!name) {
      throw new DomainError('validation_failed', {}, [
        {
          field: '/body/name',
          rule: 'acme-name',
          value: input.name,
          message: {
            uk: `ім’я має бути _acme-challenge.<ім’я> у зоні ${zoneName}`,
            en: `the name must be _acme-challenge.<host> inside ${zoneName}`,
          },
        },
      ]);
    }
    const view = (c: AcmeChallenge): ChallengeView => ({
      id: c.id,
      name,
      value: input.value,
      ttl: CHALLENGE_TTL,
      expires_at: c.expiresAt.toISOString(),
    });
    const challenge = await this.insertValue(
      { accountId: key.accountId, environment: key.environment },
      zoneName,
      name,
      input.value,
      key.id,
      actorOf(key),
      async (fn, c) => {
        let zone: StoredZone | null = null;
        await cp.reach('added', async () => {
          zone = await fn();
          return { result: view(c) }; // the checkpoint keeps the answer, not the zone
        });
        return zone!;
      },
    );
    return view(challenge);
  }

  /**
   * The certificates' DNS-01 solver: one value at `_acme-challenge.<host>` written by an
   * internal actor through the same zone commit as a plan apply, additive, served by our own server
   * when this resolves. Returns the challenge id for `removeFor`.
   */
  async addFor(
    scope: { accountId: string; environment: ApiKey['environment'] },
    zoneName: string,
    host: string,
    value: string,
    actor: string,
  ): Promise<string> {
    const name = AcmeChallenges.challengeName(host, zoneName);
    if (!name) throw new DomainError('domain_invalid', { domain: host });
    return (await this.insertValue(scope, zoneName, name, value, null, actor)).id;
  }

  /** One more value at `name` (additive), its challenge row and event in the same commit; then served. */
  private async insertValue(
    scope: { accountId: string; environment: ApiKey['environment'] },
    zoneName: string,
    name: string,
    value: string,
    keyId: string | null,
    actor: string,
    commit?: (fn: () => Promise<StoredZone>, challenge: AcmeChallenge) => Promise<StoredZone>,
  ): Promise<AcmeChallenge> {
    const now = this.deps.clock.now();
    const challenge: AcmeChallenge = {
      id: this.deps.random.id(),
      zoneId: '',
      name,
      value,
      keyId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CHALLENGE_LIFETIME_MS),
    };
    const zone = await this.change(
      scope.accountId,
      scope.environment,
      zoneName,
      name,
      (values) => [...new Set([...values, value])],
      async (z) => {
        await this.deps.challenges.insert({ ...challenge, zoneId: z.id });
        await this.deps.events.record(
          'dns.acme_challenge_added',
          { accountId: scope.accountId, environment: scope.environment, subject: `domain:${zoneName}`, actor, occurredAt: now },
          { name, challenge_id: challenge.id },
        );
      },
      commit ? (fn) => commit(fn, challenge) : undefined,
    );
    await this.deps.zoneService.publish(zone);
    return challenge;
  }

  /** Removes a value `addFor` wrote; one already gone (expired, removed) is fine. */
  async removeFor(scope: { accountId: string; environment: ApiKey['environment'] }, id: string, actor: string): Promise<void> {
    const c = await this.deps.challenges.find(id);
    if (!c) return;
    const zone = await this.deps.zones.findById(c.zoneId);
    if (!zone || zone.accountId !== scope.accountId || zone.environment !== scope.environment) return;
    await this.removeChallenge(zone, c, actor);
  }

  private async republish<T>(key: ApiKey, zoneName: string, result: T): Promise<T> {
    const zone = await this.deps.zones.find(key.accountId, key.environment, zoneName);
    if (zone) await this.deps.zoneService.publish(zone);
    return result;
  }

  async remove(key: ApiKey, domain: string, id: string, cp: Checkpoints = transientCheckpoints(this.deps.uow)): Promise<void> {
    const zoneName = normalizeDomain(domain);
    if (cp.last?.point === 'removed') return this.republish(key, zoneName, undefined);
    await dnsAccess(this.deps.authorizer, key, zoneName);
    const zone = await this.deps.zones.find(key.accountId, key.environment, zoneName);
    const c = await this.deps.challenges.find(id);
    if (!zone || !c || c.zoneId !== zone.id) throw new DomainError('challenge_not_found', { challenge_id: id });
    await this.removeChallenge(zone, c, actorOf(key), async (fn) => {
      let next: StoredZone | null = null;
      await cp.reach('removed', async () => {
        next = await fn();
        return {};
      });
      return next!;
    });
  }

  /** The zone's live values with their ids (what DELETE takes), for a key that may add or remove them. */
  async list(key: ApiKey, domain: string): Promise<ChallengeView[]> {
    const zoneName = normalizeDomain(domain);
    await dnsAccess(this.deps.authorizer, key, zoneName);
    const zone = await this.deps.zones.find(key.accountId, key.environment, zoneName);
    if (!zone) return [];
    return (await this.deps.challenges.forZone(zone.id)).map((c) => ({
      id: c.id,
      name: c.name,
      value: c.value,
      ttl: CHALLENGE_TTL,
      expires_at: c.expiresAt.toISOString(),
    }));
  }

  /** The worker: values nobody removed go after 24 hours. */
  async expire(): Promise<number> {
    const due = await this.deps.challenges.expired(this.deps.clock.now(), 200);
    for (const c of due) {
      const zone = await this.deps.zones.findById(c.zoneId);
      if (zone) await this.removeChallenge(zone, c, 'system:expiry');
      else await this.deps.challenges.remove(c.id);
    }
    return due.length;
  }

  private async removeChallenge(zone: StoredZone, c: AcmeChallenge, actor: string, commit?: Committer): Promise<void> {
    // Another live challenge may carry the same value at the same name: keep the value for it.
    const others = (await this.deps.challenges.forName(zone.id, c.name)).filter((o) => o.id !== c.id && o.value === c.value);
    const next = await this.change(
      zone.accountId,
      zone.environment,
      zone.domain,
      c.name,
      (values) => (others.length > 0 ? [...values] : values.filter((v) => v !== c.value)),
      async () => {
        await this.deps.challenges.remove(c.id);
        await this.deps.events.record(
          'dns.acme_challenge_removed',
          {
            accountId: zone.accountId,
            environment: zone.environment,
            subject: `domain:${zone.domain}`,
            actor,
            occurredAt: this.deps.clock.now(),
          },
          { name: c.name, challenge_id: c.id },
        );
      },
      commit,
    );
    await this.deps.zoneService.publish(next);
  }

  /** Read-modify-write of the TXT set at `name`, retried when another change to the zone wins the race. */
  private async change(
    accountId: string,
    environment: ApiKey['environment'],
    zoneName: string,
    name: string,
    edit: (values: readonly string[]) => string[],
    alongside: (zone: StoredZone) => Promise<void>,
    commit: Committer = (fn) => this.deps.uow.transaction(fn),
  ): Promise<StoredZone> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const result = await commit(async () => {
        await this.deps.zones.lock(accountId, environment, zoneName); // challenge writers of one zone queue up
        const zone = await this.deps.zones.find(accountId, environment, zoneName);
        if (!zone) throw new DomainError('domain_not_found', { domain: zoneName });
        const current = zone.recordSets.find((s) => s.name === name && s.type === 'TXT');
        const values = edit(current?.values ?? []);
        const upserts: RecordSet[] = values.length > 0 ? [{ name, type: 'TXT', ttl: CHALLENGE_TTL, values }] : [];
        const deletes = values.length === 0 && current ? [{ name, type: 'TXT' as const }] : [];
        const next = await this.deps.zoneService.commit(zone, upserts, deletes); // ZoneChanged rolls this attempt back, checkpoint included
        await alongside(zone);
        return next;
      }).catch((err: unknown) => {
        if (err instanceof ZoneChanged) return null;
        throw err;
      });
      if (result) return result;
    }
    throw new DomainError('zone_busy', { domain: zoneName, retry_after: ZONE_BUSY_RETRY_AFTER_S });
  }
}
