import { expect } from 'chai';
import { REPLAY_MEMORY_MS, ResolveTsigKey } from '../../core/access/resolve-tsig-key.use-case.js';
import { endOfKyivDay } from '../../core/kernel/dates.js';
import { TOKENS } from '../../src/tokens.js';
import { TsigCredentials } from '../../core/access/tsig-credentials.use-case.js';
import type { ApiKey } from '../../core/kernel/caller.js';
import type { Actor } from '../../core/kernel/person.js';
import { apiKeyFixture } from '../support/api-key.js';
import { refusal } from '../support/refusal.js';
import { eachStore } from '../support/stores.js';
import { addPerson, startApi, type TestApi } from '../support/system.js';

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

  it('the secret is opened once per process, and a key revoked after that is refused at once all the same', async () => {
    const k = await dnsKey();
    const box = api.system.get(TOKENS.SecretBox);
    let opened = 0;
    const counting = { seal: (s: string) => box.seal(s), open: (s: string) => (opened++, box.open(s)) };
    const r = new ResolveTsigKey(api.system.store.keys, counting, api.clock, api.system.store.tsigReplays);
    for (let i = 0; i < 3; i++) expect((await r.execute(k.tsig.name)).ok).to.equal(true);
    expect(opened).to.equal(1);
    const del = await api.call(`/v1/account/keys/${k.id}`, { method: 'DELETE', headers: { cookie: owner } });
    expect(del.status, JSON.stringify(del.body)).to.equal(200);
    expect(await r.execute(k.tsig.name)).to.deep.equal({ ok: false, reason: 'revoked', keyId: k.id });
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

/**
 * TsigCredentials (the console's "DNS credential" of a key): shown to whoever may see the key, issued once
 * to an active key holding a DNS right that has none (a key issued before TSIG existed), kept sealed.
 */
eachStore('TsigCredentials: show and issue a key its DNS credential', (kind) => {
  let api: TestApi;
  let n = 0;
  let m7: string;
  let m8: string;
  before(async () => {
    api = await startApi(kind);
    api.clock.set(new Date('2026-11-21T10:00:00Z'));
    m7 = (await addPerson(api, 'member', 'm7@domivka-demo.com.ua')).id;
    m8 = (await addPerson(api, 'member', 'm8@domivka-demo.com.ua')).id;
  });
  after(async () => api.close());

  const owner = (): Actor => ({ personId: api.demo.personId, accountId: api.demo.accountId, role: 'owner' });
  const member = (personId: string): Actor => ({ personId, accountId: api.demo.accountId, role: 'member' });
  const credentials = () => api.system.get(TOKENS.TsigCredentials);
  /** A key stored as one issued before TSIG existed: no credential. */
  const oldKey = async (over: Partial<ApiKey> = {}): Promise<ApiKey> => {
    const key = apiKeyFixture({
      id: `tsigold${String(++n).padStart(5, '0')}`,
      accountId: api.demo.accountId,
      createdBy: api.demo.personId,
      policies: [{ right: 'dns.edit', resources: { domains: ['tsig.example'] } }],
      conditions: { cidr: null, expiresOn: '2026-12-31', spendLimit: null },
      ...over,
    });
    await api.system.store.keys.insert(key);
    return key;
  };

  it('issues hmac-sha256 by default: a 32-octet secret shown once, the name and algorithm then shown, the secret kept sealed', async () => {
    const key = await oldKey();
    expect(await credentials().show(owner(), key.id)).to.equal(null);
    const made = await credentials().issue(owner(), key.id);
    expect(made.algorithm).to.equal('hmac-sha256');
    expect(made.name).to.match(/^dmk-test-[0-9a-f]{20}$/);
    expect(Buffer.from(made.secret, 'base64')).to.have.length(32);
    expect(await credentials().show(owner(), key.id)).to.deep.equal({ name: made.name, algorithm: 'hmac-sha256' });
    const stored = (await api.system.store.keys.findById(key.id))!.tsig!;
    expect(stored.name).to.equal(made.name);
    expect(stored.sealedSecret).to.not.contain(made.secret);
    expect(api.system.get(TOKENS.SecretBox).open(stored.sealedSecret)).to.equal(made.secret);
  });

  it('hmac-sha512 on request (64 octets); another algorithm is a validation error and stores nothing', async () => {
    const key = await oldKey();
    const bad = await refusal(credentials().issue(owner(), key.id, 'hmac-md5'));
    expect(bad.code).to.equal('validation_failed');
    expect(bad.details).to.deep.equal([{ field: '/tsig_algorithm', rule: 'enum', value: 'hmac-md5' }]);
    expect((await api.system.store.keys.findById(key.id))!.tsig ?? null).to.equal(null);
    const made = await credentials().issue(owner(), key.id, 'hmac-sha512');
    expect(made.algorithm).to.equal('hmac-sha512');
    expect(Buffer.from(made.secret, 'base64')).to.have.length(64);
  });

  it('a key that has one keeps it: tsig_credential_exists names it', async () => {
    const key = await oldKey();
    const first = await credentials().issue(owner(), key.id);
    const again = await refusal(credentials().issue(owner(), key.id));
    expect(again.code).to.equal('tsig_credential_exists');
    expect(again.params).to.deep.equal({ key_id: key.id, name: first.name });
    expect((await api.system.store.keys.findById(key.id))!.tsig!.name).to.equal(first.name);
  });

  it('losing the race to another tab (the store sets only where none is set) is tsig_credential_exists with no name', async () => {
    const key = await oldKey();
    const racing = new TsigCredentials({
      // The other tab's credential landed between our read and our write: the store refuses ours.
      keys: { findById: (id) => api.system.store.keys.findById(id), setTsig: async () => false },
      secretBox: api.system.get(TOKENS.SecretBox),
      uow: api.system.store.uow,
      events: api.system.get(TOKENS.Recorder),
      random: api.system.get(TOKENS.Random),
      clock: api.clock,
    });
    const lost = await refusal(racing.issue(owner(), key.id));
    expect(lost.code).to.equal('tsig_credential_exists');
    expect(lost.params).to.deep.equal({ key_id: key.id, name: '' });
  });

  it('only an active key: revoked and expired keys are key_not_active with their status', async () => {
    const revoked = await oldKey();
    await api.system.store.keys.revoke(revoked.id, new Date('2026-11-20T00:00:00Z'), api.demo.personId);
    const r = await refusal(credentials().issue(owner(), revoked.id));
    expect(r.code).to.equal('key_not_active');
    expect(r.params).to.deep.equal({ key_id: revoked.id, status: 'revoked' });
    const expired = await oldKey({ conditions: { cidr: null, expiresOn: '2026-11-20', spendLimit: null } });
    const x = await refusal(credentials().issue(owner(), expired.id));
    expect(x.params).to.deep.equal({ key_id: expired.id, status: 'expired' });
    expect((await api.system.store.keys.findById(expired.id))!.tsig ?? null).to.equal(null);
  });

  it('only a key holding a DNS right (any one of them): otherwise tsig_right_missing', async () => {
    const plain = await oldKey({ policies: [{ right: 'domain.read', resources: { domains: ['tsig.example'] } }] });
    const e = await refusal(credentials().issue(owner(), plain.id));
    expect(e.code).to.equal('tsig_right_missing');
    expect(e.params).to.deep.equal({ key_id: plain.id });
    const mixed = await oldKey({
      policies: [
        { right: 'domain.read', resources: { domains: ['tsig.example'] } },
        { right: 'dns.acme_challenge', resources: { domains: ['tsig.example'] } },
      ],
    });
    expect((await credentials().issue(owner(), mixed.id)).algorithm).to.equal('hmac-sha256');
  });

  it('who may: an owner any key of the account, a member their own; anyone else finds no key', async () => {
    const mine = await oldKey({ createdBy: m7 });
    const theirs = await oldKey({ createdBy: m8 });
    const stranger: Actor = { personId: api.demo.personId, accountId: 'another-account', role: 'owner' };
    const notFound = async (p: Promise<unknown>, id: string) => {
      const e = await refusal(p);
      expect(e.code).to.equal('key_not_found');
      expect(e.params).to.deep.equal({ key_id: id });
    };
    await notFound(credentials().show(member(m7), theirs.id), theirs.id);
    await notFound(credentials().issue(member(m7), theirs.id), theirs.id);
    await notFound(credentials().show(stranger, mine.id), mine.id);
    await notFound(credentials().issue(stranger, mine.id), mine.id);
    await notFound(credentials().show(owner(), 'nosuchkey000'), 'nosuchkey000');
    expect(await credentials().show(member(m7), mine.id)).to.equal(null);
    const made = await credentials().issue(member(m7), mine.id);
    expect(await credentials().show(member(m8), theirs.id)).to.equal(null);
    expect(await credentials().show(owner(), mine.id)).to.deep.equal({ name: made.name, algorithm: made.algorithm });
    expect((await api.system.store.keys.findById(theirs.id))!.tsig ?? null).to.equal(null);
  });
});
