import { expect } from 'chai';
import { crc32 } from 'node:zlib';
import {
  checksumOf,
  formatToken,
  KEY_CHECKSUM_LENGTH,
  KEY_ID_LENGTH,
  KEY_SECRET_LENGTH,
  parseToken,
  toBase62,
} from '../../core/access/key-token.js';

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID = 'Ab3dEf6hIj9L';
const SECRET = '0123456789abcdefghijABCDEFGHIJzz';
const crc = (t: string) => crc32(t);

/** What the API does with a presented string: shape, then checksum (AuthenticateKey). */
const accepted = (token: string): boolean => {
  const p = parseToken(token);
  return p !== null && checksumOf(p.body, crc) === p.checksum;
};

describe('key strings (seed A2, DESIGN: dmk_<env>_<id><secret><checksum>)', () => {
  it('has the documented lengths', () => {
    expect([KEY_ID_LENGTH, KEY_SECRET_LENGTH, KEY_CHECKSUM_LENGTH]).to.deep.equal([12, 32, 6]);
    const t = formatToken('test', ID, SECRET, crc);
    expect(t).to.have.length('dmk_test_'.length + 12 + 32 + 6);
    expect(t).to.match(/^dmk_test_[0-9A-Za-z]{50}$/);
    expect(formatToken('live', ID, SECRET, crc)).to.match(/^dmk_live_[0-9A-Za-z]{50}$/);
  });

  it('format → parse round-trips in both environments', () => {
    for (const env of ['live', 'test'] as const) {
      const t = formatToken(env, ID, SECRET, crc);
      const p = parseToken(t);
      expect(p).to.deep.equal({
        environment: env,
        id: ID,
        body: `dmk_${env}_${ID}${SECRET}`,
        checksum: t.slice(-6),
      });
      expect(checksumOf(p!.body, crc)).to.equal(p!.checksum);
      expect(t.startsWith(`dmk_${env}_${ID}${SECRET}`)).to.equal(true);
    }
  });

  it('the checksum is CRC-32 of everything before it, base62, 6 characters', () => {
    const body = `dmk_test_${ID}${SECRET}`;
    expect(formatToken('test', ID, SECRET, crc)).to.equal(body + toBase62(crc32(body), 6));
    expect(toBase62(0, 6)).to.equal('000000');
    expect(toBase62(61, 6)).to.equal('00000z');
    expect(toBase62(62, 6)).to.equal('000010');
    expect(toBase62(0xffffffff, 6)).to.equal('4gfFC3'); // 2^32 − 1 still fits in 6 characters
  });

  it('a change of any single character at any position is detected', () => {
    const t = formatToken('test', ID, SECRET, crc);
    expect(accepted(t)).to.equal(true);
    let tried = 0;
    for (let i = 0; i < t.length; i++) {
      for (const c of B62 + '_-') {
        if (c === t[i]) continue;
        const changed = t.slice(0, i) + c + t.slice(i + 1);
        expect(accepted(changed), `position ${i} → ${c}`).to.equal(false);
        tried++;
      }
    }
    expect(tried).to.equal(t.length * (B62.length + 2 - 1));
  });

  it('two swapped neighbouring characters are detected', () => {
    const t = formatToken('live', ID, SECRET, crc);
    for (let i = 9; i < t.length - 1; i++) {
      if (t[i] === t[i + 1]) continue;
      const swapped = t.slice(0, i) + t[i + 1] + t[i] + t.slice(i + 2);
      expect(accepted(swapped), `swap at ${i}`).to.equal(false);
    }
  });

  it('a wrong or unknown environment prefix is refused', () => {
    const t = formatToken('test', ID, SECRET, crc);
    expect(parseToken(t.replace('dmk_test_', 'dmk_prod_'))).to.equal(null);
    expect(parseToken(t.replace('dmk_test_', 'dmk_TEST_'))).to.equal(null);
    expect(parseToken(t.replace('dmk_test_', 'dmx_test_'))).to.equal(null);
    expect(parseToken(t.replace('dmk_test_', 'test_'))).to.equal(null);
    // A test key relabelled live keeps its shape but fails its checksum: the environment is covered.
    const relabelled = t.replace('dmk_test_', 'dmk_live_');
    expect(parseToken(relabelled)!.environment).to.equal('live');
    expect(accepted(relabelled)).to.equal(false);
  });

  it('refuses wrong lengths and characters', () => {
    const t = formatToken('test', ID, SECRET, crc);
    expect(parseToken(t.slice(0, -1))).to.equal(null);
    expect(parseToken(`${t}a`)).to.equal(null);
    expect(parseToken(` ${t}`)).to.equal(null);
    expect(parseToken(`${t}\n`)).to.equal(null);
    expect(parseToken('dmk_test_')).to.equal(null);
    expect(parseToken('')).to.equal(null);
    expect(parseToken(t.slice(0, 20) + '+' + t.slice(21))).to.equal(null);
  });
});
