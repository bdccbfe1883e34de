// `npm run build` (and `prepare`, so `npm ci` builds): compiles core/, adapters/ and src/ into dist/
// with source maps, from a clean dist/ so no file of a deleted source lingers. The DNS UDP addon is
// built by the `install` script into adapters/dns/embedded/native/build; dist/ links to it rather than
// copying it, so `npm run build:native` needs no new build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
const native = join(root, 'adapters/dns/embedded/native');
const link = join(dist, 'adapters/dns/embedded/native');
if (existsSync(native)) {
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(relative(dirname(link), native), link, 'dir');
}
