import type { RecordingDeps } from '../kernel/recording-deps.js';
import { maxClassOf } from './person-key.js';
import type { Actor } from '../kernel/person.js';
import { addDays, isIsoDate, kyivDate } from '../kernel/dates.js';
import { normalizeDomain } from '../kernel/domain-name.js';
import type { Environment } from '../kernel/environment.js';
import { DomainError } from '../kernel/errors.js';
import { LABEL_RE } from '../kernel/labels.js';
import { parseCidr } from './cidr.js';
import { CLASSES, classOf, MIN_CIDR_PREFIX, spendsMoney } from './classes.js';
import { TSIG_ALGORITHMS, type ApiKey, type KeyConditions, type TsigAlgorithmName, type TsigCredential } from '../kernel/caller.js';
import type { SecretBox } from '../kernel/secret-box.port.js';
import { formatToken, KEY_ID_LENGTH, KEY_SECRET_LENGTH } from './key-token.js';
import { viewKey, type KeyView } from './key-view.js';
import type { Policy, Selection } from './policy.js';
import type { KeyRepository } from './ports/key-repository.port.js';
import type { SecretHasher } from '../kernel/secret-hasher.port.js';
import { isRightName, RIGHTS, type DangerClass, type RightName } from '../kernel/rights.js';
import { summarise, type KeySummary } from './summary.js';
import { templateById } from './templates.js';
import { DNS_RIGHTS, newTsigCredential } from './tsig-credential.js';

/**
 * Seed A8, in its order: a rights template (or rights, or explicit policies), domains (named, or one
 * label), conditions (CIDR, expiry date, monthly spend limit), a plain-language summary — then issue.
 */
export interface IssueKeyInput {
  readonly environment: Environment;
  readonly name?: string;
  readonly template?: string;
  readonly rights?: readonly string[];
  readonly domains?: readonly string[];
  readonly label?: string;
  readonly policies?: ReadonlyArray<{ right: string; resources: { domains?: readonly string[]; label?: string } }>;
  readonly conditions?: {
    readonly cidr?: string | null;
    readonly expires_on?: string | null;
    /** Kopiykas. */
    readonly spend_limit?: number | null;
  };
  /** The TSIG credential's algorithm for a key holding a DNS right (default hmac-sha256). */
  readonly tsig_algorithm?: string;
}

/** Seed A8's steps a person fills in: the rights, where they act (domains or a label), the conditions. */
export type IssueStep = 'rights' | 'reach' | 'conditions';

export interface KeyDraft {
  readonly environment: Environment;
  readonly name: string;
  readonly policies: Policy[];
  readonly conditions: KeyConditions;
  readonly class: DangerClass;
  readonly summary: KeySummary;
}

export interface IssuedKey {
  readonly key: KeyView;
  /** The key string: shown once, never stored. */
  readonly secret: string;
  readonly summary: KeySummary;
  /** The DNS (TSIG) credential, secret shown once beside the key; null for a key without a DNS right. */
  readonly tsig: { readonly name: string; readonly algorithm: TsigAlgorithmName; readonly secret: string } | null;
}

const bad = (field: string, rule: string, value?: unknown) =>
  new DomainError('validation_failed', {}, [{ field, rule, ...(value === undefined ? {} : { value }) }]);

/** What IssueKey is built from (one object, named, instead of positions). */
export interface IssueKeyDeps extends RecordingDeps {
  readonly keys: KeyRepository;
  readonly hasher: SecretHasher;
  readonly secretBox: SecretBox;
}

export class IssueKey {
  constructor(private readonly deps: IssueKeyDeps) {}

  /**
   * Checks the input as far as one of seed A8's steps, in its order, and throws the first problem there: the
   * console's wizard asks at each step, so a person learns of a mistake on the step that made it, not after
   * filling in the rest. `conditions` is every check `preview` makes.
   */
  check(actor: Actor, input: IssueKeyInput, upTo: IssueStep): void {
    const rights = this.rightsOf(input);
    const cls = this.classFor(actor, input.environment, rights);
    if (upTo === 'rights') return;
    this.policiesOf(input, rights);
    if (upTo === 'reach') return;
    this.conditionsOf(input, cls, spendsMoney(rights));
  }

