import { expect } from 'chai';
import type { EventOf } from '../../core/kernel/events.js';
import { noticeFor } from '../../core/notices/on-event.js';

/**
 * Why a class 3 operation failed, as the owners read it: the registry's refusal quoted as the registry's;
 * our own checks at activation (the registry not asked) told as ours, in Ukrainian and English.
 */
const failed = (failureReason: string): EventOf<'operation.failed'> =>
  ({
    id: 'evt_1',
    accountId: 'acc_1',
    environment: 'test',
    type: 'operation.failed',
    subject: 'operation:op_1',
    actor: 'system',
    occurredAt: new Date('2026-11-28T10:00:00Z'),
    data: {
      operation_id: 'op_1',
      kind: 'dnssec_ds_publish',
      domain: 'x.com.ua',
      status: 'failed',
      activates_at: '2026-11-28T10:00:00.000Z',
      ds: ['12345 13 2 AAAA'],
      failure_reason: failureReason,
    },
  }) as unknown as EventOf<'operation.failed'>;

describe('notices: why an operation failed', () => {
  it("the registry's refusal is quoted as the registry's", () => {
    const n = noticeFor(failed('dnssec_ds_refused: 2306 parameter value policy error'))!;
    expect(n.message.en).to.contain("The registry's reason: dnssec_ds_refused: 2306 parameter value policy error");
    expect(n.message.uk).to.contain('Причина від реєстру: dnssec_ds_refused: 2306');
  });

  it('a stale DS is our check: told as ours, the registry not asked, in both languages', () => {
    const n = noticeFor(
      failed('dnssec_ds_stale: the DS 12345 13 2 AAAA matches no live key of x.com.ua; nothing was sent to the registry'),
    )!;
    expect(n.message.en).to.contain('It was not sent to the registry').and.not.contain("registry's reason");
    expect(n.message.uk).to.contain('Реєстру його не надсилали').and.not.contain('Причина від реєстру');
  });

  it("another operator's keys, and a registrar that cannot, are ours too; the latter names what it cannot do", () => {
    const keys = noticeFor(failed("dnssec_foreign_keys_present: another operator's keys (4711) are in the DNSKEY set"))!;
    expect(keys.message.en).to.contain("Why: another operator's keys are in the zone's DNSKEY set");
    expect(keys.message.uk).to.contain('ключі іншого оператора');
    const cannot = noticeFor(failed('registrar_capability_missing: epp cannot ds_remove'))!;
    expect(cannot.message.en).to.contain("Why: this domain's registrar cannot do this (epp cannot ds_remove).");
    expect(cannot.message.uk).to.contain('не підтримує цієї дії (epp cannot ds_remove).');
    expect(cannot.message.en).to.not.contain("registry's reason");
  });
});
