import { expect } from 'chai';
import type { ZoneRepository } from '../../core/dns/ports/zone-repository.port.js';
import { ZoneChanged, type ZoneService } from '../../core/dns/zone/zone-service.js';
import type { DnssecState } from '../../core/dnssec/dnssec-state.js';
import type { DnssecRepository } from '../../core/dnssec/ports/dnssec-repository.port.js';
import type { Domain } from '../../core/domains/domain.js';
import type { DomainRepository } from '../../core/domains/ports/domain-repository.port.js';
import { RegistryError, type RegistrarEnvironments } from '../../core/domains/ports/registrar.port.js';
import { DomainError } from '../../core/kernel/errors.js';
import type { EventRecorder } from '../../core/kernel/event-log.port.js';
import type { Random } from '../../core/kernel/random.port.js';
import { ActivateOperation, dsRecordOf } from '../../core/operations/activate-operation.js';
import { OperationLog } from '../../core/operations/operation-log.js';
import type { Operation } from '../../core/operations/operation.js';
import type { DomainLabelWriter, OperationRepository } from '../../core/operations/ports/operation-repository.port.js';
import { operationFixture } from '../support/operation.js';

/**
 * ActivateOperation on in-memory ports (issue 20: the HTTP and DNSSEC suites reach its happy paths): the
 * lease, the outcomes (busy, retry, failed with the reason), the retries on a zone changed meanwhile, the
 * domain's statuses after lifting the lock, and the DNSSEC effects on the zone's state.
 */

const NOW = new Date('2026-11-20T10:00:00Z');
const REAL = new Date('2026-11-20T12:00:00Z');

const domain = (over: Partial<Domain> = {}): Domain => ({
  id: 'd-1',
  accountId: 'acc-1',
  environment: 'test',
  name: 'x.ua',
  labels: [],
  status: ['clientTransferProhibited', 'pendingUpdate'],
  expiresOn: '2027-11-20',
  autoRenew: false,
  transferLock: true,
  nameservers: ['ns1.domivka.net', 'ns2.domivka.net'],
  createdAt: NOW,
  ...over,
});

const key = (state: string, ds: string) => ({ state, ds }) as unknown as DnssecState['keys'][number];

const dnssecState = (over: Partial<DnssecState> = {}): DnssecState =>
  ({ zoneId: 'z-1', domain: 'x.ua', status: 'signed', dsAtParent: false, keys: [], foreignKeys: [], ...over }) as unknown as DnssecState;

interface Setup {
  stored?: Domain | null;
  lease?: boolean;
  update?: boolean;
  registry?: unknown;
  capabilities?: string[];
  zone?: boolean;
  state?: DnssecState | null;
  /** How many times the transaction fails with ZoneChanged before it runs. */
  zoneChanged?: number;
}

const setup = (s: Setup = {}) => {
  const calls: unknown[][] = [];
  const events: Array<{ type: string; data: Record<string, unknown> }> = [];
  const saved: DnssecState[] = [];
  const updated: Domain[] = [];
  let zoneChanged = s.zoneChanged ?? 0;
  const registrar = {
    name: 'sandbox',
    capabilities: new Set(s.capabilities ?? ['nameservers', 'transfer_lock', 'ds_set', 'ds_remove']),
    ...Object.fromEntries(
      ['setNameservers', 'setTransferLock', 'setDs', 'removeDs'].map((m) => [
        m,
        async (...args: unknown[]) => {
          calls.push([m, ...args]);
          if (s.registry) throw s.registry;
        },
      ]),
    ),
  };
  const events$ = {
    record: async (type: string, _meta: unknown, data: Record<string, unknown>) => {
      events.push({ type, data });
    },
  } as unknown as EventRecorder;
  const deps: ConstructorParameters<typeof ActivateOperation>[0] = {
    operations: {
      lease: async (...args: unknown[]) => {
        calls.push(['lease', ...args]);
        return s.lease ?? true;
      },
      releaseLease: async (...args: unknown[]) => {
        calls.push(['releaseLease', ...args]);
      },
      update: async (op: Operation, expect: unknown) => {
        calls.push(['update', op.status, expect]);
        return s.update ?? true;
      },
    } as unknown as OperationRepository,
    domains: {
      find: async () => (s.stored === undefined ? domain() : s.stored),
      update: async (d: Domain) => {
        updated.push(d);
      },
      remove: async () => {},
    } as unknown as DomainRepository,
    labels: { setLabels: async () => {} } as unknown as DomainLabelWriter,
    environments: { get: () => ({ registrar }), isAvailable: () => true } as unknown as RegistrarEnvironments,
    zones: {
      find: async () => (s.zone === false ? null : { id: 'z-1', domain: 'x.ua', recordSets: [] }),
      lock: async () => {},
    } as unknown as ZoneRepository,
    zoneService: {
      publishOrReport: async () => {},
      commit: async () => ({ serial: 7 }),
    } as unknown as ZoneService,
    log: new OperationLog(events$, { id: () => 'E' } as unknown as Random, { now: () => REAL }),
    uow: {
      transaction: async <T>(fn: () => Promise<T>) => {
        if (zoneChanged-- > 0) throw new ZoneChanged('x.ua');
        return fn();
      },
      afterCommit: (fn: () => void) => fn(),
    },
    time: { now: async () => NOW, travelled: async () => [] },
    clock: { now: () => REAL },
    random: { id: () => 'T1' } as unknown as Random,
    dnssec: {
      find: async () => (s.state === undefined ? dnssecState() : s.state),
      save: async (st: DnssecState) => {
        saved.push(st);
      },
    } as unknown as DnssecRepository,
    dnssecTimings: { dnskeyTtlS: 3600, dsTtlS: 7200, propagationS: 600, cskLifetimeS: 86400, testWaitS: null },
  };
  return { use: new ActivateOperation(deps), deps, calls, events, saved, updated };
};

