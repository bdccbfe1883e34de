import { expect } from 'chai';
import { rejectUnstorable } from '../../adapters/http/validation.js';
import { isDomainError } from '../../core/kernel/errors.js';

/** What no store keeps faithfully is refused before any schema sees it (adapters/http/validation.ts). */
const problems = (value: unknown, where: 'body' | 'query' | 'params' = 'body'): Array<{ field: string; rule: string }> => {
  try {
    rejectUnstorable(value, where);
    return [];
  } catch (err) {
    if (!isDomainError(err) || err.code !== 'validation_failed') throw err;
    return (err.details as Array<{ field: string; rule: string }>).map(({ field, rule }) => ({ field, rule }));
  }
};

describe('rejectUnstorable (NUL, non-finite numbers, nesting)', () => {
  it('passes plain values: flat string maps (the read path), nested bodies, nothing at all', () => {
    expect(problems({ domain: 'domivka-demo.dev' }, 'params')).to.deep.equal([]);
    expect(problems({ limit: '10', types: ['a', 'b'] }, 'query')).to.deep.equal([]);
    expect(problems({ a: [1, { b: 'x', c: null, d: true }] })).to.deep.equal([]);
    expect(problems(undefined)).to.deep.equal([]);
  });

  it('refuses NUL in a flat value, in a field name, inside arrays and nested objects, with the path', () => {
    expect(problems({ domain: 'a\u0000b' }, 'params')).to.deep.equal([{ field: '/params/domain', rule: 'no-nul' }]);
    expect(problems({ types: ['ok', 'x\u0000'] }, 'query')).to.deep.equal([{ field: '/query/types/1', rule: 'no-nul' }]);
    expect(problems({ 'k\u0000': 1 })).to.deep.equal([{ field: '/body', rule: 'no-nul' }]);
    expect(problems({ 'a/b': { '~c': ['\u0000'] } })).to.deep.equal([{ field: '/body/a~1b/~0c/0', rule: 'no-nul' }]);
  });

  it('refuses non-finite numbers and nesting deeper than 32 levels; reports at most 20 problems', () => {
    expect(problems({ n: Infinity }, 'query')).to.deep.equal([{ field: '/query/n', rule: 'finite' }]);
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = [deep];
    expect(problems({ deep }).map((p) => p.rule)).to.deep.equal(['max-depth']);
    expect(problems({ many: Array.from({ length: 50 }, () => '\u0000') })).to.have.length(20);
  });
});
