import { expect } from 'chai';
import type { Domain } from '../../core/domains/domain.js';
import type { DomainRepository } from '../../core/domains/ports/domain-repository.port.js';
import { RegistryError, type RegistrarEnvironments } from '../../core/domains/ports/registrar.port.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import type { EventRecorder } from '../../core/kernel/event-log.port.js';
import type { Random } from '../../core/kernel/random.port.js';
import { LockTransfer } from '../../core/operations/lock-transfer.use-case.js';
import type { Operation } from '../../core/operations/operation.js';
import type { OperationRepository } from '../../core/operations/ports/operation-repository.port.js';
import { apiKeyFixture } from '../support/api-key.js';
import { operationFixture } from '../support/operation.js';
import { refusalText } from '../support/refusal.js';

/**
 * LockTransfer's own rules on in-memory ports (the HTTP suite reaches it through one happy path): the lock
 * is set at the registry only when it is off, a pending request to lift it (and only that kind) is cancelled,
 * the domain's statuses and event, and the refusals with their codes.
 */

const NOW = new Date('2026-11-20T10:00:00Z');

const domain = (over: Partial<Domain> = {}): Domain => ({
  id: 'd-1',
  accountId: 'acc-1',
  environment: 'test',
  name: 'x.ua',
  labels: [],
  status: ['ok'],
  expiresOn: '2027-11-20',
  autoRenew: false,
  transferLock: false,
  nameservers: ['ns1.domivka.net', 'ns2.domivka.net'],
  createdAt: NOW,
  ...over,
});

const pendingOp = (kind: Operation['kind']) => operationFixture({ kind });

interface Setup {
  stored?: Domain | null;
  pending?: Operation | null;
  registry?: Error | null;
  capabilities?: string[];
  key?: ApiKey;
  /** The domain read again in the transaction is locked already (another request got there first). */
  lockedMeanwhile?: boolean;
}

const setup = (s: Setup = {}) => {
  let stored = s.stored === undefined ? domain() : s.stored;
  const registry: Array<[string, boolean, string]> = [];
  const checked: unknown[][] = [];
  const cancelled: unknown[][] = [];
  const events: unknown[][] = [];
  let inTransaction = false;
  const updates: Array<{ domain: Domain; inTransaction: boolean }> = [];
  const registrar = {
    name: 'sandbox',
    capabilities: new Set(s.capabilities ?? ['transfer_lock']),
    setTransferLock: async (name: string, locked: boolean, clTRID: string) => {
      registry.push([name, locked, clTRID]);
      if (s.registry) throw s.registry;
    },
  };
  const use = new LockTransfer({
    domains: {
      find: async (accountId: string, environment: string, name: string) => {
        if (!stored || accountId !== stored.accountId || environment !== stored.environment || name !== stored.name) return null;
        return s.lockedMeanwhile && inTransaction ? { ...stored, transferLock: true, status: ['clientTransferProhibited'] } : stored;
      },
      update: async (d: Domain) => {
        updates.push({ domain: d, inTransaction });
        stored = d;
      },
    } as unknown as DomainRepository,
    operations: { pendingOn: async (id: string) => (id === 'd-1' ? (s.pending ?? null) : null) } as unknown as OperationRepository,
    cancelOperation: {
      cancel: async (op, actor) => {
        cancelled.push([op.id, actor]);
        return { ...op, status: 'cancelled', resolvedAt: NOW } as Operation;
      },
    },
    authorizer: {
      check: async (...args: unknown[]) => {
        checked.push(args);
        return null;
      },
    },
    environments: { get: () => ({ registrar }), isAvailable: () => true } as unknown as RegistrarEnvironments,
    events: {
      record: async (...args: unknown[]) => {
        events.push([...args, inTransaction]);
      },
    } as unknown as EventRecorder,
    uow: {
      transaction: async <T>(fn: () => Promise<T>) => {
        inTransaction = true;
        try {
          return await fn();
        } finally {
          inTransaction = false;
        }
      },
      afterCommit: (fn: () => void) => fn(),
    },
    random: { id: () => 'R1' } as unknown as Random,
    clock: { now: () => NOW },
  });
  return { use, registry, checked, cancelled, events, updates, stored: () => stored };
};

const key = apiKeyFixture({ id: 'k-1', createdBy: 'p-1' });

const refusal = refusalText;