const DS_A = '12345 13 2 aaaa';
const DS_B = '23456 13 2 bbbb';

describe('ActivateOperation: applying a class 3 operation (issue 20)', () => {
  it('dsRecordOf reads a DS in presentation form: spaces around and between, the digest in upper case', () => {
    expect(dsRecordOf('  12345   13 2 abcdef01 ')).to.deep.equal({ keyTag: 12345, algorithm: 13, digestType: 2, digest: 'ABCDEF01' });
    expect(dsRecordOf('1 13 2')).to.deep.equal({ keyTag: 1, algorithm: 13, digestType: 2, digest: '' });
  });

  it('without the lease (another worker or owner holds it) it is busy and applies nothing', async () => {
    const t = setup({ lease: false });
    const op = operationFixture();
    expect(await t.use.activate(op, 'system:activation')).to.deep.equal({ outcome: 'busy', operation: op });
    expect(t.calls).to.deep.equal([['lease', 'op-1', 'T1', REAL, new Date(REAL.getTime() + 120_000)]]);
  });

  it('lifting the lock: clientTransferProhibited and pendingUpdate go, ok when nothing is left; other statuses stay', async () => {
    const t = setup();
    const r = await t.use.activate(operationFixture(), 'person:p-2');
    expect(r.outcome).to.equal('activated');
    expect(r.operation.status).to.equal('active');
    expect(t.calls).to.deep.include(['setTransferLock', 'x.ua', false, 'op-1-apply']);
    expect(t.updated).to.deep.equal([{ ...domain(), transferLock: false, status: ['ok'] }]);
    const held = setup({ stored: domain({ status: ['clientHold', 'clientTransferProhibited', 'pendingUpdate'] }) });
    await held.use.activate(operationFixture(), 'person:p-2');
    expect(held.updated[0]!.status).to.deep.equal(['clientHold']);
    expect(held.updated[0]!.transferLock).to.equal(false);
  });

  it('a registrar without the capability: failed, naming the registrar and what it cannot do', async () => {
    const t = setup({ capabilities: [] });
    const r = await t.use.activate(
      operationFixture({
        kind: 'nameservers',
        params: { nameservers: ['a.example.net', 'b.example.net'], previous: ['ns1.domivka.net', 'ns2.domivka.net'] },
      }),
      'system:activation',
    );
    expect(r.outcome).to.equal('failed');
    expect(r.operation.failureReason).to.equal('registrar_capability_missing: sandbox cannot nameservers');
    expect(t.events.map((e) => [e.type, e.data.failure_reason])).to.deep.equal([
      ['operation.failed', 'registrar_capability_missing: sandbox cannot nameservers'],
    ]);
  });

  it("a fault that is not the registry's answer: the lease is released and it stays pending for a later pass", async () => {
    const t = setup({ registry: new Error('connection reset') });
    const op = operationFixture();
    expect(await t.use.activate(op, 'system:activation', 'held-1')).to.deep.equal({ outcome: 'retry', operation: op });
    expect(t.calls.at(-1)).to.deep.equal(['releaseLease', 'op-1', 'held-1']);
    expect(t.calls.some((c) => c[0] === 'update')).to.equal(false);
    expect(t.events).to.deep.equal([]);
  });

  it('an environment not configured here (the adapters are missing): left pending for a later pass, not failed', async () => {
    const t = setup();
    const use = new ActivateOperation({
      ...t.deps,
      environments: {
        get: () => {
          throw new DomainError('environment_unavailable', { environment: 'test' });
        },
        isAvailable: () => false,
      } as unknown as RegistrarEnvironments,
    });
    const op = operationFixture();
    expect(await use.activate(op, 'system:activation', 'held-1')).to.deep.equal({ outcome: 'retry', operation: op });
    expect(t.calls.at(-1)).to.deep.equal(['releaseLease', 'op-1', 'held-1']);
    expect(t.events).to.deep.equal([]);
  });

  it('the registry refusing the DS: failed with dnssec_ds_refused, its removal with dnssec_ds_removal_refused', async () => {
    const refused = new RegistryError('rejected', 'policy');
    const pub = await setup({ registry: refused, state: dnssecState({ keys: [key('active', DS_A)] }) }).use.activate(
      operationFixture({ kind: 'dnssec_ds_publish', params: { ds: [DS_A] } }),
      'a',
    );
    expect(pub.operation.failureReason).to.equal('dnssec_ds_refused: policy');
    const off = await setup({ registry: refused }).use.activate(operationFixture({ kind: 'dnssec_disable', params: { ds: [DS_A] } }), 'a');
    expect(off.operation.failureReason).to.equal('dnssec_ds_removal_refused: policy');
  });

  it('the zone changed meanwhile: tried again, up to 6 times in all; then the lease is released and the error thrown', async () => {
    const t = setup({ zoneChanged: 5 });
    expect((await t.use.activate(operationFixture(), 'a', 'held-1')).outcome).to.equal('activated');
    const u = setup({ zoneChanged: 6 });
    let thrown: unknown = null;
    await u.use.activate(operationFixture(), 'a', 'held-1').catch((e: unknown) => (thrown = e));
    expect(thrown).to.be.instanceOf(ZoneChanged);
    expect(u.calls.at(-1)).to.deep.equal(['releaseLease', 'op-1', 'held-1']);
  });

  it('resolved by someone else under our feet (the conditional update refused): busy, nothing recorded', async () => {
    const t = setup({ update: false });
    const op = operationFixture();
    expect(await t.use.activate(op, 'a', 'held-1')).to.deep.equal({ outcome: 'busy', operation: op });
    expect(t.calls.filter((c) => c[0] === 'update')).to.deep.equal([['update', 'active', { token: 'held-1' }]]);
    expect(t.updated).to.deep.equal([]);
    expect(t.events).to.deep.equal([]);
  });

  describe('DNSSEC', () => {
    it('switching off while other operators sign: failed, naming their key tags; the registry is not asked', async () => {
      const state = dnssecState({ foreignKeys: [{ tag: 111 }, { tag: 222 }] as unknown as DnssecState['foreignKeys'] });
      const t = setup({ state });
      const r = await t.use.activate(operationFixture({ kind: 'dnssec_disable', params: { ds: [DS_A] } }), 'a');
      expect(r.operation.failureReason).to.equal("dnssec_foreign_keys_present: another operator's keys (111, 222) are in the DNSKEY set");
      expect(t.calls.some((c) => c[0] === 'removeDs')).to.equal(false);
    });

    it('switching off a zone we no longer hold: the DS leaves the registry, nothing else to change', async () => {
      const t = setup({ zone: false });
      const r = await t.use.activate(operationFixture({ kind: 'dnssec_disable', params: { ds: [DS_A] } }), 'a');
      expect(r.outcome).to.equal('activated');
      expect(t.calls).to.deep.include(['removeDs', 'x.ua', [dsRecordOf(DS_A)], 'op-1-apply']);
      expect(t.saved).to.deep.equal([]);
      const nostate = setup({ state: null });
      expect((await nostate.use.activate(operationFixture({ kind: 'dnssec_disable', params: { ds: [DS_A] } }), 'a')).outcome).to.equal(
        'activated',
      );
      expect(nostate.saved).to.deep.equal([]);
    });

    it('switched off: "disabling" until the DS TTL and the propagation time have passed (account time), with its event', async () => {
      const t = setup({ state: dnssecState({ status: 'secure', dsAtParent: true }) });
      await t.use.activate(operationFixture({ kind: 'dnssec_disable', params: { ds: [DS_A, DS_B] } }), 'person:p-2');
      const stop = new Date(NOW.getTime() + (7200 + 600) * 1000);
      expect(t.saved).to.deep.equal([
        dnssecState({ status: 'disabling', dsAtParent: false, stopSigningAt: stop, rollover: null, nextRolloverAt: null }),
      ]);
      expect(t.events.find((e) => e.type === 'dns.dnssec_disabling')!.data).to.deep.equal({
        domain: 'x.ua',
        ds: [DS_A, DS_B],
        stop_signing_at: stop.toISOString(),
      });
    });

    it("the DS published: secure when it is our active key's (any case); another operator's alone: sent, nothing of ours changes", async () => {
      const keys = [key('active', '12345 13 2 AAAA'), key('retired', '23456 13 2 BBBB')];
      const ours = setup({ state: dnssecState({ keys }) });
      await ours.use.activate(operationFixture({ kind: 'dnssec_ds_publish', params: { ds: [DS_A] } }), 'a');
      expect(ours.saved).to.deep.equal([dnssecState({ keys, status: 'secure', dsAtParent: true })]);
      expect(ours.calls).to.deep.include(['setDs', 'x.ua', [dsRecordOf(DS_A)], 'op-1-apply']);
      const theirs = '31589 13 2 CCCC';
      const other = setup({ state: dnssecState({ keys }) });
      const r = await other.use.activate(operationFixture({ kind: 'dnssec_ds_publish', params: { ds: [theirs], ownDs: [] } }), 'a');
      expect(r.outcome).to.equal('activated');
      expect(other.calls).to.deep.include(['setDs', 'x.ua', [dsRecordOf(theirs)], 'op-1-apply']);
      expect(other.saved).to.deep.equal([]);
    });

    it('the DS published while a rollover is under way: the parent holds it, and the zone stays rolling until the last step', async () => {
      // Double-signing: the old key (leaving) and the new one both active; the new key's DS is published.
      const keys = [
        { ...key('active', '34567 13 2 DDDD'), id: 'k-old' },
        { ...key('active', '12345 13 2 AAAA'), id: 'k-new' },
      ];
      const rollover = { kind: 'csk', step: 'double_sign', oldKeyId: 'k-old', newKeyId: 'k-new' } as unknown as DnssecState['rollover'];
      const t = setup({ state: dnssecState({ keys, status: 'rolling', rollover }) });
      await t.use.activate(operationFixture({ kind: 'dnssec_ds_publish', params: { ds: [DS_A] } }), 'a');
      expect(t.saved).to.deep.equal([dnssecState({ keys, status: 'rolling', rollover, dsAtParent: true })]);
    });

    it("a DS no live key stands behind (a retired or only published key's, ours from a key gone, the zone unsigned, going unsigned or gone): failed with dnssec_ds_stale, the registry not asked", async () => {
      const keys = [key('active', '12345 13 2 AAAA'), key('retired', '23456 13 2 BBBB'), key('published', '34567 13 2 DDDD')];
      const cases: Array<[Setup, string[], string[] | undefined]> = [
        [{ state: dnssecState({ keys }) }, [DS_B], undefined],
        [{ state: dnssecState({ keys }) }, ['34567 13 2 dddd'], undefined],
        [{ state: dnssecState({ keys }) }, ['45678 13 2 EEEE'], ['45678 13 2 EEEE']],
        [{ state: dnssecState({ keys, status: 'disabling' }) }, [DS_A], undefined],
        [{ state: null }, [DS_A], undefined],
        [{ zone: false }, [DS_A], [DS_A]],
      ];
      for (const [s, ds, ownDs] of cases) {
        const t = setup(s);
        const r = await t.use.activate(operationFixture({ kind: 'dnssec_ds_publish', params: { ds, ...(ownDs ? { ownDs } : {}) } }), 'a');
        expect(r.outcome, ds.join()).to.equal('failed');
        expect(r.operation.failureReason).to.match(
          /^dnssec_ds_stale: the DS \S+ 13 2 \S+ matches no live key of x\.ua; nothing was sent to the registry$/,
        );
        expect(t.calls.some((c) => c[0] === 'setDs')).to.equal(false);
        expect(t.saved).to.deep.equal([]);
        expect(t.events.map((e) => e.type)).to.include('operation.failed');
      }
    });

    it('an operation that carries no DS asks the registry for none and names none', async () => {
      const pub = setup();
      await pub.use.activate(operationFixture({ kind: 'dnssec_ds_publish', params: {} }), 'a');
      expect(pub.calls).to.deep.include(['setDs', 'x.ua', [], 'op-1-apply']);
      const off = setup({ state: dnssecState({ dsAtParent: true }) });
      await off.use.activate(operationFixture({ kind: 'dnssec_disable', params: {} }), 'a');
      expect(off.calls).to.deep.include(['removeDs', 'x.ua', [], 'op-1-apply']);
      expect(off.events.find((e) => e.type === 'dns.dnssec_disabling')!.data.ds).to.deep.equal([]);
    });
  });
});
