import { expect } from 'chai';
import { DomainError } from '../../core/kernel/errors.js';
import { delegationOf, dsAtParentWarning, nameserverWarnings, normalizeNameservers } from '../../core/operations/nameservers.js';
import {
  describeEffect,
  partyLabel,
  partyOf,
  viewOperation,
  withoutPendingUpdate,
  withPendingUpdate,
  type Operation,
} from '../../core/operations/operation.js';
import { operationFixture } from '../support/operation.js';

const code = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    return e instanceof DomainError ? `${e.code}:${String(e.params.reason)}` : 'other';
  }
  return 'none';
};

/** the pure rules of class 3 operations. */
describe('Class 3 operations: nameserver rules and the pendingUpdate status', () => {
  it('normalises case and the trailing dot; refuses bad names, duplicates, glue and counts outside 2–13', () => {
    expect(normalizeNameservers('example.com.ua', ['NS1.Example.NET.', 'ns2.example.net'])).to.deep.equal([
      'ns1.example.net',
      'ns2.example.net',
    ]);
    expect(code(() => normalizeNameservers('example.com.ua', ['ns1.example.net', 'bad name']))).to.equal('nameservers_invalid:hostname');
    expect(code(() => normalizeNameservers('example.com.ua', ['ns1.example.net', 'NS1.example.net.']))).to.equal(
      'nameservers_invalid:duplicate',
    );
    expect(code(() => normalizeNameservers('example.com.ua', ['ns1.example.com.ua', 'ns1.example.net']))).to.equal(
      'nameservers_invalid:glue',
    );
    expect(code(() => normalizeNameservers('example.com.ua', ['ns1.example.net']))).to.equal('nameservers_invalid:count');
    const many = Array.from({ length: 14 }, (_, i) => `ns${i}.example.net`);
    expect(code(() => normalizeNameservers('example.com.ua', many))).to.equal('nameservers_invalid:count');
  });

  it('tells ours, mixed and outside delegations apart, with uk + en warnings', () => {
    expect(delegationOf(['ns1.domivka.net', 'ns2.domivka.net'])).to.equal('ours');
    expect(delegationOf(['ns1.domivka.net', 'ns9.example.net'])).to.equal('mixed');
    expect(delegationOf(['a.example.net', 'b.example.net'])).to.equal('outside');
    expect(nameserverWarnings('x.ua', ['ns1.domivka.net', 'ns2.domivka.net'])).to.deep.equal([]);
    const [w] = nameserverWarnings('x.ua', ['a.example.net', 'b.example.net']);
    expect(w!.code).to.equal('nameservers_outside');
    expect(w!.message.uk).to.include('a.example.net');
    expect(w!.message.en).to.include('outside Domivka');
  });

  it('pendingUpdate replaces ok while waiting and ok returns after (RFC 5731 §2.3)', () => {
    expect(withPendingUpdate(['ok'])).to.deep.equal(['pendingUpdate']);
    expect(withPendingUpdate(['clientTransferProhibited'])).to.deep.equal(['clientTransferProhibited', 'pendingUpdate']);
    expect(withoutPendingUpdate(['pendingUpdate'])).to.deep.equal(['ok']);
    expect(withoutPendingUpdate(['clientTransferProhibited', 'pendingUpdate'])).to.deep.equal(['clientTransferProhibited']);
  });

  it('a wrong count names the whole list, comma-separated', () => {
    try {
      normalizeNameservers('example.com.ua', ['ns1.example.net']);
      expect.fail('no error');
    } catch (e) {
      expect((e as DomainError).params).to.deep.equal({ domain: 'example.com.ua', nameserver: 'ns1.example.net', reason: 'count' });
    }
    try {
      normalizeNameservers(
        'example.com.ua',
        Array.from({ length: 14 }, (_, i) => `ns${i}.example.net`),
      );
      expect.fail('no error');
    } catch (e) {
      expect(String(((e as DomainError).params as Record<string, unknown>).nameserver)).to.match(
        /^ns0\.example\.net, ns1\.example\.net, .*, ns13\.example\.net$/,
      );
    }
  });

  it('the warnings name the outside servers comma-separated, ours too, and the DS warning names the safe orders', () => {
    const [out] = nameserverWarnings('x.ua', ['a.example.net', 'b.example.net']);
    expect(out!.message.en).to.include('outside Domivka (a.example.net, b.example.net)');
    expect(out!.message.en).to.include('back on ns1.domivka.net, ns2.domivka.net.');
    expect(out!.message.uk).to.include('(a.example.net, b.example.net)');
    const [mixed] = nameserverWarnings('x.ua', ['ns1.domivka.net', 'c.example.net', 'd.example.net']);
    expect(mixed).to.deep.equal({
      code: 'nameservers_mixed',
      message: {
        uk: 'Серед серверів імен є сторонні (c.example.net, d.example.net): вони мають віддавати ту саму зону, що й наші, інакше відповіді різнитимуться.',
        en: 'Some nameservers are not ours (c.example.net, d.example.net): they must serve the same zone as ours, or answers will differ.',
      },
    });
    const ds = dsAtParentWarning('x.ua');
    expect(ds.code).to.equal('dnssec_ds_at_parent');
    expect(ds.message.en).to.match(
      /^The parent zone holds our DS for x\.ua: .*POST \/v1\/domains\/x\.ua\/dnssec\/foreign-keys.*DELETE \/v1\/domains\/x\.ua\/dnssec/,
    );
    expect(ds.message.uk).to.match(/^Батьківська зона містить наш DS домену x\.ua: .*RFC 8901.*DELETE \/v1\/domains\/x\.ua\/dnssec/);
  });
});

