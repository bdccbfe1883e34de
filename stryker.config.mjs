// Mutation testing of the pure core's rules: `npm run test:mutation` (slow, not in CI).
// STRYKER_FOLDERS=access,billing narrows the run to some of the folders (mutants and the tests that cover them).
// Survivors that are equivalent (no test can tell them apart) are listed in test/mutation/EQUIVALENT.md.

/** Each folder of core/ under test, with the fast tests that exercise it (the whole suite takes 25 minutes). */
const FOLDERS = {
  access: [
    'test/access/cidr.test.ts',
    'test/access/issue-key.test.ts',
    'test/access/key-token.test.ts',
    'test/access/policy.test.ts',
    'test/access/rights.test.ts',
    'test/access/key-auth.test.ts',
    'test/access/keys.test.ts',
    'test/access/tsig-key.test.ts',
    'test/access/key-view.test.ts',
    'test/access/manage-keys.test.ts',
    'test/access/visibility.test.ts',
  ],
  billing: ['test/billing/*.test.ts'],
  'dns/checks': [
    'test/dns/checks.test.ts',
    'test/dns/check-results.test.ts',
    'test/dns/incremental-checks.test.ts',
    'test/dns/names-and-values.test.ts',
    'test/dns/spf-depth.test.ts',
  ],
  operations: [
    'test/operations/*.test.ts',
    // The DNSSEC operations (publish the DS, switch off, take a foreign key out) and hosted-domain deletion.
    'test/dnssec/dnssec-ds.test.ts',
    'test/dnssec/dnssec-switch-off.test.ts',
    'test/dnssec/foreign-keys.test.ts',
    'test/dnssec/multi-signer.test.ts',
    'test/domains/hosted-domains.test.ts',
  ],
};
const chosen = process.env.STRYKER_FOLDERS ? process.env.STRYKER_FOLDERS.split(',') : Object.keys(FOLDERS);
for (const f of chosen) if (!FOLDERS[f]) throw new Error(`STRYKER_FOLDERS: no folder ${f} (${Object.keys(FOLDERS).join(', ')})`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'mocha',
  testRunnerNodeArgs: ['--import', 'tsx'],
  mochaOptions: {
    spec: [...new Set(chosen.flatMap((f) => FOLDERS[f]))],
    // The timeout and extensions come from this file (Stryker's own options have no timeout).
    config: 'test/mutation/mocharc.cjs',
    'no-package': true,
    // Rate-limit tests count requests per wall-clock second: instrumented code under load misses their window.
    grep: '^(?!.*Rate limit)',
  },
  mutate: [...chosen.map((f) => `core/${f}/**/*.ts`), '!core/**/ports/**'],
  ignorePatterns: ['var', '*.sqlite', '*.sqlite-*', 'reports'],
  // Type-checking each mutant removes the ones that would not compile; STRYKER_TYPECHECK=0 skips it (faster).
  checkers: process.env.STRYKER_TYPECHECK === '0' ? [] : ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  // The machine is shared: 2 runners by default.
  concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 2),
  timeoutMS: 20000,
  dryRunTimeoutMinutes: 30,
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: 'var/mutation/mutation.json' },
  htmlReporter: { fileName: 'var/mutation/mutation.html' },
  tempDirName: 'var/stryker-tmp',
  cleanTempDir: true,
};
