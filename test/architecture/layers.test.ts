import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The house inside core/: capabilities import each other only downward, through ports, and nothing
 * imports in a circle. A folder may import only folders of lower layers (the kernel imports nothing);
 * the top folders react to everything below and nothing imports them. A new core/ folder must be
 * placed here before it can be used.
 */
export const LAYERS: Readonly<Record<string, number>> = {
  kernel: 0,
  access: 1,
  accounts: 1,
  events: 1,
  billing: 2,
  domains: 3,
  dns: 4,
  certificates: 5,
  // Signs zones (dns) and, through class 3 operations (operations, above it), moves the DS at the registry.
  dnssec: 5,
  operations: 6,
  monitoring: 7,
  sandbox: 8,
  // Side effects and read models: may import any folder above; nothing imports them.
  notices: 9,
  webhooks: 9,
  console: 9,
};
const TOP = 9;

const root = resolve(import.meta.dirname, '..', '..');

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (f === 'node_modules' || f === 'native') return [];
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });

/** Relative imports of a file (static, re-exports and dynamic), as paths from the repository root. */
export const importsOf = (file: string, text: string): string[] => {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  const out: string[] = [];
  for (const m of code.matchAll(/(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
    const spec = (m[1] ?? m[2])!;
    out.push(relative(root, resolve(dirname(file), spec)).replace(/\.js$/, '.ts'));
  }
  return out;
};

/** Every import between core/ folders that breaks the layering, as "from → to (why)". */
export const layerViolations = (edges: ReadonlyArray<readonly [string, string]>): string[] => {
  const out: string[] = [];
  for (const [from, to] of edges) {
    const a = from.split('/');
    const b = to.split('/');
    if (a[0] !== 'core' || b[0] !== 'core' || a[1] === b[1]) continue;
    const la = LAYERS[a[1]!];
    const lb = LAYERS[b[1]!];
    if (la === undefined) out.push(`${from}: core/${a[1]} is not placed in a layer`);
    else if (lb === undefined) out.push(`${from} → ${to}: core/${b[1]} is not placed in a layer`);
    else if (lb === TOP) out.push(`${from} → ${to}: nothing imports core/${b[1]} (it reacts to events)`);
    else if (lb >= la) out.push(`${from} → ${to}: core/${a[1]} (layer ${la}) may import only lower layers, not core/${b[1]} (layer ${lb})`);
  }
  return out;
};

/** Circles in a file graph (Tarjan's strongly connected components of more than one file, or a self-import). */
export const circles = (edges: ReadonlyArray<readonly [string, string]>): string[][] => {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) next.set(a, [...(next.get(a) ?? []), b]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const found: string[][] = [];
  let i = 0;
  const visit = (v: string): void => {
    index.set(v, i);
    low.set(v, i++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (next.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
};

const graph = (folders: readonly string[]): Array<[string, string]> =>
  folders
    .flatMap((d) => sourceFiles(join(root, d)))
    .flatMap((f) => importsOf(f, readFileSync(f, 'utf8')).map((to): [string, string] => [relative(root, f), to]));

describe('the house: layers and circles', () => {
  const edges = graph(['core', 'adapters', 'src']);

  it('every core/ folder has a layer', () => {
    const folders = readdirSync(join(root, 'core')).filter((f) => statSync(join(root, 'core', f)).isDirectory());
    expect(folders.filter((f) => LAYERS[f] === undefined)).to.deep.equal([]);
  });

  it('core/ capabilities import only lower layers; nothing imports notices, webhooks or the console read model', () => {
    expect(layerViolations(edges)).to.deep.equal([]);
  });

  it('no file imports itself back, in core/, adapters/ or src/', () => {
    expect(circles(edges)).to.deep.equal([]);
  });

  it('the checks catch what they claim: an upward import, a top folder imported, an unplaced folder, a planted circle', () => {
    expect(layerViolations([['core/kernel/a.ts', 'core/access/b.ts']])).to.have.length(1);
    expect(layerViolations([['core/domains/a.ts', 'core/dns/b.ts']])).to.have.length(1);
    expect(layerViolations([['core/access/a.ts', 'core/events/b.ts']]), 'same layer').to.have.length(1);
    expect(layerViolations([['core/domains/a.ts', 'core/notices/b.ts']])).to.have.length(1);
    expect(layerViolations([['core/newthing/a.ts', 'core/kernel/b.ts']])).to.have.length(1);
    expect(
      layerViolations([
        ['core/dns/a.ts', 'core/domains/b.ts'],
        ['core/notices/a.ts', 'core/sandbox/b.ts'],
      ]),
    ).to.deep.equal([]);
    expect(
      circles([
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
        ['c', 'd'],
      ]),
    ).to.deep.equal([['a', 'b', 'c']]);
    expect(circles([['a', 'a']])).to.deep.equal([['a']]);
    expect(
      circles([
        ['a', 'b'],
        ['b', 'c'],
      ]),
    ).to.deep.equal([]);
    const planted = [
      ...edges,
      ['core/kernel/errors.ts', 'core/dns/zone.ts'] as [string, string],
      ['core/dns/zone.ts', 'core/kernel/errors.ts'] as [string, string],
    ];
    expect(circles(planted).some((c) => c.includes('core/kernel/errors.ts'))).to.equal(true);
    expect(
      importsOf(
        join(root, 'core/x/a.ts'),
        "import { a } from '../kernel/b.js';\nexport * from './c.js';\nconst m = await import('../dns/d.js');",
      ),
    ).to.deep.equal(['core/kernel/b.ts', 'core/x/c.ts', 'core/dns/d.ts']);
  });
});