describe('Operations: what an operation says (effect, view, parties)', () => {
  const op = (over: Partial<Operation>): Operation => operationFixture({ id: 'op_1', ...over });
  const DNSKEY = '257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==';

  it('describes each DNSSEC kind with its DS records or the key tag of the other operator’s key', () => {
    const ds = ['2371 13 2 ABCD', '1234 13 2 EF01'];
    expect(describeEffect({ kind: 'dnssec_ds_publish', domain: 'x.ua', params: { ds } })).to.deep.equal({
      uk: 'Реєстр отримає DS 2371 13 2 ABCD, 1234 13 2 EF01 для домену x.ua; відтоді резолвери, що перевіряють DNSSEC, перевірятимуть підписи зони.',
      en: "The registry receives the DS 2371 13 2 ABCD, 1234 13 2 EF01 for x.ua; from then on validating resolvers check the zone's signatures.",
    });
    expect(describeEffect({ kind: 'dnssec_disable', domain: 'x.ua', params: { ds } })).to.deep.equal({
      uk: 'Реєстр прибере DS 2371 13 2 ABCD, 1234 13 2 EF01 домену x.ua; зона підписуватиметься, доки не мине TTL DS, а потім DNSSEC вимкнеться. Так резолвери, що перевіряють DNSSEC, не втратять домен.',
      en: 'The registry removes the DS 2371 13 2 ABCD, 1234 13 2 EF01 of x.ua; the zone stays signed until the DS TTL has passed, then DNSSEC goes off. Validating resolvers never lose the domain on the way.',
    });
    expect(describeEffect({ kind: 'dnssec_ds_publish', domain: 'x.ua', params: {} }).en).to.equal(
      "The registry receives the DS  for x.ua; from then on validating resolvers check the zone's signatures.",
    );
    expect(describeEffect({ kind: 'dnssec_disable', domain: 'x.ua', params: {} }).uk).to.match(/^Реєстр прибере DS  домену x\.ua;/);
    expect(describeEffect({ kind: 'dnssec_ds_publish', domain: 'x.ua', params: {} }).uk).to.match(/^Реєстр отримає DS  для домену x\.ua;/);
    expect(describeEffect({ kind: 'dnssec_disable', domain: 'x.ua', params: {} }).en).to.match(/^The registry removes the DS  of x\.ua;/);
    expect(describeEffect({ kind: 'dnssec_foreign_key_remove', domain: 'x.ua', params: {} }).uk).to.match(/^Ключ іншого оператора  зникне/);
    expect(describeEffect({ kind: 'dnssec_ds_remove', domain: 'x.ua', params: { ds } }).en).to.match(
      /^The registry removes the DS 2371 13 2 ABCD, 1234 13 2 EF01 of x\.ua\. Do this only once the operator/,
    );
    expect(describeEffect({ kind: 'dnssec_ds_remove', domain: 'x.ua', params: {} }).uk).to.match(
      /^Реєстр прибере DS  домену x\.ua\. Робіть/,
    );
    expect(describeEffect({ kind: 'dnssec_ds_remove', domain: 'x.ua', params: {} }).en).to.match(
      /^The registry removes the DS  of x\.ua\. Do/,
    );
    // A key written in several pieces (zone-file style) has the same tag.
    const b64 = DNSKEY.split(' ')[3]!;
    const pieces = `257 3 13 ${b64.slice(0, 40)} ${b64.slice(40)}`;
    expect(describeEffect({ kind: 'dnssec_foreign_key_remove', domain: 'x.ua', params: { dnskey: [pieces] } }).en).to.match(
      /^The other operator's key 2371 leaves/,
    );
    expect(describeEffect({ kind: 'dnssec_foreign_key_remove', domain: 'x.ua', params: { dnskey: [DNSKEY, DNSKEY] } })).to.deep.equal({
      uk: 'Ключ іншого оператора 2371, 2371 зникне з набору DNSKEY зони x.ua. Робіть це, лише коли той оператор уже не обслуговує зону і минув TTL його записів NS та DNSKEY: інакше резолвери, що перевіряють DNSSEC, відкинуть його відповіді.',
      en: "The other operator's key 2371, 2371 leaves the DNSKEY set of x.ua. Do this only once that operator no longer serves the zone and the TTLs of its NS and DNSKEY records have passed: before that, validating resolvers refuse its answers.",
    });
    expect(describeEffect({ kind: 'dnssec_foreign_key_remove', domain: 'x.ua', params: {} }).en).to.match(
      /^The other operator's key  leaves/,
    );
  });

  it('describes deleting a hosted domain', () => {
    expect(describeEffect({ kind: 'hosted_delete', domain: 'x.ua', params: {} })).to.deep.equal({
      uk: 'Домен x.ua і його зону буде видалено з рахунку; наші сервери імен перестануть відповідати за нього — сайт і пошта зникнуть, якщо делегація ще вказує на нас.',
      en: 'The domain x.ua and its zone leave the account; our nameservers stop answering for it — its site and mail go down if the delegation still points at us.',
    });
  });

  it('the view carries the params it has (previous, ds, dnskey) and the right of the kind', () => {
    const ns = viewOperation(
      op({ kind: 'nameservers', params: { nameservers: ['a.example.net', 'b.example.net'], previous: ['ns1.domivka.net'] } }),
    );
    expect(ns).to.include({ right: 'domain.nameservers' });
    expect(ns.previous).to.deep.equal(['ns1.domivka.net']);
    expect(ns.nameservers).to.deep.equal(['a.example.net', 'b.example.net']);
    const ds = viewOperation(op({ kind: 'dnssec_ds_publish', params: { ds: ['2371 13 2 ABCD'] } }));
    expect(ds.ds).to.deep.equal(['2371 13 2 ABCD']);
    expect(ds).to.not.have.property('dnskey');
    const key = viewOperation(op({ kind: 'dnssec_foreign_key_remove', params: { dnskey: [DNSKEY] } }));
    expect(key.dnskey).to.deep.equal([DNSKEY]);
    expect(key).to.not.have.property('ds');
    expect(key.right).to.equal('dns.dnssec');
  });

  it('parties: a person is person:<id>, a key key:<id>; an actor becomes the party it stands for', () => {
    expect(partyLabel({ type: 'person', personId: 'p-1' })).to.equal('person:p-1');
    expect(partyLabel({ type: 'key', keyId: 'k-1', personId: 'p-1' })).to.equal('key:k-1');
    expect(partyOf({ kind: 'person', personId: 'p-2', accountId: 'acc-1', role: 'owner' })).to.deep.equal({
      type: 'person',
      personId: 'p-2',
    });
  });

  it('a domain already pendingUpdate keeps its statuses as they are', () => {
    expect(withPendingUpdate(['clientTransferProhibited', 'pendingUpdate'])).to.deep.equal(['clientTransferProhibited', 'pendingUpdate']);
  });
});
