// `npm run build` (and `prepare`, so `npm ci` builds): compiles core/, adapters/ and src/ into dist/
// with source maps, from a clean dist/ so no file of a deleted source lingers. The DNS UDP addon is
// built by the `install` script into adapters/dns/embedded/native/build; dist/ links to it rather than
// copying it, so `npm run build:native` needs no new build.
//
// Then each entry point (every dist/src/main/*.js) is bundled with esbuild in place, with the code it
// imports, ours and our dependencies', so that a start loads a few files rather than ~1,700 modules
// (issue 21: start time). The code the entry points share is in chunks beside them; what they import()
// on demand (the console pages, the live adapters) is in chunks of its own, loaded when first needed.
// The source maps go back to the TypeScript sources (esbuild reads tsc's maps). Left out of the bundles,
// loaded from node_modules as before: native addons and what loads them (better-sqlite3, @node-rs/argon2),
// the database drivers knex loads by name (pg, and those we do not install), and the packages loaded only
// when configured (Stripe, nodemailer, acme-client, the MCP SDK, the EPP client's XML parser). The rest of
// dist/ stays as tsc wrote it: the import planner's thread and the native addon are found beside their
// modules' compiled files (import.meta.url keeps meaning that in a bundle, see below).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
const native = join(root, 'adapters/dns/embedded/native');
const link = join(dist, 'adapters/dns/embedded/native');
if (existsSync(native)) {
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(relative(dirname(link), native), link, 'dir');
}

const main = join(dist, 'src/main');
const esbuild = await import('esbuild');
/**
 * import.meta.url of one of our modules, inside a bundle: where tsc put that module (dist/…/x.js), so the
 * files it finds beside itself (the planner's thread, the addon, a sibling entry point) are found. Every
 * output is in dist/src/main, so the path from there is known when the module is loaded.
 */
const ownUrls = {
  name: 'own-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const code = readFileSync(args.path, 'utf8');
      if (!code.includes('import.meta.url')) return undefined;
      const from = relative(main, args.path).split(sep).join('/');
      return {
        contents: code.replaceAll(
          'import.meta.url',
          `new URL(${JSON.stringify(from.startsWith('.') ? from : `./${from}`)}, import.meta.url).href`,
        ),
        loader: 'js',
      };
    });
  },
};
/**
 * A JSON file (mime-db's table, twice: Koa's and accepts' copies) becomes one JSON.parse of a string rather
 * than an object literal: V8 parses JSON much faster than it compiles and runs the same literal.
 */
const jsonParsed = {
  name: 'json-parsed',
  setup(build) {
    build.onLoad({ filter: /\.json$/ }, (args) => {
      // In single quotes, so the JSON's double quotes need no escape.
      const json = JSON.stringify(JSON.parse(readFileSync(args.path, 'utf8')));
      return { contents: `module.exports = JSON.parse('${json.replace(/[\\']/g, '\\$&')}');`, loader: 'js' };
    });
  },
};
/**
 * accepts (Koa's content negotiation) pins mime-types 2 with its own copy of mime-db (150 KB of the start's
 * code, the same table again): it is given the mime-types Koa itself uses (3, the same lookup()).
 */
const oneMimeTypes = {
  name: 'one-mime-types',
  setup(build) {
    const top = require.resolve('mime-types', { paths: [root] });
    build.onResolve({ filter: /^mime-types$/ }, () => ({ path: top }));
  },
};
/**
 * A package our code loads on demand (`await import()`) and takes named exports from must reach the bundle as
 * an ES module: a CommonJS one becomes a chunk whose only export is `default`, and the names the code takes
 * from it are undefined in the build alone (the tests, through tsx, load the package itself). tldts (the
 * public suffix list, loaded by the first hosted-domain claim) and its core ship both builds; the ES one is
 * taken. test/production/compiled.test.ts claims a hosted domain through the build.
 */
