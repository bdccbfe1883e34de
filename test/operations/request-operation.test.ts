import { expect } from 'chai';
import type { DnssecState } from '../../core/dnssec/dnssec-state.js';
import type { DnssecRepository } from '../../core/dnssec/ports/dnssec-repository.port.js';
import type { ZoneRepository } from '../../core/dns/ports/zone-repository.port.js';
import type { Domain } from '../../core/domains/domain.js';
import type { DomainRepository } from '../../core/domains/ports/domain-repository.port.js';
import type { RegistrarEnvironments } from '../../core/domains/ports/registrar.port.js';
import type { OperationActor } from '../../core/kernel/actor.js';
import type { Random } from '../../core/kernel/random.port.js';
import type { Operation } from '../../core/operations/operation.js';
import type { OperationAccess } from '../../core/operations/operation-access.js';
import type { OperationLog } from '../../core/operations/operation-log.js';
import type { OperationRepository } from '../../core/operations/ports/operation-repository.port.js';
import { RequestOperation, type OperationRequest } from '../../core/operations/request-operation.use-case.js';
import { refusalText } from '../support/refusal.js';
import type { Checkpoint, Checkpoints } from '../../core/kernel/checkpoints.port.js';

/**
 * RequestOperation's own rules, on in-memory ports (issue 20: the HTTP suites reach them without asserting
 * each): what each kind records, when it is refused and with which code and params, and the DNSSEC effects.
 */

const NOW = new Date('2026-11-20T10:00:00Z');
const DNSKEY = 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==';

const domain = (over: Partial<Domain> = {}): Domain => ({
  id: 'd-1',
  accountId: 'acc-1',
  environment: 'test',
  name: 'x.ua',
  labels: ['b', 'a'],
  status: ['ok'],
  expiresOn: '2027-11-20',
  autoRenew: false,
  transferLock: true,
  nameservers: ['ns1.domivka.net', 'ns2.domivka.net'],
  createdAt: NOW,
  ...over,
});

const owner: OperationActor = { kind: 'person', personId: 'p-1', accountId: 'acc-1', role: 'owner', environment: 'test' };

const setup = (
  d: Domain | null,
  dnssec?: Partial<DnssecState> | null,
  zone = true,
  race?: { winner: Operation | null },
  /** The registrar the environment holds (the registry's DS are read through it), when the test is about it. */
  registrar?: object,
) => {
  const inserted: Operation[] = [];
  const logged: unknown[][] = [];
  let pendingCalls = 0;
  const use = new RequestOperation({
    domains: { find: async () => d, update: async () => {} } as unknown as DomainRepository,
    operations: {
      // With `race`, another request commits between the check and the insert.
      pendingOn: async () => (race && pendingCalls++ > 0 ? race.winner : null),
      insert: async (op: Operation) => {
        inserted.push(op);
        return !race;
      },
      find: async (accountId: string, id: string) => inserted.find((o) => o.accountId === accountId && o.id === id) ?? null,
    } as unknown as OperationRepository,
    access: { mayRequest: async () => {} } as unknown as OperationAccess,
    log: {
      record: async (...args: unknown[]) => {
        logged.push(args);
      },
    } as unknown as OperationLog,
    uow: { transaction: (fn) => fn(), afterCommit: (fn) => fn() },
    time: { now: async () => NOW, travelled: async () => [] },
    random: { id: () => 'ID' } as unknown as Random,
    ...(registrar ? { environments: { get: () => ({ registrar }), isAvailable: () => true } as unknown as RegistrarEnvironments } : {}),
    ...(dnssec !== undefined
      ? {
          zones: { find: async () => (zone ? { id: 'z-1' } : null) } as unknown as ZoneRepository,
          dnssec: { find: async () => dnssec } as unknown as DnssecRepository,
        }
      : {}),
  });
  return { use, inserted, logged };
};

const refusal = refusalText;

const key = (state: string, ds: string) => ({ state, ds }) as unknown as DnssecState['keys'][number];

