import { expect } from 'chai';
import { DomainError } from '../../core/kernel/errors.js';
import { delegationOf, nameserverWarnings, normalizeNameservers } from '../../core/operations/nameservers.js';
import { withoutPendingUpdate, withPendingUpdate } from '../../core/operations/operation.js';

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
});
