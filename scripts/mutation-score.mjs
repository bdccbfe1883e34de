// `node scripts/mutation-score.mjs [report.json …]` (default var/mutation/mutation.json): writes the per-folder scores
// of Stryker runs (`npm run test:mutation`, JSON reporter) into the README between the mutation-score markers, so the
// figures are copied by a program rather than typed. Several reports merge file by file, a later one replacing an
// earlier one's mutants of the same file (a run narrowed with --mutate to a file after new tests). A folder whose
// files the reports hold only in part gets a row that names the files measured (a run narrowed with --mutate); the
// rows already in the README are kept as they were, each with its own date and command (MUTATION_COMMAND, or the
// folder's STRYKER_FOLDERS run), unless they name a file the new row measures (a row of a whole folder names all).
// So a folder can have several rows, for runs over files that do not overlap.
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reports = process.argv.length > 2 ? process.argv.slice(2) : [join(root, 'var/mutation/mutation.json')];
const readmePath = join(root, 'README.md');
const BEGIN = '<!-- mutation-score:begin -->';
const END = '<!-- mutation-score:end -->';
const FOLDERS = ['access', 'billing', 'dns/checks', 'operations'];
const HEADER = [
  '| folder | mutants | killed | survived | timeout | no coverage | score | measured (UTC) | command |',
  '|---|--:|--:|--:|--:|--:|--:|---|---|',
];

/** The files stryker.config.mjs mutates in a folder: its .ts files outside ports/. */
const sources = (folder) =>
  readdirSync(join(root, 'core', folder), { recursive: true })
    .map((f) => `core/${folder}/${String(f).split('\\').join('/')}`)
    .filter((f) => f.endsWith('.ts') && !f.includes('/ports/'));

const byFile = new Map();
let latest = 0;
for (const path of reports) {
  const report = JSON.parse(readFileSync(path, 'utf8'));
  latest = Math.max(latest, statSync(path).mtimeMs);
  for (const [file, { mutants }] of Object.entries(report.files)) {
    byFile.set(relative(root, join(root, file)).split('\\').join('/'), mutants);
  }
}
const measured = new Date(latest).toISOString().slice(0, 16).replace('T', ' ');

const rows = new Map();
/** The files of each new row, to tell which rows already in the README it replaces. */
const measuredFiles = new Map();
for (const folder of FOLDERS) {
  const files = sources(folder);
  const present = files.filter((f) => byFile.has(f));
  if (present.length === 0) continue;
  const label =
    present.length < files.length
      ? `${folder} (${present.length} of ${files.length} files: ${present.map((f) => f.slice(`core/${folder}/`.length)).join(', ')})`
      : folder;
  const c = { Killed: 0, Survived: 0, Timeout: 0, NoCoverage: 0 };
  for (const f of present) for (const m of byFile.get(f)) if (m.status in c) c[m.status]++;
  // Stryker's mutation score: detected (killed, timed out) over valid mutants (compile errors and ignored left out).
  const valid = c.Killed + c.Survived + c.Timeout + c.NoCoverage;
  const score = valid === 0 ? 'n/a' : `${((100 * (c.Killed + c.Timeout)) / valid).toFixed(1)} %`;
  const command = process.env.MUTATION_COMMAND ?? `STRYKER_FOLDERS=${folder} STRYKER_CONCURRENCY=1 npm run test:mutation`;
  measuredFiles.set(folder, new Set(present));
  rows.set(
    folder,
    `| ${label} | ${valid} | ${c.Killed} | ${c.Survived} | ${c.Timeout} | ${c.NoCoverage} | ${score} | ${measured} | \`${command}\` |`,
  );
}
if (rows.size === 0) throw new Error(`${reports.join(', ')}: no mutant of ${FOLDERS.join(', ')}`);

const readme = readFileSync(readmePath, 'utf8');
const start = readme.indexOf(BEGIN);
const end = readme.indexOf(END);
if (start < 0 || end < start) throw new Error(`README.md: no ${BEGIN} … ${END}`);
/** Rows already there that stay: per folder, in their order. */
const kept = new Map();
for (const line of readme.slice(start + BEGIN.length, end).split('\n')) {
  const m = /^\| ([a-z/]+)(?: \(\d+ of \d+ files: ([^)]*)\))? \|/.exec(line);
  if (!m || !FOLDERS.includes(m[1])) continue;
  const folder = m[1];
  const files = m[2] ? m[2].split(', ').map((f) => `core/${folder}/${f}`) : sources(folder);
  const fresh = measuredFiles.get(folder);
  if (fresh && files.some((f) => fresh.has(f))) continue;
  if (!kept.has(folder)) kept.set(folder, []);
  kept.get(folder).push(line);
}
const block = ['', ...HEADER, ...FOLDERS.flatMap((f) => [...(kept.get(f) ?? []), ...(rows.has(f) ? [rows.get(f)] : [])]), ''].join('\n');
writeFileSync(readmePath, readme.slice(0, start + BEGIN.length) + block + readme.slice(end));
for (const r of rows.values()) console.log(r);
