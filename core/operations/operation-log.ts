import type { EventLog } from '../kernel/event-log.port.js';
import type { NotifyOwners } from '../notices/notify-owners.js';
import type { Clock } from '../kernel/clock.port.js';
import type { Random } from '../kernel/random.port.js';
import { describeEffect, viewOperation, type Operation } from './operation.js';

type Change = 'pending' | 'confirmed' | 'cancelled' | 'activated' | 'failed';

type Who = { uk: string; en: string };
const HEAD: Record<Change, (by: Who) => { uk: string; en: string }> = {
  pending: (by) => ({ uk: `${by.uk} запитав операцію класу 3, що чекає`, en: `${by.en} requested a waiting class 3 operation` }),
  confirmed: (by) => ({ uk: `${by.uk} підтвердив операцію класу 3`, en: `${by.en} confirmed a class 3 operation` }),
  cancelled: (by) => ({ uk: `${by.uk} скасував операцію класу 3`, en: `${by.en} cancelled a class 3 operation` }),
  activated: () => ({ uk: 'Операцію класу 3 виконано', en: 'A class 3 operation took effect' }),
  failed: () => ({ uk: 'Операція класу 3 не вдалася', en: 'A class 3 operation failed' }),
};

/** "key:<id>" → Ключ/Key <id>; "person:<id>" → Особа/Person <id>; anything else (system:…) as is. */
const who = (actor: string): Who => {
  if (actor.startsWith('key:')) return { uk: `Ключ ${actor.slice(4)}`, en: `Key ${actor.slice(4)}` };
  if (actor.startsWith('person:')) return { uk: `Особа ${actor.slice(7)}`, en: `Person ${actor.slice(7)}` };
  return { uk: actor, en: actor };
};

/**
 * Every state change of an operation: its DomainEvent (`operation.<change>`) and a notice to every
 * owner, both written in the caller's transaction. Events and notices never carry a transfer code (A7).
 */
export class OperationLog {
  constructor(
    private readonly events: EventLog,
    private readonly notifyOwners: NotifyOwners,
    private readonly random: Random,
    private readonly clock: Clock,
  ) {}

  async record(op: Operation, change: Change, actor: string): Promise<void> {
    const view = viewOperation(op);
    const realNow = this.clock.now();
    await this.events.append({
      id: this.random.id(), accountId: op.accountId, environment: op.environment, type: `operation.${change}`,
      subject: `operation:${op.id}`, actor, occurredAt: realNow,
      data: {
        operation_id: op.id, kind: op.kind, domain: op.domain, status: op.status, activates_at: view.activates_at,
        ...(view.nameservers ? { nameservers: view.nameservers } : {}), ...(view.labels ? { labels: view.labels } : {}),
        ...(view.previous ? { previous: view.previous } : {}),
        ...(op.warnings.length > 0 ? { warnings: op.warnings.map((w) => w.code), warning_messages: op.warnings.map((w) => ({ ...w.message })) } : {}),
        ...(op.failureReason ? { failure_reason: op.failureReason } : {}),
      },
    });
    const head = HEAD[change](who(actor));
    const effect = describeEffect(op);
    const tail = change === 'pending'
      ? {
          uk: ` Вона виконається сама ${view.activates_at}, якщо інший власник не підтвердить її раніше; будь-який власник може її скасувати.`,
          en: ` It takes effect by itself at ${view.activates_at} unless another owner confirms it sooner; any owner may cancel it.`,
        }
      : change === 'failed'
        ? { uk: ` Причина від реєстру: ${op.failureReason ?? ''}`, en: ` The registry's reason: ${op.failureReason ?? ''}` }
        : { uk: '', en: '' };
    const warn = op.warnings.length > 0 && (change === 'pending' || change === 'activated')
      ? { uk: ` ${op.warnings.map((w) => w.message.uk).join(' ')}`, en: ` ${op.warnings.map((w) => w.message.en).join(' ')}` }
      : { uk: '', en: '' };
    await this.notifyOwners.send({
      accountId: op.accountId, environment: op.environment, kind: `operation.${change}`, domain: op.domain,
      message: {
        uk: `${head.uk} (${op.id}): ${effect.uk}${tail.uk}${warn.uk} Час: ${realNow.toISOString()}.`,
        en: `${head.en} (${op.id}): ${effect.en}${tail.en}${warn.en} Time: ${realNow.toISOString()}.`,
      },
      data: { operation_id: op.id, kind: op.kind, domain: op.domain, status: op.status, actor, href: `/v1/operations/${op.id}` },
    });
  }
}
