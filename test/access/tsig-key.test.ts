import { expect } from 'chai';
import { REPLAY_MEMORY_MS, ResolveTsigKey } from '../../core/access/resolve-tsig-key.use-case.js';
import { endOfKyivDay } from '../../core/kernel/dates.js';
import { TOKENS } from '../../src/tokens.js';
import { eachStore } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';

/**
 * The TSIG credential named in a signed DNS message (RFC 8945 §5.2.1) is the key's: ResolveTsigKey over the
 * real key repository and replay table. The DNS suites sign real messages; these pin the decisions themselves.
 */
eachStore('TSIG credentials resolve to their key (RFC 8945 §5.2.1)', (kind) => {
  let api: TestApi;
  let owner: string;
  before(async () => {
    api = await startApi(kind);
    api.clock.set(new Date('2026-11-21T10:00:00Z'));
    owner = await api.signIn();
  });
  after(async () => api.close());

  const resolver = () => api.system.get(TOKENS.ResolveTsigKey);
  /** A resolver of its own, as a fresh DNS worker process holds: its first claim purges old replays. */
  const freshResolver = () =>
    new ResolveTsigKey(api.system.store.keys, api.system.get(TOKENS.SecretBox), api.clock, api.system.store.tsigReplays);
  const dnsKey = async (expiresOn?: string) => {
    const k = await api.issueKey(
      {
        environment: 'test',
        rights: ['dns.edit'],
        domains: ['tsig.example'],
        ...(expiresOn ? { conditions: { expires_on: expiresOn } } : {}),
      },
      owner,
    );
    return { id: k.id, tsig: k.body.tsig as { name: string; algorithm: string; secret: string } };
  };

  it('a live credential gives its key, name, algorithm and the secret issued, whatever the case of the name', async () => {
    const k = await dnsKey();
    const r = await resolver().execute(k.tsig.name.toUpperCase());
    expect(r.ok).to.equal(true);
    if (!r.ok) return;
    expect(r.key.id).to.equal(k.id);
    expect(r.name).to.equal(k.tsig.name);
    expect(r.algorithm).to.equal('hmac-sha256');
    expect(r.secret).to.equal(k.tsig.secret);
  });

  it('an unknown name is unknown, and names no key', async () => {
    expect(await resolver().execute('dmk-test-00000000000000000000')).to.deep.equal({ ok: false, reason: 'unknown' });
  });

  it('a revoked key has no usable credential', async () => {
    const k = await dnsKey();
    const del = await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie: owner } });
    expect(del.status, JSON.stringify(del.body)).to.equal(200);
    expect(await resolver().execute(k.tsig.name)).to.deep.equal({ ok: false, reason: 'revoked', keyId: k.id });
  });

  it('an expired key has none either: usable through the last millisecond of its Kyiv expiry day, not after', async () => {
    const start = api.clock.now();
    const k = await dnsKey('2026-11-25');
    try {
      api.clock.set(endOfKyivDay('2026-11-25'));
      expect((await resolver().execute(k.tsig.name)).ok).to.equal(true);
      api.clock.advance(1);
      expect(await resolver().execute(k.tsig.name)).to.deep.equal({ ok: false, reason: 'expired', keyId: k.id });
    } finally {
      api.clock.set(start);
    }
  });

  it('a verified message is accepted once; replays are remembered for REPLAY_MEMORY_MS, then forgotten by the next process', async () => {
    const start = api.clock.now();
    try {
      const first = freshResolver();
      expect(await first.firstUse('k-replay', 1_000, 'aa')).to.equal(true);
      expect(await first.firstUse('k-replay', 1_000, 'aa')).to.equal(false);
      // Another MAC is another message (the MAC covers the time signed), and so is the same MAC of another key.
      expect(await first.firstUse('k-replay', 1_000, 'bb')).to.equal(true);
      expect(await first.firstUse('k-other', 1_000, 'aa')).to.equal(true);
      // Within the memory a new process still refuses it (its first claim purges only older replays).
      api.clock.advance(REPLAY_MEMORY_MS - 60_000);
      expect(await freshResolver().firstUse('k-replay', 1_000, 'aa')).to.equal(false);
      // Past it, a new process's first claim forgets it, so the same message (refused by the time window
      // of the adapter long before) no longer fills the table.
      api.clock.advance(2 * 60_000);
      expect(await freshResolver().firstUse('k-replay', 1_000, 'aa')).to.equal(true);
    } finally {
      api.clock.set(start);
    }
  });
});