  /** Builds and checks the key without issuing it: what `POST /v1/account/keys/preview` shows. */
  preview(actor: Actor, input: IssueKeyInput): KeyDraft {
    // Seed A8's order: the rights (and whether this person may issue them), where they act, the conditions.
    const rights = this.rightsOf(input);
    const cls = this.classFor(actor, input.environment, rights);
    const policies = this.policiesOf(input, rights);
    const conditions = this.conditionsOf(input, cls, spendsMoney(rights));
    // Unnamed keys are named after what they hold, so a list of keys stays readable.
    const template = input.template !== undefined ? templateById(input.template) : undefined;
    const name = ((input.name ?? '').trim() || template?.title.en || [...new Set(rights)].join(', ')).slice(0, 100);
    return {
      environment: input.environment,
      name,
      policies,
      conditions,
      class: cls,
      summary: summarise(input.environment, policies, conditions, cls),
    };
  }

  async issue(actor: Actor, input: IssueKeyInput): Promise<IssuedKey> {
    const draft = this.preview(actor, input);
    const algorithm = this.tsigAlgorithmOf(input);
    const id = this.deps.random.base62(KEY_ID_LENGTH);
    const secret = formatToken(draft.environment, id, this.deps.random.base62(KEY_SECRET_LENGTH), (t) => this.deps.hasher.crc32(t));
    const now = this.deps.clock.now();
    let tsig: IssuedKey['tsig'] = null;
    let credential: TsigCredential | null = null;
    if (draft.policies.some((p) => DNS_RIGHTS.includes(p.right))) {
      const made = newTsigCredential(this.deps, draft.environment, algorithm);
      tsig = made.shown;
      credential = made.stored;
    }
    const key: ApiKey = {
      id,
      accountId: actor.accountId,
      environment: draft.environment,
      name: draft.name,
      createdBy: actor.personId,
      policies: draft.policies,
      conditions: draft.conditions,
      class: draft.class,
      secretHash: this.deps.hasher.hmac(secret),
      createdAt: now,
      lastUsedAt: null,
      revokedAt: null,
      revokedBy: null,
      tsig: credential,
    };
    await this.deps.uow.transaction(async () => {
      await this.deps.keys.insert(key);
      await this.deps.events.record(
        'key.issued',
        {
          accountId: actor.accountId,
          environment: draft.environment,
          subject: `key:${id}`,
          actor: `person:${actor.personId}`,
          occurredAt: now,
        },
        {
          key_id: id,
          name: draft.name,
          class: draft.class,
          rights: draft.policies.map((p) => p.right),
          expires_on: draft.conditions.expiresOn,
          cidr: draft.conditions.cidr,
          spend_limit: draft.conditions.spendLimit,
        },
      );
    });
    return { key: viewKey(key, now), secret, summary: draft.summary, tsig };
  }

  private tsigAlgorithmOf(input: IssueKeyInput): TsigAlgorithmName {
    const a = input.tsig_algorithm ?? 'hmac-sha256';
    if (!(TSIG_ALGORITHMS as readonly string[]).includes(a)) throw bad('/tsig_algorithm', 'enum', a);
    return a as TsigAlgorithmName;
  }

  /** The rights the input asks for: its policies' rights, or a template's and/or a list of rights. */
  private rightsOf(input: IssueKeyInput): RightName[] {
    if (input.policies && input.policies.length > 0) {
      if (input.template || input.rights?.length || input.domains?.length || input.label) {
        throw bad('/policies', 'exclusive');
      }
      return input.policies.map((p, i) => {
        if (!isRightName(p.right)) throw bad(`/policies/${i}/right`, 'enum', p.right);
        return p.right;
      });
    }
    const rights = new Set<RightName>();
    if (input.template !== undefined) {
      const t = templateById(input.template);
      if (!t) throw bad('/template', 'enum', input.template);
      t.rights.forEach((x) => rights.add(x));
    }
    (input.rights ?? []).forEach((x, i) => {
      if (!isRightName(x)) throw bad(`/rights/${i}`, 'enum', x);
      rights.add(x);
    });
    if (rights.size === 0) throw bad('/rights', 'required');
    return [...rights];
  }