describe('LockTransfer: setting the transfer lock again (issue 20)', () => {
  it('unlocked: the registry sets it (its own clTRID), the domain is locked with clientTransferProhibited in place of ok, and the event says so', async () => {
    const { use, registry, checked, events, updates, stored } = setup();
    const view = await use.execute(key, ' X.UA. ');
    expect(checked).to.deep.equal([[key, 'domain.lock', 'x.ua']]);
    expect(registry).to.deep.equal([['x.ua', true, 'lock-R1']]);
    expect(view.transfer_lock).to.equal(true);
    expect(view.status).to.deep.equal(['clientTransferProhibited']);
    expect(view.domain).to.equal('x.ua');
    expect(view.cancelled_operation).to.equal(null);
    expect(updates).to.deep.equal([
      { domain: { ...domain(), transferLock: true, status: ['clientTransferProhibited'] }, inTransaction: true },
    ]);
    expect(stored()!.transferLock).to.equal(true);
    expect(events).to.deep.equal([
      [
        'domain.transfer_locked',
        { accountId: 'acc-1', environment: 'test', subject: 'domain:x.ua', actor: 'key:k-1', occurredAt: NOW },
        { domain: 'x.ua', transfer_lock: true },
        true,
      ],
    ]);
  });

  it('other statuses are kept beside the lock', async () => {
    const { use } = setup({ stored: domain({ status: ['clientHold', 'ok'] }) });
    expect((await use.execute(key, 'x.ua')).status).to.deep.equal(['clientHold', 'clientTransferProhibited']);
  });

  it('already locked: neither the registry nor the domain is touched, no event; the answer is the domain as it is', async () => {
    const locked = domain({ transferLock: true, status: ['clientTransferProhibited'] });
    const { use, registry, events, updates } = setup({ stored: locked });
    const view = await use.execute(key, 'x.ua');
    expect(registry).to.deep.equal([]);
    expect(updates).to.deep.equal([]);
    expect(events).to.deep.equal([]);
    expect(view.transfer_lock).to.equal(true);
    expect(view.status).to.deep.equal(['clientTransferProhibited']);
  });

  it('a pending request to lift the lock is cancelled by the caller and returned; a pending operation of another kind is left alone', async () => {
    const lift = setup({
      stored: domain({ transferLock: true, status: ['clientTransferProhibited', 'pendingUpdate'] }),
      pending: pendingOp('transfer_unlock'),
    });
    const view = await lift.use.execute(key, 'x.ua');
    expect(lift.cancelled).to.deep.equal([['op-1', { kind: 'key', key }]]);
    expect(view.cancelled_operation).to.include({ id: 'op-1', status: 'cancelled', kind: 'transfer_unlock' });
    const other = setup({ pending: pendingOp('nameservers') });
    expect((await other.use.execute(key, 'x.ua')).cancelled_operation).to.equal(null);
    expect(other.cancelled).to.deep.equal([]);
  });

  it('an unknown domain is domain_not_found; the registry is not asked', async () => {
    const { use, registry } = setup({ stored: null });
    expect(await refusal(use.execute(key, 'x.ua'))).to.equal('domain_not_found {"domain":"x.ua"}');
    expect(registry).to.deep.equal([]);
  });

  it('the registry refusing is registry_failure and nothing changes here; another fault passes through unchanged', async () => {
    const refused = setup({ registry: new RegistryError('rejected', 'no') });
    expect(await refusal(refused.use.execute(key, 'x.ua'))).to.equal('registry_failure {"domain":"x.ua"}');
    expect(refused.updates).to.deep.equal([]);
    expect(refused.events).to.deep.equal([]);
    const fault = new Error('connection reset');
    const broken = setup({ registry: fault });
    let thrown: unknown = null;
    await broken.use.execute(key, 'x.ua').catch((e: unknown) => (thrown = e));
    expect(thrown).to.equal(fault);
    expect(broken.updates).to.deep.equal([]);
  });

  it('a registrar without the transfer lock is registrar_capability_missing', async () => {
    const { use } = setup({ capabilities: [] });
    expect(await refusal(use.execute(key, 'x.ua'))).to.equal(
      'registrar_capability_missing {"registrar":"sandbox","capability":"transfer_lock"}',
    );
  });

  it('locked meanwhile (by another request, after this one read the domain): not written again, no second event', async () => {
    const { use, registry, events, updates } = setup({ lockedMeanwhile: true });
    const view = await use.execute(key, 'x.ua');
    expect(registry).to.deep.equal([['x.ua', true, 'lock-R1']]);
    expect(updates).to.deep.equal([]);
    expect(events).to.deep.equal([]);
    expect(view.status).to.deep.equal(['clientTransferProhibited']);
  });
});
