import { expect } from 'chai';
import type { ZoneRepository } from '../../core/dns/ports/zone-repository.port.js';
import type { DnssecRepository } from '../../core/dnssec/ports/dnssec-repository.port.js';
import type { Domain } from '../../core/domains/domain.js';
import type { DomainRepository } from '../../core/domains/ports/domain-repository.port.js';
import type { EventRecorder } from '../../core/kernel/event-log.port.js';
import type { Random } from '../../core/kernel/random.port.js';
import { DeleteHostedDomain } from '../../core/operations/delete-hosted-domain.use-case.js';
import { OperationLog } from '../../core/operations/operation-log.js';
import type { OperationView } from '../../core/operations/operation.js';
import { SwitchOffDnssec } from '../../core/operations/switch-off-dnssec.use-case.js';
import { apiKeyFixture } from '../support/api-key.js';
import { operationFixture } from '../support/operation.js';
import { refusalText } from '../support/refusal.js';

/**
 * The routes that act at once or request a class 3 operation (switching DNSSEC off, deleting a hosted
 * domain), and the events an operation's changes write (issue 20), on in-memory ports.
 */

const NOW = new Date('2026-11-20T12:00:00Z');
const key = apiKeyFixture({ id: 'k-1' });

const refusal = refusalText;

const registered = { id: 'd-1', name: 'x.ua', registrar: 'sandbox' } as unknown as Domain;
const hosted = { id: 'd-1', name: 'x.ua', registrar: 'external', hosting: { status: 'active' } } as unknown as Domain;

describe('Operations: switching DNSSEC off, deleting a hosted domain (issue 20)', () => {
  const switchOff = (domain: Domain | null, dsAtParent: boolean) => {
    const requested: unknown[] = [];
    const use = new SwitchOffDnssec({
      zones: { find: async () => ({ id: 'z-1' }) } as unknown as ZoneRepository,
      dnssec: { find: async () => ({ dsAtParent }) } as unknown as DnssecRepository,
      domains: { find: async () => domain } as unknown as DomainRepository,
      disable: { execute: async () => ({ status: 'off' }) as never },
      operations: { pendingOn: async () => null },
      request: {
        execute: async (_actor, req) => {
          requested.push(req);
          return { id: 'op-1' } as OperationView;
        },
      },
    });
    return { use, requested };
  };

  it('with our DS at the parent: the dnssec_disable operation for a domain registered here; refused for a zone hosted for one registered elsewhere, or none', async () => {
    const here = switchOff(registered, true);
    expect(await here.use.execute(key, 'X.UA')).to.deep.equal({ operation: { id: 'op-1' } });
    expect(here.requested).to.deep.equal([{ kind: 'dnssec_disable', domain: 'x.ua' }]);
    for (const d of [hosted, null]) {
      const t = switchOff(d, true);
      expect(await refusal(t.use.execute(key, 'x.ua'))).to.equal('dnssec_ds_at_parent {"domain":"x.ua"}');
      expect(t.requested).to.deep.equal([]);
    }
    expect(await switchOff(hosted, false).use.execute(key, 'x.ua')).to.deep.equal({ off: { status: 'off' } });
  });

  it('deleting a hosted domain that is not here: domain_not_found, with its name', async () => {
    const use = new DeleteHostedDomain({
      domains: { find: async () => null } as unknown as DomainRepository,
      zones: { remove: async () => expect.fail('nothing to remove') },
      request: { execute: async () => expect.fail('no operation') },
      log: { hostingDeleted: async () => expect.fail('no event') },
      uow: { transaction: <T>(fn: () => Promise<T>) => fn(), afterCommit: (fn: () => void) => fn() },
    });
    expect(await refusal(use.execute(key, 'Gone.UA.'))).to.equal('domain_not_found {"domain":"gone.ua"}');
  });
});

describe('Operations: the events of an operation (OperationLog, issue 20)', () => {
  const recorded: unknown[][] = [];
  const log = new OperationLog(
    {
      record: async (...args: unknown[]) => {
        recorded.push(args);
      },
    } as unknown as EventRecorder,
    { id: () => 'E' } as unknown as Random,
    { now: () => NOW },
  );
  const DS = '12345 13 2 AAAA';

  it('the DS-removal event is about the domain, with the DS records and when signing stops', async () => {
    recorded.length = 0;
    await log.dnssecDisabling(operationFixture({ kind: 'dnssec_disable' }), [DS], NOW, 'person:p-2');
    expect(recorded).to.deep.equal([
      [
        'dns.dnssec_disabling',
        { accountId: 'acc-1', environment: 'test', subject: 'domain:x.ua', actor: 'person:p-2', occurredAt: NOW },
        { domain: 'x.ua', ds: [DS], stop_signing_at: NOW.toISOString() },
      ],
    ]);
  });

  it("an operation's event carries its DS records", async () => {
    recorded.length = 0;
    await log.record(operationFixture({ kind: 'dnssec_ds_publish', params: { ds: [DS] } }), 'pending', 'key:k-1');
    expect((recorded[0]![2] as { ds: string[] }).ds).to.deep.equal([DS]);
  });
});