  /** The key's class, once the rights fit the environment and this person may issue that class. */
  private classFor(actor: Actor, environment: Environment, rights: readonly RightName[]): DangerClass {
    const testOnly = environment === 'live' ? rights.find((x) => RIGHTS[x].testOnly) : undefined;
    if (testOnly !== undefined) throw new DomainError('right_test_only', { right: testOnly });
    const cls = classOf(rights);
    const max = maxClassOf(actor);
    if (cls > max) throw new DomainError('role_forbidden', { class: cls, max_class: max });
    return cls;
  }

  /** Each right with where it acts: the policies as given, or every right on the one selection. */
  private policiesOf(input: IssueKeyInput, rights: readonly RightName[]): Policy[] {
    if (input.policies && input.policies.length > 0) {
      return input.policies.map((p, i) => ({
        right: rights[i]!,
        resources: this.selectionOf(
          p.resources.domains,
          p.resources.label,
          RIGHTS[rights[i]!].scope === 'domain',
          `/policies/${i}/resources`,
        ),
      }));
    }
    const needsDomains = rights.some((x) => RIGHTS[x].scope === 'domain');
    const selection = this.selectionOf(input.domains, input.label, needsDomains, '');
    return rights.map((right) => ({ right, resources: selection }));
  }

  private selectionOf(domains: readonly string[] | undefined, label: string | undefined, required: boolean, at: string): Selection {
    const hasDomains = domains !== undefined && domains.length > 0;
    if (hasDomains && label !== undefined) throw bad(`${at}/label`, 'exclusive');
    if (label !== undefined) {
      if (!LABEL_RE.test(label)) throw bad(`${at}/label`, 'pattern', label);
      return { label };
    }
    if (hasDomains) {
      const names = domains.map((d) => normalizeDomain(d));
      return { domains: [...new Set(names)] };
    }
    if (required) throw new DomainError('domains_required');
    return { domains: [] };
  }

  private conditionsOf(input: IssueKeyInput, cls: DangerClass, spends: boolean): KeyConditions {
    const c = input.conditions ?? {};
    const today = kyivDate(this.deps.clock.now());
    const maxDate = addDays(today, CLASSES[cls].maxLifetimeDays);
    let expiresOn = maxDate;
    if (c.expires_on !== undefined && c.expires_on !== null) {
      if (!isIsoDate(c.expires_on)) throw bad('/conditions/expires_on', 'format', c.expires_on);
      if (c.expires_on < today) throw new DomainError('expiry_in_past', { expires_on: c.expires_on, today });
      if (c.expires_on > maxDate) {
        throw new DomainError('key_lifetime_exceeded', {
          class: cls,
          max_days: CLASSES[cls].maxLifetimeDays,
          max_date: maxDate,
          expires_on: c.expires_on,
        });
      }
      expiresOn = c.expires_on;
    }
    let cidr: string | null = null;
    if (c.cidr !== undefined && c.cidr !== null && c.cidr !== '') {
      const parsed = parseCidr(c.cidr);
      if (CLASSES[cls].ipRestrictionRequired && parsed.prefix < MIN_CIDR_PREFIX) {
        throw new DomainError('ip_restriction_too_wide', { class: cls, cidr: parsed.text, min_prefix: MIN_CIDR_PREFIX });
      }
      cidr = parsed.text;
    } else if (CLASSES[cls].ipRestrictionRequired) {
      throw new DomainError('ip_restriction_required', { class: cls, min_prefix: MIN_CIDR_PREFIX });
    }
    let spendLimit: number | null = null;
    if (c.spend_limit !== undefined && c.spend_limit !== null) {
      if (!Number.isSafeInteger(c.spend_limit) || c.spend_limit <= 0) throw bad('/conditions/spend_limit', 'minimum', c.spend_limit);
      spendLimit = c.spend_limit;
    }
    if (spends && spendLimit === null) throw new DomainError('spend_limit_required');
    return { cidr, expiresOn, spendLimit };
  }
}
