import { expect } from 'chai';
import { decodeCursor, encodeCursor, FILTERED_PAGE_ROUNDS, filteredPage, memoized } from '../../core/kernel/pagination.js';

/** A store of rows 'r000' … newest first, sorted by their key; `before` reads strictly older rows. */
function store(n: number) {
  const rows = Array.from({ length: n }, (_, i) => `r${String(n - 1 - i).padStart(3, '0')}`);
  const reads: (string | undefined)[] = [];
  const fetch = async (before: string | undefined, limit: number): Promise<string[]> => {
    reads.push(before);
    return rows.filter((r) => before === undefined || r < before).slice(0, limit);
  };
  return { rows, reads, fetch };
}

const page = (s: ReturnType<typeof store>, keep: (r: string) => boolean, cursor?: string, limit?: number) =>
  filteredPage({ cursor, limit, fetch: s.fetch, sortKey: (r) => r, keep, view: (r) => r.toUpperCase() });

describe('kernel: a filtered cursor page', () => {
  it('walks every kept row exactly once across pages, in order, ending with a null cursor', async () => {
    const s = store(57);
    const keep = (r: string) => Number(r.slice(1)) % 3 === 0;
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let calls = 0; calls < 10; calls++) {
      const p = await page(s, keep, cursor, 5);
      expect(p.data.length).to.be.at.most(5);
      seen.push(...p.data);
      if (p.next_cursor === null) break;
      cursor = p.next_cursor;
    }
    const want = s.rows.filter(keep).map((r) => r.toUpperCase());
    expect(seen).to.deep.equal(want);
  });

  it('ends with a null cursor when the last page is exactly full and nothing follows', async () => {
    const s = store(10);
    const p = await page(s, () => true, undefined, 10);
    expect(p.data).to.have.length(10);
    // The store page was full, so there may be more: the cursor is handed over, and the next page is empty and final.
    expect(p.next_cursor).to.be.a('string');
    const last = await page(s, () => true, p.next_cursor!, 10);
    expect(last).to.deep.equal({ data: [], next_cursor: null });
    const short = await page(store(9), () => true, undefined, 10);
    expect(short.next_cursor).to.equal(null);
  });

  it('reads a bounded number of store pages for a key that sees nothing, then hands over a cursor', async () => {
    const s = store(500);
    const p = await page(s, () => false, undefined, 10);
    expect(p.data).to.deep.equal([]);
    expect(s.reads).to.have.length(FILTERED_PAGE_ROUNDS + 1);
    // The cursor continues after the last row looked at: r499 … r290 were read (21 pages of 10).
    expect(decodeCursor(p.next_cursor!)).to.equal('r290');
    const rest = await page(s, () => false, p.next_cursor!, 10);
    expect(decodeCursor(rest.next_cursor!)).to.equal('r080');
  });

  it('continues a page from the row after the cursor', async () => {
    const s = store(30);
    const p = await page(s, () => true, encodeCursor('r020'), 3);
    expect(p.data).to.deep.equal(['R019', 'R018', 'R017']);
  });

  it('memoized asks once per key', async () => {
    const asked: string[] = [];
    const ask = memoized(async (d) => {
      asked.push(d);
      return d === 'a.ua';
    });
    expect([await ask('a.ua'), await ask('b.ua'), await ask('a.ua'), await ask('b.ua')]).to.deep.equal([true, false, true, false]);
    expect(asked).to.deep.equal(['a.ua', 'b.ua']);
  });
});
