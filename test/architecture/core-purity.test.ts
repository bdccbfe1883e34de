import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * DESIGN "Shape": core/ is pure TypeScript. It imports no framework or I/O module, nothing from
 * adapters/ or src/, and never reads process.env or the clock. This test fails when that breaks.
 */
const FORBIDDEN_MODULES = [
  'koa', '@koa/router', 'knex', 'pg', 'better-sqlite3', 'inversify', 'pino', 'nock', 'otplib', '@node-rs/argon2',
  'node:http', 'node:https', 'node:net', 'node:dgram', 'node:fs', 'node:child_process', 'node:crypto', 'node:zlib',
  'http', 'https', 'net', 'dgram', 'fs', 'child_process', 'crypto',
];

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });

export const violations = (path: string, text: string): string[] => {
  const out: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  for (const m of code.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    const root = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
    if (FORBIDDEN_MODULES.includes(spec) || FORBIDDEN_MODULES.includes(root)) out.push(`${path}: imports ${spec}`);
    if (/^(\.\.\/)+(adapters|src)\//.test(spec) || /(^|\/)(adapters|src)\//.test(spec.replace(/^(\.\.\/)+/, '')) && spec.startsWith('..')) {
      out.push(`${path}: imports ${spec} (outside core)`);
    }
  }
  if (/process\.env/.test(code)) out.push(`${path}: reads process.env`);
  if (/Date\.now\s*\(/.test(code)) out.push(`${path}: reads Date.now()`);
  if (/new Date\(\s*\)/.test(code)) out.push(`${path}: reads the clock with new Date()`);
  return out;
};

describe('core purity (DESIGN: core/ is pure TypeScript)', () => {
  it('no file in core/ imports a framework, I/O, adapters/ or src/, or reads env or clock', () => {
    const root = join(import.meta.dirname, '..', '..');
    const found = files(join(root, 'core')).flatMap((f) => violations(relative(root, f), readFileSync(f, 'utf8')));
    expect(found).to.deep.equal([]);
  });

  it('the check itself catches each kind of violation', () => {
    expect(violations('x.ts', "import Koa from 'koa';")).to.have.length(1);
    expect(violations('x.ts', "import { x } from '../../adapters/sql/index.js';")).to.have.length(1);
    expect(violations('x.ts', "import { y } from '../src/config.js';")).to.have.length(1);
    expect(violations('x.ts', "import type { Knex } from 'knex';")).to.have.length(1);
    expect(violations('x.ts', "const m = await import('pg');")).to.have.length(1);
    expect(violations('x.ts', 'const u = process.env.X;')).to.have.length(1);
    expect(violations('x.ts', 'const t = Date.now();')).to.have.length(1);
    expect(violations('x.ts', 'const t = new Date();')).to.have.length(1);
    expect(violations('x.ts', "import { a } from './a.js'; const d = new Date(0);")).to.deep.equal([]);
  });
});