describe('RequestOperation: the rules of each kind (issue 20)', () => {
  it('labels: trimmed, lower case, each once and sorted; the previous ones kept; no warning', async () => {
    const { use } = setup(domain());
    const view = await use.execute(owner, { kind: 'labels', domain: 'x.ua', labels: [' Prod ', 'dev', 'prod'] });
    expect(view.labels).to.deep.equal(['dev', 'prod']);
    expect(view.previous).to.deep.equal(['b', 'a']);
    expect(view.warnings).to.deep.equal([]);
  });

  it('labels: the same set in another order is no change; a bad label is named', async () => {
    const { use } = setup(domain());
    expect(await refusal(use.execute(owner, { kind: 'labels', domain: 'x.ua', labels: ['a', 'b'] }))).to.equal(
      'operation_no_change {"domain":"x.ua","kind":"labels"}',
    );
    expect(await refusal(use.execute(owner, { kind: 'labels', domain: 'x.ua', labels: ['a', 'c'] }))).to.equal('none');
    expect(await refusal(use.execute(owner, { kind: 'labels', domain: 'x.ua', labels: ['ok', 'Bad Label'] }))).to.equal(
      'labels_invalid {"domain":"x.ua","label":"bad label"}',
    );
  });

  it('nameservers: the same servers are no change, with the domain and kind named', async () => {
    const { use } = setup(domain());
    expect(
      await refusal(use.execute(owner, { kind: 'nameservers', domain: 'x.ua', nameservers: ['NS2.domivka.net.', 'ns1.domivka.net'] })),
    ).to.equal('operation_no_change {"domain":"x.ua","kind":"nameservers"}');
  });

  it('transfer_unlock: only while locked, and with no warning', async () => {
    expect(await refusal(setup(domain({ transferLock: false })).use.execute(owner, { kind: 'transfer_unlock', domain: 'x.ua' }))).to.equal(
      'operation_no_change {"domain":"x.ua","kind":"transfer_unlock"}',
    );
    const view = await setup(domain()).use.execute(owner, { kind: 'transfer_unlock', domain: 'x.ua' });
    expect(view.warnings).to.deep.equal([]);
    expect(view.status).to.equal('pending');
  });

  it('hosted_delete: only for a hosted domain', async () => {
    expect(await refusal(setup(domain()).use.execute(owner, { kind: 'hosted_delete', domain: 'x.ua' }))).to.equal(
      'domain_not_hosted {"domain":"x.ua"}',
    );
    const { use, inserted } = setup(domain({ registrar: 'external', expiresOn: null }));
    const view = await use.execute(owner, { kind: 'hosted_delete', domain: 'x.ua' });
    expect(view.kind).to.equal('hosted_delete');
    expect(view.warnings).to.deep.equal([]);
    expect(inserted[0]!.params).to.deep.equal({});
  });

  it('an unknown domain is not found; a hosted one with a zone has no DS for us to publish or remove', async () => {
    expect(await refusal(setup(null).use.execute(owner, { kind: 'labels', domain: 'x.ua', labels: ['a'] }))).to.equal(
      'domain_not_found {"domain":"x.ua"}',
    );
    const hosted = domain({ registrar: 'external', expiresOn: null });
    expect(await refusal(setup(hosted, {}).use.execute(owner, { kind: 'dnssec_ds_publish', domain: 'x.ua' }))).to.equal(
      'dnssec_ds_hosted {"domain":"x.ua"}',
    );
    expect(await refusal(setup(hosted, {}).use.execute(owner, { kind: 'dnssec_disable', domain: 'x.ua' }))).to.equal(
      'dnssec_ds_at_parent {"domain":"x.ua"}',
    );
  });

  it('through a phased route: recorded in one phase with its recovery point; a retry after that phase answers the same operation and records nothing', async () => {
    const { use, inserted } = setup(domain());
    const reached: Array<[string, unknown]> = [];
    const phased = (last: Checkpoint | null): Checkpoints => ({
      last,
      reach: async (point, fn) => {
        const data = await fn();
        reached.push([point, data]);
        return data;
      },
    });
    const first = await use.execute(owner, { kind: 'transfer_unlock', domain: 'x.ua' }, phased(null));
    expect(reached).to.deep.equal([['operation_requested', { operation_id: first.id }]]);
    // The answer was lost with the process; the retry finds the point and the operation it names.
    const again = await use.execute(
      owner,
      { kind: 'transfer_unlock', domain: 'x.ua' },
      phased({ point: 'operation_requested', data: { operation_id: first.id } }),
    );
    expect(again).to.deep.equal(first);
    expect(inserted).to.have.length(1);
    expect(reached).to.have.length(1);
  });

  it('a person without an environment acts in test', async () => {
    const { use, inserted } = setup(domain());
    await use.execute({ kind: 'person', personId: 'p-1', accountId: 'acc-1', role: 'owner' }, { kind: 'transfer_unlock', domain: 'x.ua' });
    expect(inserted[0]!.environment).to.equal('test');
  });

  it('the log names the person who asked', async () => {
    const { use, logged } = setup(domain());
    await use.execute(owner, { kind: 'transfer_unlock', domain: 'x.ua' });
    expect(logged.map((l) => [l[1], l[2]])).to.deep.equal([['pending', 'person:p-1']]);
  });

  it('a request that loses the race to another on the same domain is refused with the winner, or without one', async () => {
    const winner = { id: 'op_w', domain: 'x.ua', kind: 'labels' } as Operation;
    expect(
      await refusal(setup(domain(), undefined, true, { winner }).use.execute(owner, { kind: 'transfer_unlock', domain: 'x.ua' })),
    ).to.equal('operation_pending {"domain":"x.ua","operation_id":"op_w","kind":"labels"}');
    expect(
      await refusal(setup(domain(), undefined, true, { winner: null }).use.execute(owner, { kind: 'transfer_unlock', domain: 'x.ua' })),
    ).to.equal('operation_pending {"domain":"x.ua","operation_id":""}');
  });

  it('without the zone ports, a DNSSEC request on an unknown domain is simply not found', async () => {
    expect(await refusal(setup(null).use.execute(owner, { kind: 'dnssec_ds_publish', domain: 'x.ua' }))).to.equal(
      'domain_not_found {"domain":"x.ua"}',
    );
  });

  describe('DNSSEC', () => {
    const keys = [key('active', 'DS-A'), key('published', 'DS-P'), key('retired', 'DS-R')];
    const ds = (over: Partial<DnssecState>, request: OperationRequest = { kind: 'dnssec_ds_publish', domain: 'x.ua' }) =>
      setup(domain(), { keys, dsAtParent: false, rollover: null, ...over }).use.execute(owner, request);

    it('publishing the DS: the active keys’ DS; refused without DNSSEC or when the parent already holds it', async () => {
      const published = await ds({});
      expect(published.ds).to.deep.equal(['DS-A']);
      expect(published.warnings).to.deep.equal([]);
      expect(await refusal(setup(domain(), null).use.execute(owner, { kind: 'dnssec_ds_publish', domain: 'x.ua' }))).to.equal(
        'dnssec_not_enabled {"domain":"x.ua"}',
      );
      expect(await refusal(setup(domain(), {}, false).use.execute(owner, { kind: 'dnssec_ds_publish', domain: 'x.ua' }))).to.equal(
        'dnssec_not_enabled {"domain":"x.ua"}',
      );
      expect(await refusal(ds({ dsAtParent: true }))).to.equal('operation_no_change {"domain":"x.ua","kind":"dnssec_ds_publish"}');
    });

    it('switching off: every DS of a key still in the zone; refused without the DS at the parent or during a rollover', async () => {
      const off: OperationRequest = { kind: 'dnssec_disable', domain: 'x.ua' };
      const view = await ds({ dsAtParent: true }, off);
      expect(view.ds).to.deep.equal(['DS-A', 'DS-P']);
      expect(view.warnings).to.deep.equal([]);
      expect(await refusal(ds({}, off))).to.equal('operation_no_change {"domain":"x.ua","kind":"dnssec_disable"}');
      expect(await refusal(ds({ dsAtParent: true, rollover: { step: 'double_sign' } as DnssecState['rollover'] }, off))).to.equal(
        'dnssec_rollover_in_progress {"domain":"x.ua","step":"double_sign"}',
      );
    });

    it('taking another operator’s key out: that key, presented; refused for an unknown tag or without DNSSEC', async () => {
      const foreignKeys = [
        { tag: 1, flags: 256, algorithm: 13, publicKey: 'AAAA' },
        { tag: 2371, flags: 257, algorithm: 13, publicKey: DNSKEY },
      ] as unknown as DnssecState['foreignKeys'];
      const remove = (tag: number): OperationRequest => ({ kind: 'dnssec_foreign_key_remove', domain: 'x.ua', keyTag: tag });
      const view = await ds({ foreignKeys }, remove(2371));
      expect(view.dnskey).to.deep.equal([`257 3 13 ${DNSKEY}`]);
      expect(view.warnings).to.deep.equal([]);
      expect(await refusal(ds({ foreignKeys }, remove(9)))).to.equal('dnssec_foreign_key_not_found {"domain":"x.ua","key_tag":9}');
      expect(await refusal(ds({}, remove(9)))).to.equal('dnssec_foreign_key_not_found {"domain":"x.ua","key_tag":9}');
      expect(await refusal(setup(domain(), null).use.execute(owner, remove(9)))).to.equal('dnssec_not_enabled {"domain":"x.ua"}');
    });

    it('given DS records (another operator’s, RFC 8901): removing a DS of a key still in the zone is refused, a retired key’s is not', async () => {
      const hex = (c: string) => c.repeat(64).toUpperCase();
      const real = [key('active', `11 13 2 ${hex('a')}`), key('published', `22 13 2 ${hex('b')}`), key('retired', `33 13 2 ${hex('c')}`)];
      const remove = (d: string): OperationRequest => ({ kind: 'dnssec_ds_remove', domain: 'x.ua', ds: [d] });
      expect((await ds({ keys: real }, remove(`33 13 2 ${'c'.repeat(64)}`))).ds).to.deep.equal([`33 13 2 ${hex('c')}`]);
      for (const [tag, c] of [
        ['11', 'a'],
        ['22', 'b'],
      ] as const) {
        expect(await refusal(ds({ keys: real }, remove(`${tag} 13 2 ${c.repeat(64)}`)))).to.equal(
          `dnssec_ds_is_ours {"domain":"x.ua","ds":"${tag} 13 2 ${hex(c)}"}`,
        );
      }
      // A request whose DS field is there but empty is one without: our own keys' DS.
      expect((await ds({}, { kind: 'dnssec_ds_publish', domain: 'x.ua', ds: undefined })).ds).to.deep.equal(['DS-A']);
    });

    it('switching off while other operators sign: refused, naming their key tags', async () => {
      const foreignKeys = [{ tag: 111 }, { tag: 222 }] as unknown as DnssecState['foreignKeys'];
      expect(await refusal(ds({ dsAtParent: true, foreignKeys }, { kind: 'dnssec_disable', domain: 'x.ua' }))).to.equal(
        'dnssec_foreign_keys_present {"domain":"x.ua","key_tags":"111, 222"}',
      );
    });

    it('moving away when the registry cannot tell its DS (it fails): requested without the DS warning, not refused', async () => {
      const registrar = {
        name: 'sandbox',
        capabilities: new Set(['ds_set']),
        dsRecords: async () => {
          throw new Error('registry down');
        },
      };
      const away: OperationRequest = { kind: 'nameservers', domain: 'x.ua', nameservers: ['a.example.net', 'b.example.net'] };
      const view = await setup(domain(), { keys, dsAtParent: false }, true, undefined, registrar).use.execute(owner, away);
      expect(view.status).to.equal('pending');
      expect(view.warnings.map((w) => w.code)).to.deep.equal(['nameservers_outside']);
    });

    it('moving away while the parent holds our DS warns, unless a multi-signer move is under way', async () => {
      const away: OperationRequest = { kind: 'nameservers', domain: 'x.ua', nameservers: ['a.example.net', 'b.example.net'] };
      const codes = async (over: Partial<DnssecState>) => (await ds(over, away)).warnings.map((w) => w.code);
      expect(await codes({ dsAtParent: true })).to.deep.equal(['nameservers_outside', 'dnssec_ds_at_parent']);
      expect(await codes({ dsAtParent: true, foreignKeys: [] })).to.deep.equal(['nameservers_outside', 'dnssec_ds_at_parent']);
      expect(await codes({ dsAtParent: true, foreignKeys: [{ tag: 1 }] as unknown as DnssecState['foreignKeys'] })).to.deep.equal([
        'nameservers_outside',
      ]);
      expect(await codes({ dsAtParent: false })).to.deep.equal(['nameservers_outside']);
    });
  });
});
