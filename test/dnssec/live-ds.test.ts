import { expect } from 'chai';
import { staleDs } from '../../core/dnssec/live-ds.js';
import type { DnssecKey, DnssecKeyState, DnssecState } from '../../core/dnssec/dnssec-state.js';

/** RFC 6781 §4.1.2, RFC 7583 §3.3: a DS at the parent follows a live key of the signed zone. */
describe('DNSSEC: which DS may still reach the parent (staleDs)', () => {
  const key = (tag: number, state: DnssecKeyState) =>
    ({ id: `key-${tag}`, state, ds: `${tag} 13 2 ${'ab'.repeat(32)}` }) as unknown as DnssecKey;
  const ds = (tag: number) => `${tag} 13 2 ${'AB'.repeat(32)}`;
  const signed = (...keys: DnssecKey[]) => ({ status: 'signed' as const, keys });

  it('an active key (published and signing) stands behind its DS (any case)', () => {
    expect(staleDs(signed(key(1, 'active')), [ds(1)])).to.equal(null);
  });
  it('unsigned, or going unsigned: every DS is stale, whoever it names', () => {
    expect(staleDs(null, [ds(1)])).to.equal(ds(1));
    expect(staleDs({ status: 'disabling', keys: [key(1, 'active')] }, [ds(1)])).to.equal(ds(1));
    expect(staleDs(null, [])).to.equal(null);
  });
  it('a key only published, only signing, or retired does not', () => {
    for (const s of ['published', 'signing', 'retired'] as const)
      expect(staleDs(signed(key(2, 'active'), key(1, s)), [ds(2), ds(1)]), s).to.equal(ds(1));
  });
  it('our DS whose key is gone (DNSSEC switched off and on: a new key) is stale; another operator’s DS is theirs to keep live', () => {
    expect(staleDs(signed(key(2, 'active')), [ds(1)], [ds(1)])).to.equal(ds(1));
    expect(staleDs(signed(key(2, 'active')), [ds(7)], [])).to.equal(null);
    // Recorded before `ownDs` existed: every DS counts as ours.
    expect(staleDs(signed(key(2, 'active')), [ds(7)])).to.equal(ds(7));
  });
  it('the key a rollover under way retires is leaving, though still active: its DS is stale; the new key’s, once active, is not', () => {
    const rolling = (step: string) => ({
      status: 'rolling' as const,
      keys: [key(1, 'active'), key(2, 'active')],
      rollover: { oldKeyId: 'key-1', newKeyId: 'key-2', step } as unknown as NonNullable<DnssecState['rollover']>,
    });
    for (const step of ['prepublish', 'double_sign', 'new_dnskey', 'ds_replaced']) {
      expect(staleDs(rolling(step), [ds(1)]), step).to.equal(ds(1));
      expect(staleDs(rolling(step), [ds(2)]), step).to.equal(null);
    }
    expect(staleDs({ ...rolling('double_sign'), rollover: null }, [ds(1)])).to.equal(null);
  });
});
