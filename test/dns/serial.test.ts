import { expect } from 'chai';
import { nextSerial, serialGt } from '../../core/dns/zone/serial.js';

describe('SOA serials (RFC 1982 serial arithmetic, SERIAL_BITS = 32)', () => {
  it('nextSerial adds one and wraps at 2^32, never to 0', () => {
    expect(nextSerial(1)).to.equal(2);
    expect(nextSerial(2024010101)).to.equal(2024010102);
    expect(nextSerial(2 ** 32 - 2)).to.equal(2 ** 32 - 1);
    expect(nextSerial(2 ** 32 - 1)).to.equal(1);
  });

  it('serialGt compares within half the space (RFC 1982 §3.2)', () => {
    expect(serialGt(2, 1)).to.equal(true);
    expect(serialGt(1, 2)).to.equal(false);
    expect(serialGt(1, 1)).to.equal(false);
    // 1 comes after 2^32 - 1: the wrap
    expect(serialGt(1, 2 ** 32 - 1)).to.equal(true);
    expect(serialGt(2 ** 32 - 1, 1)).to.equal(false);
    expect(serialGt(2 ** 31 - 1, 0)).to.equal(true);
    // Exactly half the space apart is undefined (RFC 1982 §3.2): neither is greater here.
    expect(serialGt(2 ** 31, 0)).to.equal(false);
    expect(serialGt(0, 2 ** 31)).to.equal(false);
    // Every next serial is greater than the one before, across the wrap.
    for (const s of [0, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1]) expect(serialGt(nextSerial(s), s), String(s)).to.equal(true);
  });
});
