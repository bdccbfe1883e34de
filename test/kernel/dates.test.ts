import { expect } from 'chai';
import { daysLeft } from '../../adapters/http/console/layout.js';
import { addDays, addYears, daysBetween, endOfKyivDay, isIsoDate, kyivDate, kyivMonth, startOfKyivDay } from '../../core/kernel/dates.js';

const at = (iso: string) => new Date(iso);

describe('dates in Europe/Kyiv (DESIGN: Time)', () => {
  describe('kyivDate', () => {
    it('winter (UTC+2): the Kyiv day starts at 22:00 UTC the day before', () => {
      expect(kyivDate(at('2026-01-15T21:59:59.999Z'))).to.equal('2026-01-15');
      expect(kyivDate(at('2026-01-15T22:00:00Z'))).to.equal('2026-01-16');
      expect(kyivDate(at('2026-01-16T00:00:00Z'))).to.equal('2026-01-16');
    });
    it('summer (UTC+3): the Kyiv day starts at 21:00 UTC the day before', () => {
      expect(kyivDate(at('2026-07-15T20:59:59.999Z'))).to.equal('2026-07-15');
      expect(kyivDate(at('2026-07-15T21:00:00Z'))).to.equal('2026-07-16');
    });
    it('the year turns in Kyiv before it does in UTC', () => {
      expect(kyivDate(at('2026-12-31T21:59:59Z'))).to.equal('2026-12-31');
      expect(kyivDate(at('2026-12-31T22:00:00Z'))).to.equal('2027-01-01');
    });
  });

  describe("daysBetween and the console's days left (regression: 22:30 UTC is already tomorrow in Kyiv)", () => {
    it('counts calendar days, across months and years, negative backwards', () => {
      expect(daysBetween('2026-11-27', '2026-12-17')).to.equal(20);
      expect(daysBetween('2026-12-31', '2027-01-01')).to.equal(1);
      expect(daysBetween('2026-03-28', '2026-03-30')).to.equal(2);
      expect(daysBetween('2026-12-17', '2026-11-27')).to.equal(-20);
    });
    it('a domain registered "today + 20" in Kyiv shows 20 days left at any hour of the UTC day', () => {
      for (const iso of ['2026-11-26T21:59:59Z', '2026-11-26T22:44:00Z', '2026-11-26T23:59:59Z', '2026-11-27T12:00:00Z']) {
        const now = at(iso);
        expect(daysLeft(addDays(kyivDate(now), 20), now), iso).to.equal(20);
      }
      expect(daysLeft(kyivDate(at('2026-11-26T22:44:00Z')), at('2026-11-26T22:44:00Z'))).to.equal(0);
      expect(daysLeft('2026-11-26', at('2026-11-26T22:44:00Z')), 'yesterday in Kyiv').to.equal(-1);
      expect(daysLeft(null, at('2026-11-26T22:44:00Z'))).to.equal(Number.POSITIVE_INFINITY);
    });
  });

  describe('endOfKyivDay / startOfKyivDay (a key is valid through its expiry date)', () => {
    it('winter: 23:59:59.999 Kyiv is 21:59:59.999 UTC', () => {
      expect(endOfKyivDay('2026-11-30').toISOString()).to.equal('2026-11-30T21:59:59.999Z');
      expect(startOfKyivDay('2026-11-30').toISOString()).to.equal('2026-11-29T22:00:00.000Z');
    });
    it('summer: 23:59:59.999 Kyiv is 20:59:59.999 UTC', () => {
      expect(endOfKyivDay('2026-07-15').toISOString()).to.equal('2026-07-15T20:59:59.999Z');
      expect(startOfKyivDay('2026-07-15').toISOString()).to.equal('2026-07-14T21:00:00.000Z');
    });
    it('2026-03-29 (clocks go forward at 03:00): starts at UTC+2, ends at UTC+3 — a 23-hour day', () => {
      const start = startOfKyivDay('2026-03-29');
      const end = endOfKyivDay('2026-03-29');
      expect(start.toISOString()).to.equal('2026-03-28T22:00:00.000Z');
      expect(end.toISOString()).to.equal('2026-03-29T20:59:59.999Z');
      expect(end.getTime() + 1 - start.getTime()).to.equal(23 * 3600_000);
      expect(endOfKyivDay('2026-03-28').toISOString()).to.equal('2026-03-28T21:59:59.999Z');
    });
    it('2026-10-25 (clocks go back at 04:00): starts at UTC+3, ends at UTC+2 — a 25-hour day', () => {
      const start = startOfKyivDay('2026-10-25');
      const end = endOfKyivDay('2026-10-25');
      expect(start.toISOString()).to.equal('2026-10-24T21:00:00.000Z');
      expect(end.toISOString()).to.equal('2026-10-25T21:59:59.999Z');
      expect(end.getTime() + 1 - start.getTime()).to.equal(25 * 3600_000);
      expect(endOfKyivDay('2026-10-24').toISOString()).to.equal('2026-10-24T20:59:59.999Z');
    });
    it('the last millisecond of a day is still that day in Kyiv, the next is not', () => {
      for (const d of ['2026-01-15', '2026-03-29', '2026-07-15', '2026-10-25', '2028-02-29']) {
        const end = endOfKyivDay(d);
        expect(kyivDate(end), d).to.equal(d);
        expect(kyivDate(new Date(end.getTime() + 1)), d).to.equal(addDays(d, 1));
        expect(kyivDate(startOfKyivDay(d)), d).to.equal(d);
        expect(kyivDate(new Date(startOfKyivDay(d).getTime() - 1)), d).to.equal(addDays(d, -1));
      }
    });
  });

  describe('kyivMonth (the spend-limit month)', () => {
    it('gives the month and its bounds [start, end)', () => {
      const m = kyivMonth(at('2026-11-21T10:00:00Z'));
      expect(m.month).to.equal('2026-11');
      expect(m.start.toISOString()).to.equal('2026-10-31T22:00:00.000Z');
      expect(m.end.toISOString()).to.equal('2026-11-30T22:00:00.000Z');
    });
    it('an instant late on the last UTC day already belongs to the next Kyiv month', () => {
      const m = kyivMonth(at('2026-03-31T21:30:00Z'));
      expect(m.month).to.equal('2026-04');
      expect(m.start.toISOString()).to.equal('2026-03-31T21:00:00.000Z');
      expect(m.end.toISOString()).to.equal('2026-04-30T21:00:00.000Z');
    });
    it('December ends at the Kyiv new year; a month spanning the DST change has mixed offsets', () => {
      const dec = kyivMonth(at('2026-12-15T12:00:00Z'));
      expect([dec.month, dec.start.toISOString(), dec.end.toISOString()]).to.deep.equal([
        '2026-12',
        '2026-11-30T22:00:00.000Z',
        '2026-12-31T22:00:00.000Z',
      ]);
      const jan = kyivMonth(at('2026-12-31T22:30:00Z'));
      expect(jan.month).to.equal('2027-01');
      const oct = kyivMonth(at('2026-10-31T21:59:59Z'));
      expect([oct.month, oct.start.toISOString(), oct.end.toISOString()]).to.deep.equal([
        '2026-10',
        '2026-09-30T21:00:00.000Z',
        '2026-10-31T22:00:00.000Z',
      ]);
    });
    it('consecutive months touch: one ends where the next starts', () => {
      let m = kyivMonth(at('2026-01-10T12:00:00Z'));
      for (let i = 0; i < 13; i++) {
        const next = kyivMonth(m.end);
        expect(next.start.getTime()).to.equal(m.end.getTime());
        expect(kyivMonth(new Date(m.end.getTime() - 1)).month).to.equal(m.month);
        m = next;
      }
      expect(m.month).to.equal('2027-02');
    });
  });

  describe('addDays', () => {
    it('crosses months, years and leap days', () => {
      expect(addDays('2026-11-21', 30)).to.equal('2026-12-21');
      expect(addDays('2026-11-21', 365)).to.equal('2027-11-21');
      expect(addDays('2026-12-31', 1)).to.equal('2027-01-01');
      expect(addDays('2028-02-28', 1)).to.equal('2028-02-29');
      expect(addDays('2027-02-28', 1)).to.equal('2027-03-01');
      expect(addDays('2026-03-01', -1)).to.equal('2026-02-28');
      expect(addDays('2026-03-29', 0)).to.equal('2026-03-29');
    });
  });

  describe('addYears', () => {
    it('adds calendar years', () => {
      expect(addYears('2026-11-21', 1)).to.equal('2027-11-21');
      expect(addYears('2026-11-21', 10)).to.equal('2036-11-21');
      expect(addYears('2026-11-21', -1)).to.equal('2025-11-21');
    });
    it('29 February becomes 28 February in a common year, stays 29 in a leap year', () => {
      expect(addYears('2028-02-29', 1)).to.equal('2029-02-28');
      expect(addYears('2028-02-29', 4)).to.equal('2032-02-29');
      expect(addYears('2027-02-28', 1)).to.equal('2028-02-28');
    });
  });

  describe('isIsoDate', () => {
    it('accepts real calendar dates', () => {
      for (const d of ['2026-01-01', '2026-12-31', '2028-02-29', '2026-02-28']) expect(isIsoDate(d), d).to.equal(true);
    });
    it('rejects impossible dates and other shapes', () => {
      for (const d of [
        '2026-02-30',
        '2026-02-29',
        '2026-13-01',
        '2026-00-10',
        '2026-04-31',
        '2026-1-01',
        '26-01-01',
        '2026-01-01T00:00:00Z',
        '2026/01/01',
        '',
        ' 2026-01-01',
      ]) {
        expect(isIsoDate(d), d).to.equal(false);
      }
    });
  });
});
