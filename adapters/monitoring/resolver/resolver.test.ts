import { expect } from 'chai';
import type { LookupAddress } from 'node:dns';
import type { EmbeddedNameserver } from '../../dns/embedded/index.js';
import { exampleZone } from '../../../test/dns/server/fixtures.js';
import { startServer } from '../../../test/dns/server/tools.js';
import { ownDnsResolve } from './index.js';

/** Sandbox targets resolve through our own DNS server. */
describe('adapters/monitoring/resolver: ownDnsResolve', () => {
  let ns: EmbeddedNameserver;
  let port: number;
  before(async () => {
    ({ ns, port } = await startServer([exampleZone()]));
  });
  after(async () => ns.stop());

  const resolve = (name: string, family?: number) =>
    new Promise<{ err: NodeJS.ErrnoException | null; list: LookupAddress[] }>((ok) =>
      ownDnsResolve({ host: '127.0.0.1', port })(name, { all: true, ...(family ? { family } : {}) }, (err, list) => ok({ err, list })),
    );

  it('answers A and AAAA like dns.lookup(…, {all: true}); a family narrows it; a missing name is ENOTFOUND', async () => {
    expect((await resolve('www.example.test')).list).to.deep.equal([
      { address: '192.0.2.1', family: 4 },
      { address: '192.0.2.2', family: 4 },
      { address: '2001:db8::1', family: 6 },
    ]);
    expect((await resolve('www.example.test', 6)).list).to.deep.equal([{ address: '2001:db8::1', family: 6 }]);
    expect((await resolve('nope.example.test')).err?.code).to.equal('ENOTFOUND');
  });
});
