import { expect } from 'chai';
import { GroupCommit, MAX_TURNS } from '../../../core/dns/update/group-commit.js';
import { ZoneDraft } from '../../../core/dns/update/dns-update.js';
import { ZoneSets } from '../../../core/dns/zone/zone-sets.js';
import type { RecordSet } from '../../../core/dns/zone/record-set.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Issue 23 (bench:update): the turns of the event loop a group commit waits for company. Node reads a TCP
 * connection's first message one turn after it accepts the connection, so a message read in the turn after
 * the first one must still join its batch — with one turn, UPDATEs over TCP from four clients were
 * committed one by one. And a steady stream does not hold the first message: at most MAX_TURNS turns.
 */
describe('GroupCommit: turns of the event loop before a commit', () => {
  it('a message submitted one turn after the first joins the same batch', async () => {
    const batches: string[][] = [];
    const gc = new GroupCommit<string, string>(async (batch) => {
      batches.push([...batch]);
      return batch.map((b) => `ok ${b}`);
    });
    const first = gc.submit('q', 'a');
    // What a TCP connection accepted in this turn delivers: read in the next one.
    const second = new Promise<string>((resolve) => setImmediate(() => resolve(gc.submit('q', 'b'))));
    expect(await Promise.all([first, second])).to.deep.equal(['ok a', 'ok b']);
    expect(batches).to.deep.equal([['a', 'b']]);
  });

  it('a lone message is committed after two turns; other queues are not waited for', async () => {
    const batches: string[][] = [];
    const gc = new GroupCommit<string, string>(async (batch) => {
      batches.push([...batch]);
      return batch.map(() => 'ok');
    });
    let done = false;
    const p = gc.submit('q1', 'a').then(() => (done = true));
    await turn();
    await turn();
    await turn();
    await p;
    expect(done).to.equal(true);
    expect(batches).to.deep.equal([['a']]);
  });

  it('a message every turn: the first commit still comes within MAX_TURNS turns, and every message is answered', async () => {
    const batches: number[][] = [];
    const gc = new GroupCommit<number, number>(async (batch) => {
      batches.push([...batch]);
      return batch;
    });
    const answers: Promise<number>[] = [gc.submit('q', 0)];
    for (let i = 1; i <= 3 * MAX_TURNS; i++) {
      await turn();
      answers.push(gc.submit('q', i));
    }
    expect(await Promise.all(answers)).to.deep.equal(answers.map((_, i) => i));
    expect(batches[0]!.length).to.be.at.most(MAX_TURNS + 1);
    expect(batches.flat()).to.deep.equal(answers.map((_, i) => i));
  });
});

describe('ZoneDraft on indexed sets', () => {
  const zone = 'example.test';
  const sets: RecordSet[] = [
    { name: zone, type: 'SOA', ttl: 3600, values: ['ns1.example.net. hostmaster.example.test. 1 7200 900 1209600 300'] },
    { name: `www.${zone}`, type: 'A', ttl: 300, values: ['192.0.2.1'] },
    { name: `_acme-challenge.www.${zone}`, type: 'TXT', ttl: 60, values: ['one'] },
  ];

  it('judges and changes the sets a message names, from ZoneSets as from a list, and plans only what changed', () => {
    for (const base of [ZoneSets.of(sets), sets]) {
      const draft = new ZoneDraft(zone, base);
      expect(draft.at(`www.${zone}`).map((s) => s.type)).to.deep.equal(['A']);
      expect(draft.apply([{ kind: 'add', name: `_acme-challenge.www.${zone}`, type: 'TXT', ttl: 60, value: 'two' }])).to.equal(true);
      expect(draft.apply([{ kind: 'add', name: `_acme-challenge.www.${zone}`, type: 'TXT', ttl: 60, value: 'two' }])).to.equal(false);
      expect(draft.apply([{ kind: 'delete-name', name: `www.${zone}` }])).to.equal(true);
      expect(draft.at(`www.${zone}`)).to.deep.equal([]);
      expect(draft.changes()).to.deep.equal([
        {
          action: 'update',
          name: `_acme-challenge.www.${zone}`,
          type: 'TXT',
          ttl: 60,
          values: ['one', 'two'],
          current: { ttl: 60, values: ['one'] },
        },
        { action: 'delete', name: `www.${zone}`, type: 'A', current: { ttl: 300, values: ['192.0.2.1'] } },
      ]);
    }
    // The zone as read is never changed by a draft.
    expect(sets[2]!.values).to.deep.equal(['one']);
  });
});
