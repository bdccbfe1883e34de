import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { deserialize, serialize } from 'node:v8';
import dnsPacket from 'dns-packet';
import pino from 'pino';
import { answerSignedUseCases, remoteSignedUseCases, servfailOnError } from '../../../adapters/dns/signed-ipc.js';
import { SignedMessages, type SignedDnsUseCases } from '../../../adapters/dns/update/signed-messages.js';
import { signRequest } from '../../../adapters/dns/tsig.js';
import { RCODE } from '../../../adapters/dns/embedded/wire.js';
import { DomainError, isDomainError } from '../../../core/kernel/errors.js';
import type { ApiKey } from '../../../core/kernel/caller.js';
import type { DnsUpdateRequest } from '../../../core/dns/update/dns-update.js';

/**
 * A DNS cluster worker loads no core: the use cases behind UPDATE and signed messages are asked of its
 * primary over the cluster's IPC channel (adapters/dns/signed-ipc.ts). Here both ends are joined by a
 * channel that copies each message as node's 'advanced' IPC serialization does (v8 structured clone).
 */
const pair = () => {
  const toWorker = new EventEmitter();
  const toPrimary = new EventEmitter();
  const state = { connected: true, primaryAnswers: true };
  const worker = {
    get connected() {
      return state.connected;
    },
    send: (m: unknown) => {
      const copy = deserialize(serialize(m)) as unknown;
      setImmediate(() => toPrimary.emit('message', copy));
      return true;
    },
    on: (event: string, listener: (...args: unknown[]) => void) => toWorker.on(event, listener),
  };
  const primary = {
    isConnected: () => state.connected,
    send: (m: unknown) => {
      if (!state.primaryAnswers) return true;
      const copy = deserialize(serialize(m)) as unknown;
      setImmediate(() => toWorker.emit('message', copy));
      return true;
    },
    on: (event: string, listener: (...args: unknown[]) => void) => toPrimary.on(event, listener),
    once: (event: string, listener: (...args: unknown[]) => void) => toPrimary.once(event, listener),
  };
  return { worker, primary, state, exit: () => toPrimary.emit('exit'), disconnect: () => toWorker.emit('disconnect') };
};

const KEY = {
  id: 'key_1',
  accountId: 'acc_1',
  environment: 'test',
  conditions: { cidr: null, expiresOn: '2099-12-31', spendLimit: null },
  createdAt: new Date('2026-01-02T03:04:05Z'),
  revokedAt: null,
} as unknown as ApiKey;
const REQ: DnsUpdateRequest = { zone: 'example.test', prerequisites: [], updates: [{ kind: 'delete-name', name: 'a.example.test' }] };

/** The primary's use cases, recording every call. */
const fakeUseCases = () => {
  const calls: Array<[string, unknown[]]> = [];
  const released: string[] = [];
  const uc: SignedDnsUseCases = {
    tsigKeys: {
      execute: async (...a) => (
        calls.push(['tsigKeys.execute', a]),
        { ok: true, key: KEY, name: 'k.', algorithm: 'hmac-sha256', secret: 'c2VjcmV0' }
      ),
      firstUse: async (...a) => (calls.push(['tsigKeys.firstUse', a]), a[1] === 1),
    },
    update: {
      arrive: (key, zone) => {
        calls.push(['update.arrive', [key, zone]]);
        return () => released.push(zone);
      },
      execute: async (key, req, ctx) => {
        calls.push(['update.execute', [key, req, { serves: ctx.serves, peer: ctx.peer }]]);
        ctx.arrived?.();
        return { rcode: 'NOERROR', reason: '', serial: 7 };
      },
    },
    transfer: { execute: async (...a) => (calls.push(['transfer.execute', a]), { rcode: 'REFUSED', reason: 'no' }) },
    throttle: {
      admit: async (...a) => {
        calls.push(['throttle.admit', a]);
        if (a[0] === '192.0.2.66') throw new DomainError('too_many_attempts', { retry_after: 7 } as never);
        if (a[0] === '192.0.2.99') throw new Error('the store is down');
        return { keys: ['a', 'b', 'c'], counted: false, clean: true };
      },
      succeeded: async (...a) => void calls.push(['throttle.succeeded', a]),
      failed: async (...a) => void calls.push(['throttle.failed', a]),
    },
    keyRate: { takeForKey: (...a) => (calls.push(['keyRate.takeForKey', a]), { allowed: false, retryAfterSeconds: 3 }) },
  };
  return { uc, calls, released };
};

