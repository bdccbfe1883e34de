import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * DESIGN "Shape": core/ is pure TypeScript. It imports no framework or I/O module, nothing from
 * adapters/ or src/, and never reads process.env or the clock. This test fails when that breaks.
 */
const FORBIDDEN_MODULES = [
  'koa',
  '@koa/router',
  'knex',
  'pg',
  'better-sqlite3',
  'inversify',
  'pino',
  'nock',
  'otplib',
  '@node-rs/argon2',
  'node:http',
  'node:https',
  'node:net',
  'node:dgram',
  'node:fs',
  'node:child_process',
  'node:crypto',
  'node:zlib',
  'http',
  'https',
  'net',
  'dgram',
  'fs',
  'child_process',
  'crypto',
];

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });

/** The only packages core/ may import: pure computation, no I/O. */
const ALLOWED_PACKAGES = ['ipaddr.js', 'node:url', 'dns-packet', 'tldts'];

export const violations = (path: string, text: string): string[] => {
  const out: string[] = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  for (const m of code.matchAll(
    /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g,
  )) {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    const root = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
    if (FORBIDDEN_MODULES.includes(spec) || FORBIDDEN_MODULES.includes(root)) out.push(`${path}: imports ${spec}`);
    else if (!spec.startsWith('.') && !ALLOWED_PACKAGES.includes(spec)) out.push(`${path}: imports ${spec} (not on core's allowlist)`);
    if (
      /^(\.\.\/)+(adapters|src)\//.test(spec) ||
      (/(^|\/)(adapters|src)\//.test(spec.replace(/^(\.\.\/)+/, '')) && spec.startsWith('..'))
    ) {
      out.push(`${path}: imports ${spec} (outside core)`);
    }
  }
  if (/process\.env/.test(code)) out.push(`${path}: reads process.env`);
  if (/Date\.now\s*\(/.test(code)) out.push(`${path}: reads Date.now()`);
  if (/new Date\(\s*\)/.test(code)) out.push(`${path}: reads the clock with new Date()`);
  if (/Math\.random\s*\(/.test(code)) out.push(`${path}: uses Math.random() (randomness comes from the Random port)`);
  if (/\bcrypto\.(randomUUID|getRandomValues|subtle)/.test(code)) out.push(`${path}: uses global crypto`);
  if (/performance\.now\s*\(|process\.hrtime/.test(code)) out.push(`${path}: reads a timer`);
  if (/\bprocess\.(?!env\b|hrtime)/.test(code)) out.push(`${path}: touches process`);
  if (/\b(setTimeout|setInterval)\s*\(/.test(code)) out.push(`${path}: schedules timers`);
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
    expect(violations('x.ts', "import lodash from 'lodash';")).to.have.length(1);
    expect(violations('x.ts', 'const r = Math.random();')).to.have.length(1);
    expect(violations('x.ts', 'const u = crypto.randomUUID();')).to.have.length(1);
    expect(violations('x.ts', 'setTimeout(f, 1);')).to.have.length(1);
    expect(violations('x.ts', "import ipaddr from 'ipaddr.js';")).to.deep.equal([]);
  });
});

describe('adapters never import each other; only src/ uses the container (DESIGN, STYLE 6)', () => {
  const root = join(import.meta.dirname, '..', '..');
  const all = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? all(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
    });

  it('an adapter family imports only core/ and itself', () => {
    const found: string[] = [];
    for (const file of all(join(root, 'adapters'))) {
      const rel = relative(join(root, 'adapters'), file);
      const family = rel.split('/')[0]!;
      for (const m of readFileSync(file, 'utf8').matchAll(/from\s+['"](\.[^'"]+)['"]/g)) {
        const target = relative(root, join(file, '..', m[1]!));
        if (target.startsWith('core/')) continue;
        if (target.startsWith('src/') || (target.startsWith('adapters/') && target.split('/')[1] !== family))
          found.push(`${relative(root, file)} → ${target}`);
      }
    }
    expect(found).to.deep.equal([]);
  });

  it('inversify appears only in src/', () => {
    const found = [...all(join(root, 'core')), ...all(join(root, 'adapters'))].filter((f) =>
      /from\s+['"]inversify['"]/.test(readFileSync(f, 'utf8')),
    );
    expect(found.map((f) => relative(root, f))).to.deep.equal([]);
  });
});
