import type { Clock } from '../kernel/clock.port.js';
import { oneLine } from '../kernel/foreign-text.js';
import type { Environment } from '../kernel/environment.js';
import type { Random } from '../kernel/random.port.js';
import type { AccountRepository } from '../accounts/ports/account-repository.port.js';
import type { Notice } from './notice.js';
import type { NoticeRepository } from './ports/notice-repository.port.js';
import type { NoticeOutbox } from './ports/notice-outbox.port.js';

/** E-mail subjects by notice kind: short, both languages, and the domain in full when there is one. */
const SUBJECTS: Record<string, { uk: string; en: string }> = {
  'key.issued': { uk: 'випущено ключ класу 2 або 3', en: 'a class 2 or 3 key was issued' },
  'domain.registered': { uk: 'зареєстровано домен', en: 'domain registered' },
  'domain.renewed': { uk: 'домен продовжено', en: 'domain renewed' },
  'domain.auto_renewed': { uk: 'домен продовжено автоматично', en: 'domain renewed automatically' },
  'domain.auto_renew_failed': { uk: 'автоматичне продовження не вдалося', en: 'automatic renewal failed' },
  'domain.auto_renew_changed': { uk: 'змінено автопродовження', en: 'automatic renewal switched' },
  'domain.status_changed': { uk: 'змінився стан домену', en: 'domain status changed' },
  'domain.released': { uk: 'домен звільнено', en: 'domain released' },
  'billing.topup': { uk: 'баланс поповнено', en: 'balance topped up' },
  // class 3 operations
  'operation.pending': { uk: 'операція класу 3 чекає', en: 'a class 3 operation is waiting' },
  'operation.confirmed': { uk: 'операцію класу 3 підтверджено', en: 'a class 3 operation was confirmed' },
  'operation.cancelled': { uk: 'операцію класу 3 скасовано', en: 'a class 3 operation was cancelled' },
  'operation.activated': { uk: 'операцію класу 3 виконано', en: 'a class 3 operation took effect' },
  'operation.failed': { uk: 'операція класу 3 не вдалася', en: 'a class 3 operation failed' },
  'domain.transfer_locked': { uk: 'заборону перенесення встановлено знову', en: 'transfer lock set again' },
  'monitor.check_failed': { uk: 'перевірка моніторингу не проходить', en: 'a monitoring check is failing' },
  'monitor.check_recovered': { uk: 'перевірка моніторингу знову проходить', en: 'a monitoring check has recovered' },
  // two-factor checks of a person (the human-only action and its way back)
  'person.two_factor_disabled': { uk: 'двофакторну перевірку вимкнено', en: 'two-factor checks switched off' },
  'person.two_factor_enabled': { uk: 'двофакторну перевірку знову ввімкнено', en: 'two-factor checks switched on again' },
  'person.sign_in_throttled': { uk: 'багато невдалих спроб увійти', en: 'many failed sign-in attempts' },
};

export const subjectOf = (kind: string, domain: string | null): string => {
  const s = SUBJECTS[kind] ?? { uk: kind, en: kind };
  return `Domivka: ${s.uk} / ${s.en}${domain ? ` — ${domain}` : ''}`;
};

/** What NotifyOwners is built from (one object, named, instead of positions). */
export interface NotifyOwnersDeps {
  readonly accounts: AccountRepository;
  readonly notices: NoticeRepository;
  readonly outbox: NoticeOutbox;
  readonly clock: Clock;
  readonly random: Random;
}

/** Sends every owner of an account the same notice (seed A5). Runs inside the caller's transaction. */
export class NotifyOwners {
  constructor(private readonly deps: NotifyOwnersDeps) {}

  async send(input: {
    accountId: string;
    environment: Environment;
    kind: string;
    domain?: string | null;
    message: { uk: string; en: string };
    data: Record<string, unknown>;
    /** Recipients besides the owners (an owner among them gets it once). */
    alsoTo?: ReadonlyArray<{ readonly personId: string; readonly email: string }>;
  }): Promise<number> {
    const found = await this.deps.accounts.owners(input.accountId);
    const owners: Array<{ id: string; email: string }> = [
      ...found,
      ...(input.alsoTo ?? []).filter((x) => !found.some((o) => o.id === x.personId)).map((x) => ({ id: x.personId, email: x.email })),
    ];
    const at = this.deps.clock.now();
    const groupId = this.deps.random.id();
    const rows: Notice[] = owners.map((o) => ({
      id: this.deps.random.id(),
      groupId,
      accountId: input.accountId,
      environment: input.environment,
      recipientId: o.id,
      kind: input.kind,
      domain: input.domain ?? null,
      message: input.message,
      data: input.data,
      createdAt: at,
    }));
    await this.deps.notices.insert(rows);
    // DESIGN: test-environment notices are in-app only; live ones are also e-mailed, through the
    // outbox written in this same transaction (a mail server that is down delays them, loses none).
    if (input.environment === 'live') {
      await this.deps.outbox.enqueue(
        rows.map((n, i) => ({
          id: this.deps.random.id(),
          noticeId: n.id,
          recipientId: n.recipientId,
          address: owners[i]!.email,
          subject: subjectOf(n.kind, n.domain),
          // Each language on one line: a message can quote foreign text, which must not add lines of its own.
          body: `${oneLine(n.message.uk, 10_000)}\n\n${oneLine(n.message.en, 10_000)}\n\n— Domivka (${at.toISOString()})\n`,
          attempts: 0,
          createdAt: at,
        })),
      );
    }
    return rows.length;
  }
}
