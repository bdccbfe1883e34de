import type { RecordingDeps } from '../kernel/recording-deps.js';
import { requireOwner, requireRecentSignIn } from '../kernel/human-guards.js';
import type { HumanContext } from '../kernel/person.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import type { RegistrarEnvironments } from './ports/registrar.port.js';
import { DomainError } from '../kernel/errors.js';
import { requireCapability } from './capabilities.js';
import type { DomainRepository } from './ports/domain-repository.port.js';
import { RegistryError, type RegistrantContact } from './ports/registrar.port.js';

/**
 * The first code point XML 1.0 forbids (its `Char` production: #x9 | #xA | #xD | [#x20-#xD7FF] |
 * [#xE000-#xFFFD] | [#x10000-#x10FFFF]), as `U+XXXX`, or null. A contact travels to the registry inside
 * an EPP (XML) frame, where such a character cannot be written at all, escaped or not.
 */
export const xmlForbiddenChar = (v: string): string | null => {
  for (const ch of v) {
    const c = ch.codePointAt(0)!;
    const ok =
      c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
    if (!ok) return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return null;
};

/** Every text field of a contact with a character XML forbids: field name and the character. */
export const contactForbiddenChars = (c: RegistrantContact): Array<{ field: string; rule: string; character: string }> => {
  const a = c.address as Partial<RegistrantContact['address']> | undefined;
  const fields: Array<[string, unknown]> = [
    ['name', c.name],
    ['organization', c.organization],
    ['email', c.email],
    ['phone', c.phone],
    ...(Array.isArray(a?.street) ? a.street.map((v, i): [string, unknown] => [`address.street.${i}`, v]) : []),
    ['address.city', a?.city],
    ['address.region', a?.region],
    ['address.postal_code', a?.postalCode],
    ['address.country_code', a?.countryCode],
  ];
  const bad: Array<{ field: string; rule: string; character: string }> = [];
  for (const [field, v] of fields) {
    const character = typeof v === 'string' ? xmlForbiddenChar(v) : null;
    if (character) bad.push({ field, rule: 'xml-char', character });
  }
  return bad;
};

/** Checks a contact object the way a registry would (RFC 5733 §2.4–2.6); every reason, not the first. */
export const checkRegistrant = (c: RegistrantContact): Array<{ field: string; rule: string }> => {
  const bad: Array<{ field: string; rule: string }> = [];
  const text = (v: unknown, max: number) => typeof v === 'string' && v.trim().length > 0 && v.length <= max;
  if (!text(c.name, 255)) bad.push({ field: 'name', rule: 'required, 1–255 characters' });
  if (c.organization != null && !text(c.organization, 255)) bad.push({ field: 'organization', rule: '1–255 characters' });
  if (typeof c.email !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(c.email)) bad.push({ field: 'email', rule: 'an e-mail address' });
  if (c.phone != null && c.phone !== '' && !/^\+\d{1,3}\.\d{4,14}$/.test(c.phone))
    bad.push({ field: 'phone', rule: 'E.164 in EPP form, +CC.NUMBER' });
  const a = c.address;
  if (!a || !Array.isArray(a.street) || a.street.length < 1 || a.street.length > 3 || !a.street.every((s) => text(s, 255))) {
    bad.push({ field: 'address.street', rule: '1–3 lines' });
  }
  if (!a || !text(a.city, 255)) bad.push({ field: 'address.city', rule: 'required' });
  if (!a || typeof a.countryCode !== 'string' || !/^[A-Z]{2}$/.test(a.countryCode))
    bad.push({ field: 'address.country_code', rule: 'ISO 3166-1 alpha-2, e.g. UA' });
  if (a?.postalCode != null && a.postalCode !== '' && !text(a.postalCode, 16))
    bad.push({ field: 'address.postal_code', rule: 'up to 16 characters' });
  return bad;
};

/** What ChangeRegistrant is built from (one object, named, instead of positions). */
export interface ChangeRegistrantDeps extends RecordingDeps {
  readonly domains: DomainRepository;
  readonly environments: RegistrarEnvironments;
}

/** Change the registrant (domain holder) — a human-only action (seed A6): an owner, signed in again. */
export class ChangeRegistrant {
  constructor(private readonly deps: ChangeRegistrantDeps) {}

  async execute(
    human: HumanContext,
    environment: Environment,
    name: string,
    contact: RegistrantContact,
  ): Promise<{ domain: string; registrant: RegistrantContact }> {
    requireOwner(human.actor, 'registrant');
    requireRecentSignIn(human.session, this.deps.clock.now());
    const forbidden = contactForbiddenChars(contact);
    if (forbidden.length > 0)
      throw new DomainError('contact_character_forbidden', { field: forbidden[0]!.field, character: forbidden[0]!.character }, forbidden);
    const problems = checkRegistrant(contact);
    if (problems.length > 0) throw new DomainError('validation_failed', {}, problems);
    const domainName = normalizeDomain(name);
    const domain = await this.deps.domains.find(human.actor.accountId, environment, domainName);
    if (!domain) throw new DomainError('domain_not_found', { domain: domainName });
    const registrar = requireCapability(this.deps.environments.get(environment).registrar, 'registrant');
    try {
      await registrar.changeRegistrant(domainName, contact, `registrant-${this.deps.random.id()}`);
    } catch (err) {
      if (err instanceof RegistryError) throw new DomainError('registry_failure', { domain: domainName, reason: err.message });
      throw err;
    }
    const at = this.deps.clock.now();
    await this.deps.uow.transaction(async () => {
      await this.deps.events.record(
        'domain.registrant_changed',
        { accountId: domain.accountId, environment, subject: `domain:${domainName}`, actor: `person:${human.person.id}`, occurredAt: at },
        {
          domain: domainName,
          registrant: {
            name: contact.name,
            organization: contact.organization ?? null,
            email: contact.email,
            country_code: contact.address.countryCode,
          },
          actor_email: human.person.email,
        },
      );
    });
    return { domain: domainName, registrant: contact };
  }
}