describe('DNS cluster workers ask their primary for the signed messages’ use cases (signed-ipc)', () => {
  it('every call reaches the primary with its arguments, and its answer comes back with Dates and domain errors intact', async () => {
    const { worker, primary } = pair();
    const { uc, calls } = fakeUseCases();
    answerSignedUseCases(primary, uc);
    const remote = remoteSignedUseCases(worker);

    const found = await remote.tsigKeys.execute('k.');
    expect(found.ok && found.key.createdAt).to.be.instanceOf(Date);
    expect(found.ok && found.key.createdAt.toISOString()).to.equal('2026-01-02T03:04:05.000Z');
    expect(await remote.tsigKeys.firstUse('key_1', 1, 'ab')).to.equal(true);
    expect(await remote.tsigKeys.firstUse('key_1', 2, 'ab')).to.equal(false);
    const check = await remote.throttle.admit('192.0.2.1', 'tsig:k.', 'on_failure');
    expect(check).to.deep.equal({ keys: ['a', 'b', 'c'], counted: false, clean: true });
    await remote.throttle.succeeded(check);
    await remote.throttle.failed(check, null);
    expect(await remote.keyRate.takeForKey('key_1')).to.deep.equal({ allowed: false, retryAfterSeconds: 3 });
    expect(await remote.update.execute(KEY, REQ, { serves: 'test', peer: '192.0.2.1' })).to.deep.equal({
      rcode: 'NOERROR',
      reason: '',
      serial: 7,
    });
    expect(await remote.transfer.execute(KEY, 'example.test', { serves: null, peer: '192.0.2.1' })).to.deep.equal({
      rcode: 'REFUSED',
      reason: 'no',
    });
    // The credential limiter's refusal is a domain error in the worker too (SignedMessages answers it REFUSED).
    const refused = await remote.throttle.admit('192.0.2.66', 'tsig:k.', 'on_failure').catch((e: unknown) => e);
    expect(isDomainError(refused) && refused.code).to.equal('too_many_attempts');
    expect(isDomainError(refused) && refused.params).to.deep.equal({ retry_after: 7 });
    const broken = await remote.throttle.admit('192.0.2.99', 'tsig:k.', 'on_failure').catch((e: unknown) => e);
    expect(isDomainError(broken)).to.equal(false);
    expect(String(broken)).to.include('the store is down');
    expect(calls.map(([op]) => op)).to.deep.equal([
      'tsigKeys.execute',
      'tsigKeys.firstUse',
      'tsigKeys.firstUse',
      'throttle.admit',
      'throttle.succeeded',
      'throttle.failed',
      'keyRate.takeForKey',
      'update.execute',
      'transfer.execute',
      'throttle.admit',
      'throttle.admit',
    ]);
    expect(calls[7]![1]).to.deep.equal([KEY, REQ, { serves: 'test', peer: '192.0.2.1' }]);
  });

  it("an announced UPDATE holds the primary's group commit until the core takes it, or the worker releases it, or dies", async () => {
    const { worker, primary, exit } = pair();
    const { uc, calls, released } = fakeUseCases();
    answerSignedUseCases(primary, uc);
    const remote = remoteSignedUseCases(worker);

    const first = remote.update.arrive(KEY, 'one.test');
    await remote.update.execute(KEY, { ...REQ, zone: 'one.test' }, { serves: null, peer: '192.0.2.1', arrived: first });
    expect(released).to.deep.equal(['one.test']); // by the core, as it joined its queue
    first(); // the adapter's own release afterwards changes nothing
    const second = remote.update.arrive(KEY, 'two.test');
    second();
    second();
    remote.update.arrive(KEY, 'three.test'); // never released by its worker
    await remote.keyRate.takeForKey('key_1'); // a round trip: every message before it was read
    expect(released).to.deep.equal(['one.test', 'two.test']);
    exit();
    expect(released).to.deep.equal(['one.test', 'two.test', 'three.test']);
    expect(calls.filter(([op]) => op === 'update.arrive').map(([, a]) => a)).to.deep.equal([
      [{ id: 'key_1' }, 'one.test'],
      [{ id: 'key_1' }, 'two.test'],
      [{ id: 'key_1' }, 'three.test'],
    ]);
  });

  it('use cases loaded on the first call (the hidden primary of npm run cluster) answer every call after', async () => {
    const { worker, primary } = pair();
    const { uc, released } = fakeUseCases();
    let loads = 0;
    answerSignedUseCases(primary, async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 20));
      return uc;
    });
    const remote = remoteSignedUseCases(worker);
    const arrived = remote.update.arrive(KEY, 'lazy.test');
    const [found, outcome] = await Promise.all([
      remote.tsigKeys.execute('k.'),
      remote.update.execute(KEY, { ...REQ, zone: 'lazy.test' }, { serves: null, peer: '192.0.2.1', arrived }),
    ]);
    expect(found.ok).to.equal(true);
    expect(outcome.rcode).to.equal('NOERROR');
    expect(released).to.deep.equal(['lazy.test']);
    expect(loads).to.equal(1);
  });

  it('use cases that failed to load are loaded again by the next call; an UPDATE announced meanwhile is no unhandled rejection', async () => {
    const { worker, primary } = pair();
    const { uc } = fakeUseCases();
    let loads = 0;
    answerSignedUseCases(primary, async () => {
      if (++loads <= 2) throw new Error('the store is not there yet');
      return uc;
    });
    const remote = remoteSignedUseCases(worker);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      // The first load (started by the announcement) fails, and so does the second (the call's).
      const arrived = remote.update.arrive(KEY, 'failing.test');
      const first = await remote.tsigKeys.execute('k.').catch((e: unknown) => e);
      expect(first).to.be.instanceOf(Error);
      arrived();
      await new Promise((r) => setTimeout(r, 20));
      const second = await remote.tsigKeys.execute('k.');
      expect(second.ok).to.equal(true);
      expect(loads).to.equal(3);
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  describe('a signed message whose primary is gone or silent is answered SERVFAIL, not left to time out', () => {
    const key = { name: 'k.', algorithm: 'hmac-sha256' as const, secret: Buffer.from('secret') };
    const signedUpdate = () =>
      signRequest(
        dnsPacket.encode({
          type: 'query',
          id: 4242,
          flags: 5 << 11,
          questions: [{ name: 'example.test', type: 'SOA', class: 'IN' }],
          authorities: [{ name: 'a.example.test', type: 'TXT', ttl: 60, class: 'IN', data: ['x'] }],
        }),
        key,
        { now: Math.floor(Date.now() / 1000) },
      ).message;
    const server = {
      answerUnsigned: () => [],
      transferAuthorised: () => [],
    };
    const handlerOver = (remote: SignedDnsUseCases) => {
      const log = pino({ level: 'silent' });
      return servfailOnError(new SignedMessages(remote, { serves: null, log }), log);
    };

    it('silent: SERVFAIL at the bound', async () => {
      const { worker, state } = pair();
      state.primaryAnswers = false;
      const remote = remoteSignedUseCases(worker, { updateMs: 50, otherMs: 50 });
      const t0 = Date.now();
      const [reply] = await handlerOver(remote).handle(signedUpdate(), 'tcp', '192.0.2.1', server);
      expect(Date.now() - t0).to.be.lessThan(5000);
      const answer = dnsPacket.decode(reply!);
      expect(answer.id).to.equal(4242);
      expect(answer.flags! & 0xf).to.equal(RCODE.SERVFAIL);
    });

    it('gone (the channel closed): SERVFAIL at once, and calls in flight fail when it closes', async () => {
      const { worker, state, disconnect } = pair();
      state.primaryAnswers = false;
      const remote = remoteSignedUseCases(worker);
      const inFlight = handlerOver(remote).handle(signedUpdate(), 'udp', '192.0.2.1', server);
      await new Promise((r) => setImmediate(r));
      state.connected = false;
      disconnect();
      const [a] = await inFlight;
      expect(dnsPacket.decode(a!).flags! & 0xf).to.equal(RCODE.SERVFAIL);
      const [b] = await handlerOver(remote).handle(signedUpdate(), 'udp', '192.0.2.1', server);
      expect(dnsPacket.decode(b!).flags! & 0xf).to.equal(RCODE.SERVFAIL);
    });
  });
});