const esmBuilds = {
  name: 'esm-builds',
  setup(build) {
    build.onResolve({ filter: /^tldts(-core)?$/ }, (args) => {
      const manifest = require.resolve(`${args.path}/package.json`, { paths: [args.resolveDir || root] });
      const { module } = JSON.parse(readFileSync(manifest, 'utf8'));
      if (typeof module !== 'string') throw new Error(`${args.path} names no ES module build ("module" in its package.json)`);
      return { path: join(dirname(manifest), module) };
    });
  },
};
const built = await esbuild.build({
  entryPoints: readdirSync(main)
    .filter((f) => f.endsWith('.js'))
    .map((f) => join(main, f)),
  outdir: main,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: 'chunk-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  // The maps name the sources rather than hold them: --enable-source-maps keeps each map in memory.
  sourcesContent: false,
  // Whitespace and syntax minified, names kept (the maps restore lines; stack traces keep function names):
  // a smaller source to compile and to hold (V8 keeps it), ~15 MB less RSS over npm start's processes.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  external: [
    'better-sqlite3',
    '@node-rs/argon2',
    'pg',
    'pg-native',
    'pg-query-stream',
    'sqlite3',
    'mysql',
    'mysql2',
    'mariadb',
    'oracledb',
    'tedious',
    'stripe',
    'nodemailer',
    'acme-client',
    '@modelcontextprotocol/sdk',
    'fast-xml-parser',
  ],
  // esbuild's require() in an ES module (the bundled CommonJS packages require Node's own modules) is this one.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  plugins: [ownUrls, jsonParsed, oneMimeTypes, esmBuilds],
  metafile: process.env.BUILD_METAFILE !== undefined,
});
// The maps keep our sources only. --enable-source-maps reads and parses every loaded bundle's map at
// start, in each process; two thirds of their sources are our dependencies' JavaScript (knex, Koa, ajv …)
// whose positions in a bundle say as much as in the original file (the names are kept). Their segments
// become unmapped ones (a column and no source), so a frame in a dependency reads as the bundle's line and
// column rather than as a neighbouring line of ours.
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const B64_INDEX = new Map([...B64].map((c, i) => [c, i]));
const decodeSegment = (text) => {
  const out = [];
  let value = 0;
  let shift = 0;
  for (const c of text) {
    const digit = B64_INDEX.get(c);
    if (digit === undefined) throw new Error(`not a base64 VLQ digit: ${c}`);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
};
const encodeValue = (n) => {
  let v = n < 0 ? (-n << 1) | 1 : n << 1;
  let s = '';
  do {
    let digit = v & 31;
    v >>>= 5;
    if (v > 0) digit |= 32;
    s += B64[digit];
  } while (v > 0);
  return s;
};
const ownSourcesOnly = (map) => {
  const keep = map.sources.map((s) => !s.split('/').includes('node_modules'));
  const sourceIndex = [];
  const sources = [];
  map.sources.forEach((s, i) => {
    if (keep[i]) {
      sourceIndex[i] = sources.length;
      sources.push(s);
    }
  });
  const names = [];
  const nameIndex = new Map();
  // Absolute values as decoded, and the previous ones written (the format's deltas run across lines).
  let src = 0,
    line = 0,
    col = 0,
    name = 0;
  let wSrc = 0,
    wLine = 0,
    wCol = 0,
    wName = 0;
  // Whether the last segment written maps to a source: a position is looked up as the nearest segment at or
  // before it, on its line or an earlier one, so each run of dependency code starts with an unmapped one.
  let mapped = false;
  const lines = map.mappings.split(';').map((text) => {
    let genCol = 0;
    let wGenCol = 0;
    const out = [];
    const unmap = () => {
      out.push(encodeValue(genCol - wGenCol));
      wGenCol = genCol;
      mapped = false;
    };
    for (const seg of text === '' ? [] : text.split(',')) {
      const f = decodeSegment(seg);
      genCol += f[0];
      if (f.length === 1) {
        if (mapped) unmap();
        continue;
      }
      src += f[1];
      line += f[2];
      col += f[3];
      if (f.length === 5) name += f[4];
      if (!keep[src]) {
        if (mapped) unmap();
        continue;
      }
      let s = encodeValue(genCol - wGenCol) + encodeValue(sourceIndex[src] - wSrc) + encodeValue(line - wLine) + encodeValue(col - wCol);
      wGenCol = genCol;
      wSrc = sourceIndex[src];
      wLine = line;
      wCol = col;
      if (f.length === 5) {
        const n = map.names[name];
        if (!nameIndex.has(n)) nameIndex.set(n, names.push(n) - 1);
        s += encodeValue(nameIndex.get(n) - wName);
        wName = nameIndex.get(n);
      }
      out.push(s);
      mapped = true;
    }
    return out.join(',');
  });
  return { ...map, sources, names, mappings: lines.join(';') };
};
for (const f of readdirSync(main).filter((f) => f.endsWith('.js.map'))) {
  const file = join(main, f);
  writeFileSync(file, JSON.stringify(ownSourcesOnly(JSON.parse(readFileSync(file, 'utf8')))));
}
// BUILD_METAFILE=<file>: esbuild's account of what each output holds (for a look at what a start loads).
if (built.metafile) (await import('node:fs')).writeFileSync(process.env.BUILD_METAFILE, JSON.stringify(built.metafile));
